#!/usr/bin/env python3
"""A Steam Deck's controller in the lab guest, over /dev/uhid, for the real hid-steam driver of
the backports kernel (6.12, docs/lab.md): hid-steam makes "Steam Deck Motion Sensors", an evdev
device (INPUT_PROP_ACCELEROMETER), from the IMU values of the controller's input reports, which
this process sends at 250 Hz with the hub's motion model (sensorhub.Motion). python3, stdlib only.

    steamdeck.py serve [--socket S] [--log L] [--background] [--rate HZ] [--lizard-mode 0|1]
Control ops (JSON lines on the socket, as sensorhub.py):
    status                                  the motion device's event node, reports sent, lizard mode
    attitude x=DEG y=DEG [seconds=S] [wait=1]   turn to that tilt over S s (the gyroscope sees it)
    rate x=DPS y=DPS z=DPS                  keep turning at this body rate
    options seconds=S                       hold the Options button for S s, then release it
                                            (hid-steam's lizard mode: held ≥ 0.45 s, motion flows)
    hidraw hold=1|0                         open (as Steam does) or close the controller's hidraw
                                            node; answers once the motion device is gone, or back
                                            (with its new event node)
    quit                                    destroy the device, await its input devices gone, exit

The controller as hid-steam sees it (drivers/hid/hid-steam.c): USB (bus 3), 28de:1205, one
vendor-page interface without report IDs, a 64-byte input report and a 64-byte feature report.
Feature requests are answered as the firmware does: the serial for ID_GET_STRING_ATTRIBUTE (0xae),
every other command echoed back. Input report (ID_CONTROLLER_DECK_STATE): `01 00 09 40`, a u32
sequence number, buttons at bytes 8–15 (Options: byte 9, bit 6), then s16 little-endian
accelerometer x, y, z at 24, 26, 28 (16384 per g: ±2 g) and gyroscope at 30, 32, 34 (16 per
°/s: ±2000 °/s), in the IMU's axes, which are the screen's (X right, Y toward the top of the
screen, Z out of it toward the viewer), specific force as a real IMU measures it (face up: +1 g
on z). hid-steam turns them into the gamepad convention (ABS_X = x, ABS_Y = z, ABS_Z = −y).

--lizard-mode sets hid-steam's module parameter before the device is made (default 1, the
kernel's: motion muted until Options is held). hid-steam's MSC_TIMESTAMP is its own counter (0 at
probe, +4000 µs per report): it reaches its 32-bit wrap only after 1.07 million reports, which is
why the wrap is tested on the daemon's unwrapping alone (EvdevMotionTests).
"""
import argparse
import os
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from controlserver import serve as serve_device  # noqa: E402
from sensorhub import (EVENT_SIZE, UHID_CREATE2, UHID_DESTROY, UHID_FEATURE_REPORT, UHID_GET_REPORT,  # noqa: E402
                       UHID_GET_REPORT_REPLY, UHID_INPUT2, UHID_SET_REPORT, UHID_SET_REPORT_REPLY, Motion)

BUS_USB = 0x03
VENDOR, PRODUCT = 0x28de, 0x1205
SERIAL = b'LABDECK0001'
MOTION_NAME = 'Steam Deck Motion Sensors'
INPUT = '/sys/class/input'
ACCEL_PER_G, GYRO_PER_DPS = 16384, 16
OPTIONS_BYTE, OPTIONS_BIT = 9, 6
ID_GET_STRING_ATTRIBUTE = 0xae
# Vendor page 0xFFFF, one application collection: 64 input bytes, 64 feature bytes, no report IDs.
DESCRIPTOR = bytes([
    0x06, 0xff, 0xff,        # Usage Page (vendor 0xFFFF)
    0x09, 0x01,              # Usage (1)
    0xa1, 0x01,              # Collection (Application)
    0x09, 0x02,              #   Usage (2)
    0x15, 0x00,              #   Logical Minimum (0)
    0x26, 0xff, 0x00,        #   Logical Maximum (255)
    0x75, 0x08,              #   Report Size (8)
    0x95, 0x40,              #   Report Count (64)
    0x81, 0x02,              #   Input (Data, Variable, Absolute)
    0x09, 0x03,              #   Usage (3)
    0x95, 0x40,              #   Report Count (64)
    0xb1, 0x02,              #   Feature (Data, Variable, Absolute)
    0xc0,                    # End Collection
])


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def motion_nodes():
    """The event nodes ("event5") of every "Steam Deck Motion Sensors" input device."""
    out = []
    for d in sorted(os.listdir(INPUT)):
        if d.startswith('event') and read(f'{INPUT}/{d}/device/name') == MOTION_NAME:
            out.append(d)
    return out


def hidraw_node():
    """/dev/hidrawN of the controller (hid-steam's client device; the interface itself has none)."""
    for d in sorted(os.listdir('/sys/class/hidraw')):
        uevent = read(f'/sys/class/hidraw/{d}/device/uevent', '')
        if f'HID_ID=0003:0000{VENDOR:04X}:0000{PRODUCT:04X}' in uevent:
            return f'/dev/{d}'
    return None


def clamp16(v):
    return max(-32768, min(32767, int(round(v))))


class Deck:
    def __init__(self, rate, lizard_mode):
        self.rate = rate
        self.motion = Motion()
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.seq = 0
        self.sent = 0
        self.options_until = 0.0
        self.last_command = b''
        self.counters = dict(get_feature=0, set_feature=0)
        self.stopping = False
        self.hidraw_fd = None
        for module in ('uhid', 'evdev', 'hid-steam'):
            # Without udev nothing loads them (docs/lab.md).
            subprocess.run(['modprobe', module], check=True)
        with open('/sys/module/hid_steam/parameters/lizard_mode', 'w') as f:
            f.write(str(lizard_mode))
        self.lizard_mode = lizard_mode
        before = set(motion_nodes())
        self.fd = os.open('/dev/uhid', os.O_RDWR | os.O_CLOEXEC)
        payload = struct.pack('<128s64s64sHHIIII', b'Valve Software Steam Deck Controller', b'lab/uhid-deck', SERIAL,
                              len(DESCRIPTOR), BUS_USB, VENDOR, PRODUCT, 0x0100, 0) + DESCRIPTOR
        self._write(UHID_CREATE2, payload)
        threading.Thread(target=self._reader, daemon=True).start()
        self.node = self._await(lambda: next((n for n in motion_nodes() if n not in before), None), 30)
        if not self.node:
            raise RuntimeError(f'hid-steam made no "{MOTION_NAME}" device')

    def _write(self, etype, payload):
        ev = struct.pack('<I', etype) + payload
        ev += b'\0' * (EVENT_SIZE - len(ev))
        with self.write_lock:
            os.write(self.fd, ev)

    @staticmethod
    def _await(probe, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = probe()
            if found:
                return found
            time.sleep(0.01)
        return None

    def _reader(self):
        while not self.stopping:
            try:
                ev = os.read(self.fd, EVENT_SIZE)
            except OSError:
                return
            if not ev:
                return
            etype = struct.unpack_from('<I', ev)[0]
            if etype == UHID_GET_REPORT:
                rid, rnum, rtype = struct.unpack_from('<IBB', ev, 4)
                with self.lock:
                    self.counters['get_feature'] += 1
                    cmd = self.last_command
                if rtype != UHID_FEATURE_REPORT:
                    self._write(UHID_GET_REPORT_REPLY, struct.pack('<IHH', rid, 5, 0))
                    continue
                # The report number (0), then the firmware's answer to the last command.
                if cmd[:1] == bytes([ID_GET_STRING_ATTRIBUTE]):
                    body = bytes([ID_GET_STRING_ATTRIBUTE, 0x16, 0x01]) + SERIAL
                else:
                    body = cmd
                data = (b'\0' + body + b'\0' * 64)[:65]
                self._write(UHID_GET_REPORT_REPLY, struct.pack('<IHH', rid, 0, len(data)) + data)
            elif etype == UHID_SET_REPORT:
                rid, rnum, rtype, size = struct.unpack_from('<IBBH', ev, 4)
                data = ev[12:12 + size]
                with self.lock:
                    self.counters['set_feature'] += 1
                    # hid-steam sends the report number (0) first.
                    self.last_command = data[1:] if data[:1] == b'\0' and len(data) > 1 else data
                self._write(UHID_SET_REPORT_REPLY, struct.pack('<IH', rid, 0))

    def _report(self, now):
        g, w = self.motion.sample(now)
        accel = [clamp16(-v * ACCEL_PER_G) for v in g]        # specific force: −(gravity's direction)
        gyro = [clamp16(v * GYRO_PER_DPS) for v in w]
        with self.lock:
            self.seq += 1
            options = now < self.options_until
        r = bytearray(64)
        r[0:4] = bytes([0x01, 0x00, 0x09, 0x40])
        struct.pack_into('<I', r, 4, self.seq & 0xffffffff)
        if options:
            r[OPTIONS_BYTE] |= 1 << OPTIONS_BIT
        struct.pack_into('<hhhhhh', r, 24, *accel, *gyro)
        return bytes(r)

    def _send(self, report):
        self._write(UHID_INPUT2, struct.pack('<H', len(report)) + report)
        self.sent += 1

    def run(self):
        period = 1.0 / self.rate
        next_t = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            try:
                self._send(self._report(now))
            except OSError:
                return
            next_t = max(next_t + period, now)
            time.sleep(max(0.0, next_t - time.monotonic()))

    def status(self):
        return dict(ok=True, node=(motion_nodes() or [None])[0], nodes=motion_nodes(), sent=self.sent, seq=self.seq,
                    lizard_mode=read('/sys/module/hid_steam/parameters/lizard_mode'),
                    hidraw=hidraw_node(), hidraw_held=self.hidraw_fd is not None, **self.counters)

    def handle(self, req):
        op = req.get('op')
        f = lambda k, d=0.0: float(req.get(k, d))   # noqa: E731
        if op == 'status':
            return self.status()
        if op == 'attitude':
            until = self.motion.ramp_to(f('x'), f('y'), f('seconds'))
            if int(req.get('wait', 0)):
                time.sleep(max(0.0, until - time.monotonic()))
            return dict(ok=True, until=until)
        if op == 'rate':
            self.motion.set_rate((f('x'), f('y'), f('z')))
            return dict(ok=True, t_ns=time.monotonic_ns())
        if op == 'options':
            with self.lock:
                self.options_until = time.monotonic() + f('seconds', 0.6)
                until = self.options_until
            time.sleep(max(0.0, until - time.monotonic()) + 0.05)
            return dict(ok=True, released=until)
        if op == 'hidraw':
            if int(req.get('hold', 1)):
                before = motion_nodes()
                path = hidraw_node()
                if path is None:
                    return dict(ok=False, error='no hidraw node of the controller')
                self.hidraw_fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
                gone = self._await(lambda: not motion_nodes() and time.monotonic_ns(), f('timeout', 10))
                return dict(ok=bool(gone), hidraw=path, before=before, gone_ns=gone)
            if self.hidraw_fd is not None:
                os.close(self.hidraw_fd)
                self.hidraw_fd = None
            node = self._await(lambda: (motion_nodes() or [None])[0], f('timeout', 10))
            return dict(ok=node is not None, node=node, back_ns=time.monotonic_ns())
        if op == 'quit':
            self.stopping = True
            if self.hidraw_fd is not None:
                os.close(self.hidraw_fd)
            self._write(UHID_DESTROY, b'')
            gone = self._await(lambda: not motion_nodes() and time.monotonic_ns(), f('timeout', 10))
            return dict(ok=bool(gone), gone_ns=gone)
        return dict(ok=False, error=f'unknown op {op!r}')


def serve(args):
    return serve_device(lambda: Deck(args.rate, args.lizard_mode), args.socket, args.background, args.log)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('serve')
    s.add_argument('--socket', default='/run/steamdeck.sock')
    s.add_argument('--log')
    s.add_argument('--background', action='store_true')
    s.add_argument('--rate', type=float, default=250.0)
    s.add_argument('--lizard-mode', type=int, choices=(0, 1), default=1)
    args = p.parse_args()
    return serve(args)


if __name__ == '__main__':
    sys.exit(main())
