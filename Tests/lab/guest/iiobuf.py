#!/usr/bin/env python3
"""Reads an IIO device's buffer the way the real hid-sensor drivers need it (lab guest, stdlib):
its own trigger, every channel and the timestamp enabled, buffer/length raised from its default
of 2, storage le:s16/32>>0 masked to its real bits. Prints one JSON object.

    iiobuf.py NAME --count N [--timeout S] [--clock monotonic]   read N samples, then disable
    iiobuf.py NAME --enable | --disable                          leave the buffer on / turn it off
"""
import argparse
import json
import os
import re
import select
import struct
import sys
import time

BASE = '/sys/bus/iio/devices'


def find(name):
    for d in sorted(os.listdir(BASE)):
        try:
            if d.startswith('iio:device') and open(os.path.join(BASE, d, 'name')).read().strip() == name:
                return d
        except OSError:
            pass
    raise SystemExit(json.dumps(dict(ok=False, error=f'no IIO device named {name}')))


def write(path, value):
    with open(path, 'w') as f:
        f.write(str(value))


def channels(dev):
    scan = os.path.join(BASE, dev, 'scan_elements')
    chans = []
    for f in sorted(os.listdir(scan)):
        if f.endswith('_en'):
            base = f[:-3]
            write(os.path.join(scan, f), 1)
            idx = int(open(os.path.join(scan, base + '_index')).read())
            t = open(os.path.join(scan, base + '_type')).read().strip()
            m = re.match(r'([bl])e:([su])(\d+)/(\d+)>>(\d+)', t)
            chans.append(dict(name=base, index=idx, endian=m.group(1), signed=m.group(2) == 's',
                              realbits=int(m.group(3)), storagebits=int(m.group(4)), shift=int(m.group(5))))
    return sorted(chans, key=lambda c: c['index'])


def layout(chans):
    off = 0
    for c in chans:
        n = c['storagebits'] // 8
        off = (off + n - 1) // n * n
        c['offset'] = off
        off += n
    maxn = max(c['storagebits'] // 8 for c in chans)
    return (off + maxn - 1) // maxn * maxn


def decode(c, raw):
    n = c['storagebits'] // 8
    v = int.from_bytes(raw[c['offset']:c['offset'] + n], 'little' if c['endian'] == 'l' else 'big')
    v >>= c['shift']
    v &= (1 << c['realbits']) - 1
    if c['signed'] and v & (1 << (c['realbits'] - 1)):
        v -= 1 << c['realbits']
    return v


def enable(dev, clock):
    d = os.path.join(BASE, dev)
    write(os.path.join(d, 'buffer', 'enable'), 0)
    if clock:
        write(os.path.join(d, 'current_timestamp_clock'), clock)
    trig = None
    for t in os.listdir(BASE):
        if t.startswith('trigger'):
            n = open(os.path.join(BASE, t, 'name')).read().strip()
            if n.endswith('-' + dev.replace('iio:device', 'dev')):
                trig = n
    write(os.path.join(d, 'trigger', 'current_trigger'), trig)
    chans = channels(dev)
    write(os.path.join(d, 'buffer', 'length'), 64)
    write(os.path.join(d, 'buffer', 'enable'), 1)
    return chans, trig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('name')
    ap.add_argument('--count', type=int, default=0)
    ap.add_argument('--timeout', type=float, default=10)
    ap.add_argument('--clock', default='monotonic')
    ap.add_argument('--enable', action='store_true')
    ap.add_argument('--disable', action='store_true')
    a = ap.parse_args()
    dev = find(a.name)
    if a.disable:
        write(os.path.join(BASE, dev, 'buffer', 'enable'), 0)
        print(json.dumps(dict(ok=True, device=dev)))
        return 0
    chans, trig = enable(dev, a.clock)
    if a.enable:
        print(json.dumps(dict(ok=True, device=dev, trigger=trig)))
        return 0
    size = layout(chans)
    fd = os.open('/dev/' + dev, os.O_RDONLY | os.O_NONBLOCK)
    samples, buf = [], b''
    deadline = time.monotonic() + a.timeout
    try:
        while len(samples) < a.count:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            try:
                buf += os.read(fd, size * 64)
            except BlockingIOError:
                continue
            while len(buf) >= size and len(samples) < a.count:
                rec, buf = buf[:size], buf[size:]
                samples.append(dict({c['name']: decode(c, rec) for c in chans}, read_ns=time.monotonic_ns()))
    finally:
        os.close(fd)
        write(os.path.join(BASE, dev, 'buffer', 'enable'), 0)
    print(json.dumps(dict(ok=len(samples) >= a.count, device=dev, trigger=trig, samples=samples)))
    return 0 if len(samples) >= a.count else 1


if __name__ == '__main__':
    sys.exit(main())
