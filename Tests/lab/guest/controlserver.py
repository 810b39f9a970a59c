"""The control server of the lab's emulated devices (sensorhub.py, i2cimu.py, steamdeck.py; python3,
stdlib only): each program makes its device and hands it here, which serves JSON lines on a Unix
socket until a request leaves the device stopping.

A device has handle(request dict) → reply dict (called from a thread per connection), status() →
dict (on the ready line), a `stopping` flag (set by its `quit`), and may have run(), started in a
thread of its own once it exists (a loop that feeds the kernel).

With background=True the program forks first (the device is made in the child: its threads and
file descriptors are the child's), the parent prints the child's first line and exits 0 once it
says `ready pid=P socket=S {status}`, or 1 with its error: so the caller's command returns once
the device exists and its socket listens.
"""
import json
import os
import socketserver
import sys
import threading


class NotReady(Exception):
    """The device could not be made; the message is the whole error (no exception type)."""


def _daemonize(log):
    """Forks: the parent waits for the child's first line and exits; returns the child's end of
    that pipe."""
    r, w = os.pipe()
    if os.fork():
        os.close(w)
        msg = os.read(r, 4096).decode()
        print(msg)
        sys.exit(0 if msg.startswith('ready') else 1)
    os.close(r)
    os.setsid()
    devnull = os.open('/dev/null', os.O_RDWR)
    logfd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if log else devnull
    os.dup2(devnull, 0)
    os.dup2(logfd, 1)
    os.dup2(logfd, 2)
    return w


def serve(make_device, socket_path, background=False, log=None):
    """Makes the device (make_device()), starts its run() if it has one, serves its control
    socket at socket_path until it is stopping; returns the exit status (1 if it could not be made)."""
    w = _daemonize(log) if background else None

    def say(line, log_too=False):
        if w is not None:
            os.write(w, line.encode())
            os.close(w)
        if w is None or log_too:
            print(line, flush=True)

    try:
        device = make_device()
    except NotReady as e:
        say(f'error: {e}', log_too=True)
        return 1
    except Exception as e:  # noqa: BLE001 - reported to the caller
        say(f'error: {type(e).__name__}: {e}', log_too=True)
        return 1
    if hasattr(device, 'run'):
        threading.Thread(target=device.run, daemon=True).start()

    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            for line in self.rfile:
                try:
                    reply = device.handle(json.loads(line))
                except Exception as e:  # noqa: BLE001 - reported to the caller
                    reply = dict(ok=False, error=f'{type(e).__name__}: {e}')
                if device.stopping:
                    # The name goes before the reply: a caller that starts the next device at the
                    # same path once it has the reply must not have its socket removed by this
                    # process's exit.
                    unlink_if_ours()
                self.wfile.write((json.dumps(reply) + '\n').encode())
                self.wfile.flush()
                if device.stopping:
                    threading.Thread(target=server.shutdown, daemon=True).start()
                    return

    if os.path.exists(socket_path):
        os.unlink(socket_path)
    server = socketserver.ThreadingUnixStreamServer(socket_path, Handler)
    server.daemon_threads = True
    ours = os.stat(socket_path).st_ino

    def unlink_if_ours():
        try:
            if os.stat(socket_path).st_ino == ours:
                os.unlink(socket_path)
        except FileNotFoundError:
            pass

    say(f'ready pid={os.getpid()} socket={socket_path} ' + json.dumps(device.status()))
    server.serve_forever()
    unlink_if_ours()
    return 0
