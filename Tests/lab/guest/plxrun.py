#!/usr/bin/env python3
"""Runs the host-built parallaxd in the lab guest and talks to it (python3, stdlib only).

    plxrun.py daemon --dir D [--bin PATH] [--set Section.Key=value …] [--log-level L]
        writes D/parallaxd.conf, starts `parallaxd --source iio:local: --socket D/parallaxd.sock`
        with NOTIFY_SOCKET and returns once it sends READY=1 (the daemon stays, output in
        D/parallaxd.log); prints {"pid", "socket", "ready_s"}
    plxrun.py subscribe --socket S [--rate HZ] [--seconds S] [--frames N] [--until 'y < -0.2']
        subscribes and prints every server line with its arrival time (CLOCK_MONOTONIC ns) and
        the time of the subscribe command, as one JSON object
        --then JSON --hub SOCKET: once the first offset frame is in, send the hub this request
        (the motion under test starts only once the subscriber holds the current offset)
    plxrun.py status --socket S     one status reply
    plxrun.py firsts --socket S [--count N] [--before SHELL] [--replug-hub SOCKET]
                     [--await-active UNIT] [--await-rest] [--hold] [--warmup] [--rate HZ]
        N new subscribers in a row, each on its own connection: before each, run SHELL (e.g.
        stop the service: the connection then starts it), unplug and plug the hub back (its
        control socket), await UNIT active, and/or await `"resting": true` in status; then
        connect, read the hello, subscribe, and record the first offset frame with its arrival
        time (recv_ns, CLOCK_MONOTONIC) and the subscribe command's time; close. --hold keeps
        one subscriber for the whole run (the sensors stay open and can rest); --warmup
        subscribes once first, unmeasured (the sensors are open when the first one comes).
        Prints {"connections": [{"subscribe_ns", "recv_ns", "t", "seq", "lines"}…]}
    plxrun.py monitor [--user U] [--ctl PATH] [--seconds S] [--until …] [--then JSON --hub SOCKET]
        runs `parallaxctl monitor --json --seconds S` (as user U, through setpriv: with U's
        groups) and records its lines as subscribe does; also prints its exit status and stderr
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

DEFAULT_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '.build', 'debug', 'parallaxd')


def daemon(a):
    os.makedirs(a.dir, exist_ok=True)
    conf = os.path.join(a.dir, 'parallaxd.conf')
    sections = {'Motion': {'Recenter': 'no'}, 'Access': {'Subscribers': 'everyone', 'Controllers': 'everyone'},
                'Calibration': {'File': os.path.join(a.dir, 'calibration.conf')}}
    for s in a.set:
        key, _, value = s.partition('=')
        sec, _, k = key.partition('.')
        sections.setdefault(sec, {})[k] = value
    with open(conf, 'w') as f:
        for sec, kv in sections.items():
            f.write(f'[{sec}]\n' + ''.join(f'{k}={v}\n' for k, v in kv.items()))
    sock = os.path.join(a.dir, 'parallaxd.sock')
    notify_path = os.path.join(a.dir, 'notify.sock')
    if os.path.exists(notify_path):
        os.unlink(notify_path)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    log = open(os.path.join(a.dir, 'parallaxd.log'), 'ab')
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    t0 = time.monotonic()
    p = subprocess.Popen([os.path.realpath(a.bin), '--config', conf, '--socket', sock, '--source', a.source,
                          '--log-level', a.log_level], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         env=env, start_new_session=True)
    if a.no_wait:
        print(json.dumps(dict(ok=True, pid=p.pid, socket=sock, started_ns=time.monotonic_ns())))
        return 0
    notify.settimeout(a.timeout)
    try:
        while True:
            msg = notify.recv(4096).decode()
            if 'READY=1' in msg.split('\n'):
                break
    except socket.timeout:
        p.kill()
        print(json.dumps(dict(ok=False, error=f'no READY=1 within {a.timeout} s', rc=p.poll())))
        return 1
    print(json.dumps(dict(ok=True, pid=p.pid, socket=sock, ready_s=round(time.monotonic() - t0, 3),
                          ready_ns=time.monotonic_ns())))
    return 0


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s, s.makefile('rb')


FIELDS = ('type', 'seq', 't', 'x', 'y', 'vx', 'vy', 'sensor', 'reduce_motion', 'calibrated', 'rate')


def until_holds(expr, msg, states, frames, lost_ns):
    """The test's stop condition: a Python expression of the message's fields (type, x, y, t,
    sensor…; None when absent), states (the state lines so far), frames (offsets so far) and
    lost_ns (arrival of the last state line other than ok). Builtins (abs, len…) are there."""
    fields = {k: msg.get(k) for k in FIELDS}
    fields.update(states=states, frames=frames, lost_ns=lost_ns)
    try:
        return bool(eval(expr, {}, fields))  # noqa: S307 - the test's own expression
    except TypeError:
        return False


def hub_request(path, line):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(line.encode() + b'\n')
        return json.loads(s.makefile('rb').readline())


class Recording:
    """The server lines a subscriber received, with the test's stop condition (--frames, --until)
    and the hub request sent once the first offset frame is in (--then)."""

    def __init__(self, a):
        self.a = a
        self.lines = []
        self.frames = 0
        self.states = []
        self.lost_ns = None
        self.then_ns = self.then_reply = None

    def add(self, msg):
        """Records one message; True when the recording is complete."""
        a = self.a
        self.lines.append(dict(recv_ns=time.monotonic_ns(), msg=msg))
        if msg.get('type') == 'state':
            self.states.append(msg.get('sensor'))
            if msg.get('sensor') != 'ok':
                self.lost_ns = self.lines[-1]['recv_ns']
        if msg.get('type') == 'offset':
            self.frames += 1
            if self.frames == 1 and a.then:
                # Subscribed and holding the current offset: now the motion under test.
                self.then_ns = time.monotonic_ns()
                self.then_reply = hub_request(a.hub, a.then)
            if a.frames and self.frames >= a.frames:
                return True
        return bool(a.until and until_holds(a.until, msg, self.states, self.frames, self.lost_ns))


def monitor(a):
    argv = [a.ctl, 'monitor', '--json', '--seconds', str(a.seconds)]
    if a.user:
        # setpriv, not runuser: no PAM session, so no logind session and user manager to start
        # (slow under TCG) for each monitor; the user's own groups all the same.
        argv = ['setpriv', f'--reuid={a.user}', f'--regid={a.user}', '--init-groups', '--reset-env', '--'] + argv
    t_start = time.monotonic_ns()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    rec = Recording(a)
    for line in p.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if rec.add(msg):
            break
    p.terminate()
    out, err = p.communicate()
    print(json.dumps(dict(ok=True, start_ns=t_start, rc=p.returncode, stderr=err.decode(errors='replace'),
                          lines=rec.lines, then_ns=rec.then_ns, then_reply=rec.then_reply)))
    return 0


def subscribe(a):
    t_try = time.monotonic_ns()
    deadline = time.monotonic() + a.connect_retry
    while True:
        try:
            s, f = connect(a.socket)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            # Only with --connect-retry: a client racing the daemon's start (the case under test).
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)
    s.settimeout(a.seconds)
    lines = []
    t_connect = time.monotonic_ns()
    hello = json.loads(f.readline())
    t_sub = time.monotonic_ns()
    s.sendall((json.dumps({'cmd': 'subscribe', 'rate': a.rate, 'rotation': 0, 'id': 1}) + '\n').encode())
    deadline = time.monotonic() + a.seconds
    rec = Recording(a)
    try:
        while time.monotonic() < deadline:
            s.settimeout(max(0.001, deadline - time.monotonic()))
            line = f.readline()
            if not line:
                break
            if rec.add(json.loads(line)):
                break
    except (socket.timeout, TimeoutError, OSError):
        pass
    print(json.dumps(dict(ok=True, hello=hello, try_ns=t_try, connect_ns=t_connect, subscribe_ns=t_sub, lines=rec.lines,
                          then_ns=rec.then_ns, then_reply=rec.then_reply)))
    return 0


def status_reply(path):
    s, f = connect(path)
    with s:
        f.readline()
        s.sendall(b'{"cmd":"status"}\n')
        return json.loads(f.readline())


def connect_retrying(path, seconds):
    deadline = time.monotonic() + seconds
    while True:
        try:
            return connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def first_offset(path, rate, timeout, connect_retry=0):
    """Connects, subscribes and reads up to the first offset frame; its record."""
    t_try = time.monotonic_ns()
    s, f = connect_retrying(path, connect_retry)
    with s:
        s.settimeout(timeout)
        hello = json.loads(f.readline())
        t_sub = time.monotonic_ns()
        s.sendall((json.dumps({'cmd': 'subscribe', 'rate': rate, 'id': 1}) + '\n').encode())
        lines, first = [], None
        try:
            while first is None:
                line = f.readline()
                if not line:
                    break
                msg = json.loads(line)
                lines.append(dict(recv_ns=time.monotonic_ns(), msg=msg))
                if msg.get('type') == 'offset':
                    first = lines[-1]
        except (socket.timeout, TimeoutError, OSError):
            pass
    return dict(try_ns=t_try, subscribe_ns=t_sub, hello=hello.get('type'), lines=lines,
                recv_ns=first and first['recv_ns'], t=first and first['msg']['t'],
                seq=first and first['msg']['seq'])


def hold(path, rate):
    """A subscriber for the whole run, read on a thread of its own."""
    s, f = connect(path)
    f.readline()
    s.sendall((json.dumps({'cmd': 'subscribe', 'rate': rate}) + '\n').encode())
    threading.Thread(target=lambda: [None for _ in f], daemon=True).start()
    return s


def firsts(a):
    out = []
    held = hold(a.socket, a.rate) if a.hold else None
    if a.warmup:
        first_offset(a.socket, a.rate, a.timeout, a.connect_retry)
    for _ in range(a.count):
        if a.before:
            subprocess.run(a.before, shell=True, check=True)
        if a.replug_hub:
            reply = hub_request(a.replug_hub, json.dumps(dict(op='recreate', unplugged='0')))
            if not reply.get('ok'):
                print(json.dumps(dict(ok=False, error=f'the hub was not re-created: {reply}', connections=out)))
                return 1
        if a.await_active:
            deadline = time.monotonic() + a.timeout
            while subprocess.run(['systemctl', 'is-active', '-q', a.await_active]).returncode != 0:
                if time.monotonic() >= deadline:
                    print(json.dumps(dict(ok=False, error=f'{a.await_active} not active within {a.timeout} s', connections=out)))
                    return 1
                time.sleep(0.05)
        if a.await_rest:
            # The situation under test: the sensors at rest. Polled through status, which drains
            # but does not wake a resting capture.
            deadline = time.monotonic() + a.timeout
            while not status_reply(a.socket).get('resting'):
                if time.monotonic() >= deadline:
                    print(json.dumps(dict(ok=False, error=f'not at rest within {a.timeout} s', connections=out)))
                    return 1
                time.sleep(0.05)
        out.append(first_offset(a.socket, a.rate, a.timeout, a.connect_retry))
    if held:
        held.close()
    print(json.dumps(dict(ok=True, connections=out)))
    return 0


def status(a):
    s, f = connect(a.socket)
    f.readline()
    s.sendall(b'{"cmd":"status"}\n')
    print(f.readline().decode().strip())
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('daemon')
    p.add_argument('--dir', required=True)
    p.add_argument('--bin', default=DEFAULT_BIN)
    p.add_argument('--source', default='iio:local:')
    p.add_argument('--log-level', default='debug')
    p.add_argument('--set', action='append', default=[])
    p.add_argument('--timeout', type=float, default=60)
    p.add_argument('--no-wait', action='store_true', help='return at once, not at READY=1')
    p = sub.add_parser('subscribe')
    p.add_argument('--connect-retry', type=float, default=0, help='retry connecting this long (s)')
    p.add_argument('--socket', required=True)
    p.add_argument('--rate', type=int, default=60)
    p.add_argument('--seconds', type=float, default=10)
    p.add_argument('--frames', type=int, default=0)
    p.add_argument('--until', help='stop after the message for which this Python expression holds (see until_holds)')
    p.add_argument('--then', help='after the first offset frame, send this JSON line to the hub (--hub)')
    p.add_argument('--hub', default='/run/sensorhub.sock')
    p = sub.add_parser('status')
    p.add_argument('--socket', required=True)
    p = sub.add_parser('firsts')
    p.add_argument('--socket', required=True)
    p.add_argument('--count', type=int, default=20)
    p.add_argument('--rate', type=int, default=60)
    p.add_argument('--timeout', type=float, default=10, help='longest wait for a frame, or for the rest (s)')
    p.add_argument('--connect-retry', type=float, default=0, help='retry connecting this long (s)')
    p.add_argument('--before', help='shell command run before each connection')
    p.add_argument('--replug-hub', help="before each connection (after --before), re-create the hub of this control socket")
    p.add_argument('--await-active', help='before each connection, await this systemd unit active')
    p.add_argument('--hold', action='store_true', help='one subscriber held for the whole run')
    p.add_argument('--warmup', action='store_true', help='one unmeasured subscriber first')
    p.add_argument('--await-rest', action='store_true', help='before each connection, await "resting": true')
    p = sub.add_parser('monitor')
    p.add_argument('--user', help='run parallaxctl as this user (setpriv: with its groups)')
    p.add_argument('--ctl', default='/usr/bin/parallaxctl')
    p.add_argument('--seconds', type=float, default=10)
    p.add_argument('--frames', type=int, default=0)
    p.add_argument('--until', help='stop after the message for which this Python expression holds (see until_holds)')
    p.add_argument('--then', help='after the first offset frame, send this JSON line to the hub (--hub)')
    p.add_argument('--hub', default='/run/sensorhub.sock')
    a = ap.parse_args()
    return dict(daemon=daemon, subscribe=subscribe, status=status, monitor=monitor, firsts=firsts)[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
