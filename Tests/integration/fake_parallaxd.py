#!/usr/bin/env python3
"""A stand-in for parallaxd used only by test_harness.py to check the harness itself (sd_notify
readiness, the umockdev environment, SIGTERM handling, the client) without the Swift binary.

It lists the IIO devices it can see (through the umockdev preload when the harness set it up),
sends `STATUS=devices …` and `READY=1` to NOTIFY_SOCKET, serves hello + status on --socket, and exits
0 on SIGTERM. Modes via FAKE_MODE: `exit-early` (exit 3 before READY), `ignore-term` (never exits on
SIGTERM), `nan` (sends an offset frame with NaN after hello)."""
import glob
import json
import os
import select
import signal
import socket
import sys

args = sys.argv[1:]
sock_path = args[args.index('--socket') + 1]
mode = os.environ.get('FAKE_MODE', '')


def notify(msg):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.sendto(msg.encode(), os.environ['NOTIFY_SOCKET'])
    s.close()


if mode == 'exit-early':
    sys.stderr.write('fake: exiting early on purpose\n')
    sys.exit(3)

names = []
for p in sorted(glob.glob('/sys/bus/iio/devices/*/name')):
    with open(p) as f:
        names.append(f.read().strip())

r_wake, w_wake = os.pipe()
os.set_blocking(w_wake, False)
signal.set_wakeup_fd(w_wake)
if mode == 'ignore-term':
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGTERM, lambda *a: None)

srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sock_path)
srv.listen(8)
notify('STATUS=devices %s\nREADY=1' % ','.join(names))
clients = {}
while True:
    r, _, _ = select.select([srv, r_wake] + list(clients), [], [])
    if r_wake in r:
        os.read(r_wake, 64)
        if mode != 'ignore-term':
            notify('STOPPING=1')
            os.unlink(sock_path)
            sys.exit(0)
    if srv in r:
        c, _ = srv.accept()
        clients[c] = b''
        c.sendall(b'{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}\n')
        if mode == 'nan':
            c.sendall(b'{"type":"offset","seq":1,"t":5,"x":NaN,"y":0}\n')
    for c in [c for c in r if c in clients]:
        data = c.recv(4096)
        if not data:
            del clients[c]
            c.close()
            continue
        clients[c] += data
        while b'\n' in clients[c]:
            line, clients[c] = clients[c].split(b'\n', 1)
            req = json.loads(line)
            reply = {'type': 'status', 'devices': names}
            if 'id' in req:
                reply['id'] = req['id']
            c.sendall((json.dumps(reply) + '\n').encode())
