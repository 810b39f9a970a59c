"""Clients that run as another user (through setpriv) for test_connection_limits.py and the
connection-flood benchmark. Standalone: plain python3, no harness import.

  flood_client.py flood SOCKET MODE COUNT SECONDS [--rate N] [--no-reopen]
      Keeps COUNT connections open for SECONDS. MODE: idle (sends nothing), subscribe (sends a
      subscribe at once and reads whatever comes). A connection the server closes is opened
      again (at most --rate connects per second in all, default 400) unless --no-reopen.
      Prints "ready" once COUNT connections were attempted, then one JSON line of counts.
  flood_client.py subscriber SOCKET SECONDS RATE
      Subscribes at RATE Hz, counts offset frames for SECONDS after the subscribe reply, prints
      one JSON line: the hello, the reply, the frame count and the largest gap between frames.
"""
import json
import selectors
import socket
import sys
import time

SUBSCRIBE = b'{"cmd":"subscribe","rate":60,"id":"flood"}\n'


def flood(path, mode, count, seconds, rate=400.0, reopen=True):
    counts = {'attempts': 0, 'connect_failed': 0, 'hello': 0, 'unavailable': 0,
              'permission_denied': 0, 'subscribed': 0, 'closed_by_server': 0, 'max_open': 0,
              'messages': []}
    sel = selectors.DefaultSelector()
    buffers = {}
    refused = set()     # connections that were told no: the server is to close them
    end = time.monotonic() + seconds
    next_connect = time.monotonic()
    announced = False

    def open_one():
        counts['attempts'] += 1
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect(path)
        except OSError:
            counts['connect_failed'] += 1
            s.close()
            return
        s.setblocking(False)
        if mode == 'subscribe':
            try:
                s.send(SUBSCRIBE)
            except OSError:
                pass
        buffers[s] = b''
        sel.register(s, selectors.EVENT_READ)

    def read_ready(timeout):
        for key, _ in sel.select(timeout=timeout):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b''
            if not data:
                counts['closed_by_server'] += 1
                sel.unregister(s)
                del buffers[s]
                refused.discard(s)
                s.close()
                continue
            lines = (buffers[s] + data).split(b'\n')
            buffers[s] = lines.pop()
            for line in lines:
                for word in ('hello', 'subscribed'):
                    if b'"type":"%s"' % word.encode() in line:
                        counts[word] += 1
                for code in ('unavailable', 'permission_denied'):
                    if b'"code":"%s"' % code.encode() in line:
                        counts[code] += 1
                        refused.add(s)
                        message = json.loads(line)['message']
                        if message not in counts['messages'] and len(counts['messages']) < 10:
                            counts['messages'].append(message)   # each distinct one, once

    while time.monotonic() < end:
        while len(buffers) < count and (reopen or counts['attempts'] < count) and time.monotonic() >= next_connect:
            open_one()
            next_connect += 1.0 / rate
        counts['max_open'] = max(counts['max_open'], len(buffers))
        if not announced and counts['attempts'] >= count:
            print('ready', flush=True)
            announced = True
        read_ready(0.02)
        if not reopen and not buffers and counts['attempts'] >= count:
            break
    # Refusals read just before the end: give the server a moment to close those too, so that
    # "closed after a refusal" is counted for every refusal, not only for the early ones.
    drain_end = time.monotonic() + 2.0
    while refused and time.monotonic() < drain_end:
        read_ready(0.05)
    if not announced:
        print('ready', flush=True)
    for s in list(buffers):
        s.close()
    print(json.dumps(counts), flush=True)


def subscriber(path, seconds, rate):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    f = s.makefile('rb')
    hello = json.loads(f.readline())
    s.sendall(b'{"cmd":"subscribe","rate":%d,"id":1}\n' % rate)
    reply = json.loads(f.readline())
    frames, gap, last = 0, 0.0, None
    if reply.get('type') == 'subscribed':
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            s.settimeout(max(0.01, end - time.monotonic()))
            try:
                line = f.readline()
            except socket.timeout:
                break
            if not line:
                break
            if b'"type":"offset"' in line:
                now = time.monotonic()
                frames += 1
                if last is not None:
                    gap = max(gap, now - last)
                last = now
    print(json.dumps({'hello': hello, 'reply': reply, 'frames': frames, 'max_gap': gap}), flush=True)


if __name__ == '__main__':
    if sys.argv[1] == 'flood':
        args = sys.argv[2:]
        reopen = '--no-reopen' not in args
        rate = float(args[args.index('--rate') + 1]) if '--rate' in args else 400.0  # the last one given wins
        flood(args[0], args[1], int(args[2]), float(args[3]), rate, reopen)
    elif sys.argv[1] == 'subscriber':
        subscriber(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit('usage: flood_client.py flood|subscriber …')
