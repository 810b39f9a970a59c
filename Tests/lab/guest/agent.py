#!/usr/bin/env python3
"""The lab guest's agent: runs the host's commands, one JSON line per request and per reply, over
the virtio-serial port named "lab" (started by init.sh; stdlib only).

Request:  {"id": 7, "argv": ["ls", "/"]}  or  {"id": 7, "sh": "echo $HOME"}
          optional "timeout" (s, default 60), "input" (text for stdin), "env" (extra variables)
          {"id": 8, "op": "poweroff"}
          {"id": 9, "op": "read", "path": P} / {"op": "write", "path": P, "data": TEXT}
          {"id": 10, "op": "unix", "path": SOCKET, "line": "…\n"}  one request line, one reply line
Reply:    {"id": 7, "rc": 0, "stdout": "…", "stderr": "…", "timed_out": false, "seconds": 0.01}
          (rc is −signal for a killed command, 127 when it cannot be started)

Requests run concurrently (one thread each), so the host may run a long command (a subscriber
recording frames) while it moves the hub. A command that leaves a background process behind
must redirect its output, or the reply waits for that process (run_background does it).
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

READY = 'LAB-AGENT-READY'


def main():
    port = sys.argv[1]
    fd = os.open(port, os.O_RDWR)
    out_lock = threading.Lock()

    def reply(obj):
        data = (json.dumps(obj) + '\n').encode()
        with out_lock:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]

    def handle(req):
        rid = req.get('id')
        if req.get('op') == 'poweroff':
            reply({'id': rid, 'rc': 0, 'stdout': '', 'stderr': ''})
            time.sleep(0.1)
            with open('/proc/sysrq-trigger', 'w') as f:
                f.write('o')
            return
        if req.get('op') == 'ping':
            reply({'id': rid, 'rc': 0, 'stdout': 'pong', 'stderr': ''})
            return
        if req.get('op') in ('read', 'write', 'unix'):
            # Without a process (python3 starts slowly under TCG): a file's text, a write, or one
            # request line to a Unix stream socket and its one reply line.
            try:
                if req['op'] == 'read':
                    with open(req['path']) as f:
                        out = f.read()
                elif req['op'] == 'write':
                    with open(req['path'], 'w') as f:
                        f.write(req['data'])
                    out = ''
                else:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                        s.settimeout(req.get('timeout', 60))
                        s.connect(req['path'])
                        s.sendall(req['line'].encode())
                        out = s.makefile('rb').readline().decode()
                reply({'id': rid, 'rc': 0, 'stdout': out, 'stderr': ''})
            except (OSError, ValueError) as e:
                reply({'id': rid, 'rc': 1, 'stdout': '', 'stderr': f'{type(e).__name__}: {e}'})
            return
        argv = req['argv'] if 'argv' in req else ['/bin/bash', '-c', req['sh']]
        env = dict(os.environ)
        env.update(req.get('env') or {})
        timeout = req.get('timeout', 60)
        t0 = time.monotonic()
        try:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, cwd=req.get('cwd', '/'),
                                 start_new_session=True)
        except OSError as e:
            reply({'id': rid, 'rc': 127, 'stdout': '', 'stderr': str(e), 'timed_out': False})
            return
        timed_out = False
        try:
            out, err = p.communicate((req.get('input') or '').encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(p.pid, 9)
            except OSError:
                pass
            out, err = p.communicate()
        reply({'id': rid, 'rc': p.returncode, 'stdout': out.decode(errors='replace'),
               'stderr': err.decode(errors='replace'), 'timed_out': timed_out,
               'seconds': round(time.monotonic() - t0, 4)})

    print(READY, flush=True)
    buf = b''
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        if not chunk:
            # The host is not connected (yet or any more): the port reads EOF; wait for it.
            time.sleep(0.2)
            continue
        buf += chunk
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError:
                continue
            threading.Thread(target=handle, args=(req,), daemon=True).start()


if __name__ == '__main__':
    main()
