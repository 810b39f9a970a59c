#!/usr/bin/env python3
"""A HID sensor hub made from user space over /dev/uhid, for the lab guest (python3, stdlib only).

The kernel's hid-sensor-hub binds it and hid-sensor-accel-3d / hid-sensor-gyro-3d make IIO devices
of it (accel_3d, gyro_3d). It behaves like a real hub:
- answers UHID_GET_REPORT (feature and input reports) and UHID_SET_REPORT (feature reports);
- sends input reports only while the kernel holds a sensor at power D0 with reporting "all
  events", one per report interval (the interval the kernel wrote; 0 means the hub's fastest,
  --min-interval-ms);
- honours the change sensitivity: no input report while every axis changed less than it since the
  last report sent (0 = a report every interval); its default and its least value are options
  (--sensitivity, --min-sensitivity: a hub whose firmware starts at, or clamps a write up to, a
  sensitivity above 0, as many do);
- counts everything (GET_REPORTs per sensor and type, input reports sent and suppressed,
  SET_REPORTs) and keeps the last reports sent (with their times).
Motion is a device attitude (device → world rotation, world Z up out of a table the device lies
face-up on) moved by body rates: the accelerometer reports the direction of gravity in g
(face-up: (0, 0, −1); docs/frames.md), the gyroscope the body rate in deg/s.

    sensorhub.py serve [--socket S] [--accel-only] [--timestamps] [--background]
                       [--sensitivity accel=RAW,gyro=RAW] [--min-sensitivity accel=RAW,gyro=RAW]
    sensorhub.py ctl [--socket S] OP [KEY=VALUE …]      one request, prints the JSON reply
    sensorhub.py wait-iio NAME… [--timeout S] [--absent]   awaits IIO devices by name (uevents)

Control ops (JSON lines on the Unix socket; ctl turns KEY=VALUE into fields):
    status                               states, settings and counters of each sensor
    reset                                counters to zero (the history of reports too)
    attitude x=DEG y=DEG [seconds=S] [wait=1]   turn to tilt x (about device X), then y, over S s
                                         (constant body rate: the gyroscope sees it)
    attitude_after_sleep x=DEG y=DEG     lie at that tilt once the system has slept (CLOCK_BOOTTIME ran
                                         ahead of CLOCK_MONOTONIC): moved while the lid was shut, so
                                         no sensor sees the way there; status's woke_ns says when
    rate x=DPS y=DPS z=DPS               keep turning at this body rate (deg/s) until changed (t_ns: since when)
    noise accel=G gyro=DPS               Gaussian noise on every sample (default 0)
    sent [since=SEQ]                     the reports sent since SEQ (seq, sensor, kind, t_ns, raw, ts_us)
    wait sensor=accel count=N [timeout=S]   awaits N more input reports; {"ok":false} on timeout
    wait sensor=accel total=N [timeout=S]   awaits the count of reports sent reaching N
    ignore_gets n=N                      leave the next N input GET_REPORTs unanswered (uhid times out in 5 s)
    recreate [unplugged=S]               destroy, await the devices gone, wait S s, create, await them (times)
    destroy / create [accel_only=1] [timestamps=1] [wait=1]   remove / re-create the HID device
                                         (wait=1: reply once its IIO devices exist, with their time)
    quit                                 destroy, await the IIO devices gone, exit
"""
import argparse
import json
import math
import os
import random
import select
import socket
import struct
import sys
import threading
import time
from collections import deque

from controlserver import NotReady, serve as serve_device

DEFAULT_SOCKET = '/run/sensorhub.sock'

# uhid.h
UHID_DESTROY, UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE, UHID_OUTPUT = 1, 2, 3, 4, 5, 6
UHID_GET_REPORT, UHID_GET_REPORT_REPLY, UHID_CREATE2, UHID_INPUT2 = 9, 10, 11, 12
UHID_SET_REPORT, UHID_SET_REPORT_REPLY = 13, 14
UHID_FEATURE_REPORT, UHID_OUTPUT_REPORT, UHID_INPUT_REPORT = 0, 1, 2
EVENT_SIZE = 4 + 4372
BUS_VIRTUAL = 0x06

# HID Usage Tables, Sensors page (0x20)
PAGE_SENSORS = 0x20
REPORTING_STATES = ['no_events', 'all_events', 'threshold_events', 'no_events_wake',
                    'all_events_wake', 'threshold_events_wake']          # 0x0840…0x0845
POWER_STATES = ['undefined', 'D0', 'D1', 'D2', 'D3', 'D4']              # 0x0850…0x0855
SENSORS = {
    # name: collection usage, report ID, X/Y/Z data usages, change-sensitivity usage (data usage
    # with the "absolute change sensitivity" modifier 0x1000), unit exponent of data and
    # sensitivity. Units are the HID defaults: g for acceleration, deg/s for angular velocity.
    'accel': dict(usage=0x73, report_id=1, axes=(0x453, 0x454, 0x455), sensitivity=0x1452, exponent=-3),
    'gyro': dict(usage=0x76, report_id=2, axes=(0x457, 0x458, 0x459), sensitivity=0x1456, exponent=-2),
}
USAGE_REPORTING_STATE, USAGE_POWER_STATE, USAGE_REPORT_INTERVAL = 0x316, 0x319, 0x30E
USAGE_TIMESTAMP = 0x529


# ---- report descriptor ---------------------------------------------------------------------

def _item(prefix, value, signed=True):
    if value == 0 and prefix not in (0x04,):
        return bytes([prefix | 1, 0])
    for size, code, fmt in ((1, 1, 'b'), (2, 2, 'h'), (4, 3, 'i')):
        lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if signed else (0, (1 << (8 * size)) - 1)
        if lo <= value <= hi:
            return bytes([prefix | code]) + struct.pack('<' + (fmt if signed else fmt.upper()), value)
    raise ValueError(value)


def usage(u):
    return bytes([0x0A]) + struct.pack('<H', u)         # Usage, 2 bytes (page from Usage Page)


def logical(lo, hi):
    return _item(0x14, lo) + _item(0x24, hi)


def size_count(size, count=1):
    return _item(0x74, size, False) + _item(0x94, count, False)


def exponent(e):
    return bytes([0x55, e & 0x0F])                      # Unit Exponent as a 4-bit two's complement


FEATURE_VAR, INPUT_VAR, FEATURE_ARRAY = b'\xB1\x02', b'\x81\x02', b'\xB1\x00'
COLLECTION_APPLICATION, COLLECTION_PHYSICAL, COLLECTION_LOGICAL = b'\xA1\x01', b'\xA1\x00', b'\xA1\x02'
END_COLLECTION = b'\xC0'


def named_array(prop, first_selector, n):
    # A named array: a Logical collection of the property holding its selectors; the kernel
    # writes selector index + 1 (it assumes Logical Minimum 1).
    d = usage(prop) + COLLECTION_LOGICAL
    for i in range(n):
        d += usage(first_selector + i)
    return d + logical(1, n) + size_count(8) + FEATURE_ARRAY + END_COLLECTION


def sensor_descriptor(spec, timestamps):
    d = usage(spec['usage']) + COLLECTION_PHYSICAL + _item(0x84, spec['report_id'], False)
    # Feature report: reporting state (u8), power state (u8), report interval (u32, ms),
    # change sensitivity (u16, data units).
    d += named_array(USAGE_REPORTING_STATE, 0x840, len(REPORTING_STATES))
    d += named_array(USAGE_POWER_STATE, 0x850, len(POWER_STATES))
    d += usage(USAGE_REPORT_INTERVAL) + logical(0, 0x7FFFFFFF) + size_count(32) + exponent(0) + FEATURE_VAR
    d += usage(spec['sensitivity']) + logical(0, 0x7FFF) + size_count(16) + exponent(spec['exponent']) + FEATURE_VAR
    # Input report: X, Y, Z as s16, one Input item each (the drivers match field->usage[0]),
    # then optionally a 64-bit timestamp in µs (the drivers read it as an int64).
    for axis in spec['axes']:
        d += usage(axis) + logical(-32767, 32767) + size_count(16) + exponent(spec['exponent']) + INPUT_VAR
    if timestamps:
        d += usage(USAGE_TIMESTAMP) + logical(0, 0x7FFFFFFF) + size_count(64) + exponent(-6) + INPUT_VAR
    return d + END_COLLECTION


def report_descriptor(names, timestamps):
    d = _item(0x04, PAGE_SENSORS, False) + bytes([0x09, 0x01]) + COLLECTION_APPLICATION
    for name in names:
        d += sensor_descriptor(SENSORS[name], timestamps)
    return d + END_COLLECTION


# ---- motion --------------------------------------------------------------------------------

def _matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def _transpose(a):
    return [[a[j][i] for j in range(3)] for i in range(3)]


def _rotation(axis, angle):
    # Rodrigues: rotation by angle (rad) about the unit vector axis.
    x, y, z = axis
    c, s, t = math.cos(angle), math.sin(angle), 1 - math.cos(angle)
    return [[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
            [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
            [t * x * z - s * y, t * y * z + s * x, t * z * z + c]]


def _axis_angle(r):
    angle = math.acos(max(-1.0, min(1.0, (r[0][0] + r[1][1] + r[2][2] - 1) / 2)))
    if angle < 1e-9:
        return (1.0, 0.0, 0.0), 0.0
    v = (r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1])
    n = math.sqrt(sum(c * c for c in v))
    if n < 1e-9:   # 180°: from the diagonal
        v = tuple(math.sqrt(max(0.0, (r[i][i] + 1) / 2)) for i in range(3))
        n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v), angle


def tilt(x_deg, y_deg):
    """The attitude tipped by x_deg about device X, then y_deg about the (new) device Y."""
    return _matmul(_rotation((1, 0, 0), math.radians(x_deg)), _rotation((0, 1, 0), math.radians(y_deg)))


class Motion:
    """Device attitude R (device → world) moved by a body rate; thread-safe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.r0 = tilt(0, 0)
        self.t0 = time.monotonic()
        self.omega = (0.0, 0.0, 0.0)      # rad/s, device frame
        self.until = None                 # end of a ramp (then: target, rate 0)
        self.target = None
        self.noise_accel = 0.0            # g
        self.noise_gyro = 0.0             # deg/s
        self.rng = random.Random(1)
        self.after_sleep = None           # a tilt to lie at once the system has slept
        self.sleep_offset = self._clock_offset()
        self.woke_ns = None               # CLOCK_MONOTONIC ns when it was taken

    @staticmethod
    def _clock_offset():
        return time.clock_gettime(time.CLOCK_BOOTTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)

    def lie_after_sleep(self, x_deg, y_deg):
        with self.lock:
            self.after_sleep = tilt(x_deg, y_deg)
            self.sleep_offset = self._clock_offset()
            self.woke_ns = None

    def _advance(self, now):
        if self.after_sleep is not None and self._clock_offset() - self.sleep_offset > 0.05:
            self.r0, self.t0, self.omega, self.until, self.target = self.after_sleep, now, (0.0, 0.0, 0.0), None, None
            self.after_sleep, self.woke_ns = None, time.monotonic_ns()
        if self.until is not None and now >= self.until:
            self.r0, self.t0, self.omega, self.until, self.target = self.target, self.until, (0.0, 0.0, 0.0), None, None

    def _attitude(self, now):
        w = math.sqrt(sum(c * c for c in self.omega))
        if w == 0:
            return self.r0
        return _matmul(self.r0, _rotation(tuple(c / w for c in self.omega), w * (now - self.t0)))

    def sample(self, now):
        """(gravity direction in g, body rate in deg/s), both in the device frame, at time now."""
        with self.lock:
            self._advance(now)
            r = self._attitude(now)
            g = [-r[2][i] for i in range(3)]          # Rᵀ · (0, 0, −1)
            w = [math.degrees(c) for c in self.omega]
            g = [v + self.rng.gauss(0, self.noise_accel) if self.noise_accel else v for v in g]
            w = [v + self.rng.gauss(0, self.noise_gyro) if self.noise_gyro else v for v in w]
            return g, w

    def set_rate(self, deg_per_s):
        now = time.monotonic()
        with self.lock:
            self._advance(now)
            self.r0, self.t0 = self._attitude(now), now
            self.omega, self.until, self.target = tuple(math.radians(c) for c in deg_per_s), None, None

    def ramp_to(self, x_deg, y_deg, seconds):
        now = time.monotonic()
        target = tilt(x_deg, y_deg)
        with self.lock:
            self._advance(now)
            self.r0, self.t0 = self._attitude(now), now
            if seconds <= 0:
                self.r0, self.omega, self.until, self.target = target, (0.0, 0.0, 0.0), None, None
                return now
            axis, angle = _axis_angle(_matmul(_transpose(self.r0), target))
            self.omega = tuple(c * angle / seconds for c in axis)
            self.until, self.target = now + seconds, target
            return self.until


# ---- the hub -------------------------------------------------------------------------------

class Sensor:
    def __init__(self, name, timestamps, sensitivity=0, min_sensitivity=0):
        self.name = name
        self.spec = SENSORS[name]
        self.timestamps = timestamps
        self.reporting = 0               # index into REPORTING_STATES
        self.power = 5                   # index into POWER_STATES (D4: off)
        self.interval_ms = 100
        self.min_sensitivity = min_sensitivity      # raw: a write below it is clamped up
        self.sensitivity = max(sensitivity, min_sensitivity)   # raw, data units
        self.last_sent = None
        self.next_due = None
        self.counters = dict(get_input=0, get_ignored=0, get_feature=0, set_feature=0, input_sent=0, suppressed=0)

    @property
    def active(self):
        return POWER_STATES[self.power] == 'D0' and REPORTING_STATES[self.reporting] in ('all_events', 'all_events_wake')

    def scale(self):
        return 10.0 ** self.spec['exponent']

    def raw(self, motion, now):
        g, w = motion.sample(now)
        values = g if self.name == 'accel' else w
        return [max(-32767, min(32767, int(round(v / self.scale())))) for v in values]

    def input_report(self, raw, ts_us):
        data = struct.pack('<Bhhh', self.spec['report_id'], *raw)
        if self.timestamps:
            data += struct.pack('<Q', ts_us)
        return data

    def feature_report(self):
        return struct.pack('<BBBIH', self.spec['report_id'], self.reporting + 1, self.power + 1,
                           self.interval_ms, self.sensitivity)

    def set_feature(self, data):
        if len(data) < 9:
            return False
        _, reporting, power, interval, sensitivity = struct.unpack('<BBBIH', data[:9])
        if 1 <= reporting <= len(REPORTING_STATES):
            self.reporting = reporting - 1
        if 1 <= power <= len(POWER_STATES):
            self.power = power - 1
        self.interval_ms = interval
        self.sensitivity = max(sensitivity, self.min_sensitivity)
        return True

    def status(self):
        return dict(reporting=REPORTING_STATES[self.reporting], power=POWER_STATES[self.power],
                    active=self.active, interval_ms=self.interval_ms, sensitivity_raw=self.sensitivity,
                    sensitivity=self.sensitivity * self.scale(), exponent=self.spec['exponent'],
                    timestamps=self.timestamps, **self.counters)


class Hub:
    def __init__(self, accel_only=False, timestamps=False, min_interval_ms=5, sensitivity=None, min_sensitivity=None):
        self.default_sensitivity = dict(sensitivity or {})
        self.min_sensitivity = dict(min_sensitivity or {})
        self.motion = Motion()
        self.min_interval_ms = min_interval_ms
        self.cond = threading.Condition()
        self.write_lock = threading.Lock()
        self.fd = None
        self.sensors = {}
        self.history = deque(maxlen=5000)
        self.seq = 0
        self.generation = 0
        self.events = dict(start=0, stop=0, open=0, close=0)
        self.stopping = False
        self.old_fds = []
        self.ignore_gets = 0
        self.create(accel_only, timestamps)
        threading.Thread(target=self._sender, daemon=True).start()

    # -- uhid
    def _write(self, etype, payload, fd=None):
        ev = struct.pack('<I', etype) + payload
        ev += b'\0' * (EVENT_SIZE - len(ev))
        with self.write_lock:
            fd = self.fd if fd is None else fd
            if fd is not None:
                try:
                    os.write(fd, ev)
                except OSError:
                    pass    # a reply to a device destroyed meanwhile

    def create(self, accel_only=False, timestamps=False):
        with self.cond:
            if self.fd is not None:
                raise RuntimeError('the device exists; destroy it first')
            names = ['accel'] if accel_only else ['accel', 'gyro']
            self.sensors = {n: Sensor(n, timestamps, self.default_sensitivity.get(n, 0), self.min_sensitivity.get(n, 0))
                            for n in names}
            by_id = {s.spec['report_id']: s for s in self.sensors.values()}
            self.by_id = by_id
            rd = report_descriptor(names, timestamps)
            self.fd = os.open('/dev/uhid', os.O_RDWR | os.O_CLOEXEC)
            self.generation += 1
            gen = self.generation
        payload = struct.pack('<128s64s64sHHIIII', b'parallax lab sensor hub', b'lab/uhid0', b'',
                              len(rd), BUS_VIRTUAL, 0x1D6B, 0x0F0D, 1, 0) + rd
        self._write(UHID_CREATE2, payload)
        threading.Thread(target=self._reader, args=(self.fd, gen), daemon=True).start()

    def destroy(self):
        # Replies to requests in flight still go out (on the reader's own descriptor) until the
        # kernel has the UHID_DESTROY: a reader blocked in a GET_REPORT the hub dropped would hold
        # the device's removal for uhid's 5 s timeout.
        with self.cond:
            fd, self.fd = self.fd, None
            self.cond.notify_all()
        if fd is not None:
            ev = struct.pack('<I', UHID_DESTROY) + b'\0' * (EVENT_SIZE - 4)
            with self.write_lock:
                os.write(fd, ev)
            # Not closed: its reader thread still blocks in read(); a closed number reused by the
            # next create would hand that thread the new device's events.
            self.old_fds.append(fd)

    def _reader(self, fd, gen):
        while True:
            try:
                ev = os.read(fd, EVENT_SIZE)
            except OSError:
                return
            if not ev:
                return
            etype = struct.unpack_from('<I', ev)[0]
            if etype == UHID_GET_REPORT:
                rid, rnum, rtype = struct.unpack_from('<IBB', ev, 4)
                self._get_report(rid, rnum, rtype, fd)
            elif etype == UHID_SET_REPORT:
                rid, rnum, rtype, size = struct.unpack_from('<IBBH', ev, 4)
                data = ev[12:12 + size]
                self._set_report(rid, rnum, rtype, data, fd)
            elif etype in (UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE):
                with self.cond:
                    self.events[{UHID_START: 'start', UHID_STOP: 'stop', UHID_OPEN: 'open', UHID_CLOSE: 'close'}[etype]] += 1

    def _get_report(self, rid, rnum, rtype, fd):
        now = time.monotonic()
        with self.cond:
            s = self.by_id.get(rnum)
            data = None
            if s is not None and rtype == UHID_INPUT_REPORT and self.ignore_gets > 0:
                # A hub that does not answer (the kernel gives up after 5 s: uhid's timeout).
                self.ignore_gets -= 1
                s.counters['get_ignored'] += 1
                return
            if s is not None and rtype == UHID_FEATURE_REPORT:
                s.counters['get_feature'] += 1
                data = s.feature_report()
            elif s is not None and rtype == UHID_INPUT_REPORT:
                s.counters['get_input'] += 1
                raw = s.raw(self.motion, now)
                ts = time.monotonic_ns() // 1000
                data = s.input_report(raw, ts)
                self._record(s, 'get', raw, ts)
        if data is None:
            self._write(UHID_GET_REPORT_REPLY, struct.pack('<IHH', rid, 5, 0), fd)   # EIO
        else:
            self._write(UHID_GET_REPORT_REPLY, struct.pack('<IHH', rid, 0, len(data)) + data, fd)

    def _set_report(self, rid, rnum, rtype, data, fd):
        with self.cond:
            s = self.by_id.get(rnum)
            ok = s is not None and rtype == UHID_FEATURE_REPORT and s.set_feature(data)
            if ok:
                s.counters['set_feature'] += 1
                if not s.active:
                    s.next_due = None
                self.cond.notify_all()
        self._write(UHID_SET_REPORT_REPLY, struct.pack('<IH', rid, 0 if ok else 5), fd)

    def _record(self, s, kind, raw, ts_us):
        self.seq += 1
        self.history.append(dict(seq=self.seq, sensor=s.name, kind=kind, t_ns=time.monotonic_ns(), raw=raw,
                                 ts_us=ts_us if s.timestamps else None))

    # -- periodic input reports
    def _sender(self):
        while True:
            with self.cond:
                now = time.monotonic()
                due = []
                wake = None
                for s in self.sensors.values():
                    if self.fd is None or not s.active:
                        s.next_due = None
                        continue
                    interval = max(s.interval_ms, self.min_interval_ms) / 1000.0
                    if s.next_due is None:
                        s.next_due = now + interval
                    if s.next_due <= now:
                        due.append(s)
                        # Keep the cadence; after a long stall, start again from now.
                        s.next_due = s.next_due + interval if s.next_due + interval > now else now + interval
                    wake = s.next_due if wake is None else min(wake, s.next_due)
                reports = []
                for s in due:
                    raw = s.raw(self.motion, now)
                    if s.sensitivity > 0 and s.last_sent is not None and \
                            all(abs(a - b) < s.sensitivity for a, b in zip(raw, s.last_sent)):
                        s.counters['suppressed'] += 1
                        continue
                    ts = time.monotonic_ns() // 1000
                    s.last_sent = raw
                    s.counters['input_sent'] += 1
                    self._record(s, 'input', raw, ts)
                    reports.append(s.input_report(raw, ts))
                if reports:
                    self.cond.notify_all()
                if not due:
                    self.cond.wait(None if wake is None else max(0.0, wake - now))
            for r in reports:
                try:
                    self._write(UHID_INPUT2, struct.pack('<H', len(r)) + r)
                except OSError:
                    pass

    # -- control
    def status(self):
        with self.cond:
            with self.motion.lock:
                self.motion._advance(time.monotonic())
                woke_ns = self.motion.woke_ns
            return dict(ok=True, device=self.fd is not None, generation=self.generation, seq=self.seq, woke_ns=woke_ns,
                        uhid_events=dict(self.events),
                        sensors={n: s.status() for n, s in self.sensors.items()})

    def handle(self, req):
        op = req.get('op')
        f = lambda k, d=0.0: float(req.get(k, d))   # noqa: E731
        if op == 'status':
            return self.status()
        if op == 'reset':
            with self.cond:
                for s in self.sensors.values():
                    for k in s.counters:
                        s.counters[k] = 0
                self.history.clear()
            return dict(ok=True)
        if op == 'attitude':
            until = self.motion.ramp_to(f('x'), f('y'), f('seconds'))
            if int(req.get('wait', 0)):
                time.sleep(max(0.0, until - time.monotonic()))
            return dict(ok=True, until=until)
        if op == 'attitude_after_sleep':
            self.motion.lie_after_sleep(f('x'), f('y'))
            return dict(ok=True)
        if op == 'rate':
            self.motion.set_rate((f('x'), f('y'), f('z')))
            return dict(ok=True, t_ns=time.monotonic_ns())
        if op == 'noise':
            with self.motion.lock:
                self.motion.noise_accel, self.motion.noise_gyro = f('accel'), f('gyro')
            return dict(ok=True)
        if op == 'sent':
            since = int(req.get('since', 0))
            with self.cond:
                return dict(ok=True, seq=self.seq, reports=[h for h in self.history if h['seq'] > since])
        if op == 'wait':
            name, count, timeout = req.get('sensor', 'accel'), int(req.get('count', 1)), f('timeout', 10)
            deadline = time.monotonic() + timeout
            with self.cond:
                s = self.sensors[name]
                target = int(req['total']) if 'total' in req else s.counters['input_sent'] + count
                while s.counters['input_sent'] < target:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return dict(ok=False, input_sent=s.counters['input_sent'], wanted=target)
                    self.cond.wait(left)
                return dict(ok=True, input_sent=s.counters['input_sent'])
        if op == 'ignore_gets':
            with self.cond:
                self.ignore_gets = int(req.get('n', 1))
            return dict(ok=True)
        if op == 'destroy':
            self.destroy()
            return dict(ok=True)
        if op == 'recreate':
            # Unplugged and plugged back: destroy, await the IIO devices gone, create, await them.
            names = [{'accel': 'accel_3d', 'gyro': 'gyro_3d'}[n] for n in self.sensors]
            with uevents() as ev:
                destroyed = time.monotonic_ns()
                self.destroy()
                gone = await_iio(ev, names, f('timeout', 10), absent=True) or time.monotonic_ns()
                time.sleep(f('unplugged', 0))       # how long the hub stays unplugged
                created = time.monotonic_ns()
                self.create(len(names) == 1, any(s.timestamps for s in self.sensors.values()))
                seen = await_iio(ev, names, f('timeout', 10))
            return dict(ok=seen is not None, destroyed_ns=destroyed, gone_ns=gone, created_ns=created, devices_ns=seen)
        if op == 'create':
            accel_only = bool(int(req.get('accel_only', 0)))
            if not int(req.get('wait', 0)):
                self.create(accel_only, bool(int(req.get('timestamps', 0))))
                return dict(ok=True, created_ns=time.monotonic_ns())
            # wait=1: also await the IIO devices (uevents, listened to before the device exists).
            names = ['accel_3d'] if accel_only else ['accel_3d', 'gyro_3d']
            with uevents() as ev:
                created = time.monotonic_ns()
                self.create(accel_only, bool(int(req.get('timestamps', 0))))
                seen = await_iio(ev, names, f('timeout', 10))
            return dict(ok=seen is not None, created_ns=created, devices_ns=seen)
        if op == 'quit':
            # Gone, and its IIO devices too, before the reply.
            names = [{'accel': 'accel_3d', 'gyro': 'gyro_3d'}[n] for n in self.sensors]
            self.stopping = True
            with uevents() as ev:
                self.destroy()
                gone = await_iio(ev, names, f('timeout', 10), absent=True)
            return dict(ok=gone is not None, gone_ns=gone)
        return dict(ok=False, error=f'unknown op {op!r}')


def serve(args):
    names = ['accel_3d'] if args.accel_only else ['accel_3d', 'gyro_3d']

    def make():
        with uevents() as ev:
            hub = Hub(args.accel_only, args.timestamps, args.min_interval_ms,
                      sensitivity=per_sensor(args.sensitivity), min_sensitivity=per_sensor(args.min_sensitivity))
            # Ready once the kernel has made the IIO devices (listening to uevents since before).
            seen = await_iio(ev, names, args.timeout)
        if seen is None:
            raise NotReady(f'no IIO devices {names} within {args.timeout} s')
        return hub

    return serve_device(make, args.socket, args.background, args.log)


def per_sensor(text):
    """'accel=5,gyro=20' → {'accel': 5, 'gyro': 20} (raw sensitivity units)."""
    out = {}
    for part in filter(None, (text or '').split(',')):
        name, _, value = part.partition('=')
        out[name.strip()] = int(value)
    return out


def ctl(args):
    req = {'op': args.op}
    for kv in args.fields:
        k, _, v = kv.partition('=')
        req[k] = v
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(args.socket)
    s.sendall((json.dumps(req) + '\n').encode())
    line = s.makefile('rb').readline()
    sys.stdout.write(line.decode())
    return 0 if json.loads(line).get('ok') else 1


def iio_devices():
    out = {}
    base = '/sys/bus/iio/devices'
    for d in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, d, 'name')) as f:
                out.setdefault(f.read().strip(), []).append(d)
        except OSError:
            pass
    return out


def uevents():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)     # NETLINK_KOBJECT_UEVENT
    s.bind((0, 1))
    return s


def await_iio(s, names, timeout, absent=False):
    """The time (monotonic ns) the IIO devices called names all exist (absent: none of them
    does), or None after timeout. s: a uevent socket opened before the change began."""
    deadline = time.monotonic() + timeout
    while True:
        have = iio_devices()
        if (not any(n in have for n in names)) if absent else all(n in have for n in names):
            return time.monotonic_ns()
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        # A "remove" uevent comes before its sysfs directory goes: look again shortly too.
        if select.select([s], [], [], min(left, 0.05))[0]:
            s.recv(65536)


def wait_iio(args):
    """Awaits IIO devices (and triggers) by name: listens to kernel uevents, no polling."""
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)     # NETLINK_KOBJECT_UEVENT
    s.bind((os.getpid(), 1))
    deadline = time.monotonic() + args.timeout
    while True:
        have = iio_devices()
        if args.absent and not any(n in have for n in args.names):
            print(json.dumps(dict(absent=args.names, t_ns=time.monotonic_ns())))
            return 0
        if not args.absent and all(n in have for n in args.names):
            print(json.dumps(dict({n: have[n] for n in args.names}, t_ns=time.monotonic_ns())))
            return 0
        left = deadline - time.monotonic()
        if left <= 0:
            print(json.dumps(dict(missing=[n for n in args.names if n not in have], have=have)))
            return 1
        # A "remove" uevent comes before its sysfs directory goes: look again shortly too.
        if select.select([s], [], [], min(left, 0.05))[0]:
            s.recv(65536)


def main():
    ap = argparse.ArgumentParser(description='A HID sensor hub over /dev/uhid (the lab).')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('serve')
    p.add_argument('--socket', default=DEFAULT_SOCKET)
    p.add_argument('--accel-only', action='store_true')
    p.add_argument('--timestamps', action='store_true')
    p.add_argument('--min-interval-ms', type=int, default=5)
    p.add_argument('--sensitivity', help='each sensor\'s change sensitivity at creation (raw), e.g. accel=5,gyro=20')
    p.add_argument('--min-sensitivity', help='the least sensitivity it takes (raw); a smaller write is clamped up')
    p.add_argument('--background', action='store_true', help='fork once the IIO devices exist and the control socket listens')
    p.add_argument('--timeout', type=float, default=30, help='for the IIO devices to appear')
    p.add_argument('--log', help='with --background: append output here')
    p = sub.add_parser('ctl')
    p.add_argument('--socket', default=DEFAULT_SOCKET)
    p.add_argument('op')
    p.add_argument('fields', nargs='*')
    p = sub.add_parser('wait-iio')
    p.add_argument('names', nargs='+')
    p.add_argument('--timeout', type=float, default=10)
    p.add_argument('--absent', action='store_true', help='await their removal instead')
    args = ap.parse_args()
    if args.cmd == 'serve':
        return serve(args)
    if args.cmd == 'ctl':
        return ctl(args)
    return wait_iio(args)


if __name__ == '__main__':
    sys.exit(main() or 0)
