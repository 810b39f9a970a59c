"""Traces (docs/trace-format.md) and motion: reading and writing trace files, physically
consistent turns, and a player that moves emulated devices at a trace's timing."""
import math
import os
import threading
import time

from .common import ACCEL, UPRIGHT, HarnessError
from .geometry import _unit, gravity_after_rotation


# ---------------------------------------------------------------------------------------------
# Traces and motion

class Row:
    """One trace row: t_ns and optional accel / gyro vectors (None components: no new value)."""
    __slots__ = ('t_ns', 'accel', 'gyro')

    def __init__(self, t_ns, accel=None, gyro=None):
        self.t_ns = int(t_ns)
        self.accel = tuple(accel) if accel is not None else None
        self.gyro = tuple(gyro) if gyro is not None else None

    def __repr__(self):
        return 'Row(%d, %r, %r)' % (self.t_ns, self.accel, self.gyro)


TRACE_HEADER = ['t_ns', 'ax', 'ay', 'az', 'gx', 'gy', 'gz']


def read_trace(path):
    """(comment lines, [Row]) from a trace file (docs/trace-format.md)."""
    comments, rows, header_seen = [], [], False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not header_seen:
                if line.startswith('#'):
                    comments.append(line[1:].strip())
                    continue
                if [c.strip() for c in line.split(',')] != TRACE_HEADER:
                    raise HarnessError('%s:%d: expected header %s' % (path, n, ','.join(TRACE_HEADER)))
                header_seen = True
                continue
            if not line.strip():
                continue
            fields = line.split(',')
            if len(fields) != 7:
                raise HarnessError('%s:%d: expected 7 fields' % (path, n))
            vals = [float(x) if x.strip() else None for x in fields[1:]]
            accel = vals[0:3] if any(v is not None for v in vals[0:3]) else None
            gyro = vals[3:6] if any(v is not None for v in vals[3:6]) else None
            rows.append(Row(int(fields[0]), accel, gyro))
    if not header_seen:
        raise HarnessError('%s: no header row' % path)
    return comments, rows


def write_trace(path, rows, comments=()):
    def f(v):
        return '' if v is None else repr(float(v))
    with open(path, 'w') as out:
        for c in comments:
            out.write('# %s\n' % c)
        out.write(','.join(TRACE_HEADER) + '\n')
        for r in rows:
            a = r.accel if r.accel is not None else (None,) * 3
            g = r.gyro if r.gyro is not None else (None,) * 3
            out.write(','.join([str(r.t_ns)] + [f(v) for v in a + g]) + '\n')


def rotation_rows(accel_start, axis, degrees, seconds, rate_hz=200.0):
    """Rows for a physically consistent turn of the device about its own `axis` ('x', '-y', or a
    vector) by `degrees` at a constant rate over `seconds`: the gyroscope reads ω·axis for the whole
    turn and 0 at the end, the accelerometer follows gravity as it turns (unchanged when the axis is
    parallel to gravity). t_ns starts at 0. Returns (rows, accel_end)."""
    k = _unit(axis)
    omega = math.radians(degrees) / seconds
    n = max(1, int(round(seconds * rate_hz)))
    rows = []
    for i in range(n):
        t = seconds * i / n
        rows.append(Row(int(t * 1e9), gravity_after_rotation(accel_start, k, math.degrees(omega * t)),
                        tuple(omega * x for x in k)))
    accel_end = gravity_after_rotation(accel_start, k, degrees)
    rows.append(Row(int(seconds * 1e9), accel_end, (0.0, 0.0, 0.0)))
    return rows, accel_end


class TracePlayer:
    """Plays trace rows into emulated devices at the trace's timing (÷ speed), in a thread.

    Accel goes to `accel_dev`, gyro to `gyro_dev` (the same device for a combined IMU, None to drop
    that sensor). Empty fields keep the previous value. start()/stop()/join(); run() plays
    synchronously (for short synthetic motions)."""

    def __init__(self, testbed, accel_dev, gyro_dev=None, trace=None, *, speed=1.0, loop=False):
        self.testbed = testbed
        self.accel_dev = accel_dev
        self.gyro_dev = gyro_dev
        if isinstance(trace, (str, os.PathLike)):
            self.comments, self.rows = read_trace(trace)
        else:
            self.comments, self.rows = [], list(trace or [])
        if not self.rows:
            raise HarnessError('empty trace')
        if speed <= 0:
            raise HarnessError('speed must be > 0')
        self.speed = speed
        self.loop = loop
        self.rows_played = 0
        self.loops = 0
        self.error = None
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread = None

    def _apply(self, row):
        if row.accel is not None and self.accel_dev is not None:
            self.testbed.set_accel(self.accel_dev, row.accel)
        if row.gyro is not None and self.gyro_dev is not None:
            self.testbed.set_gyro(self.gyro_dev, row.gyro)
        self.rows_played += 1

    def run(self):
        """Play in the calling thread until the end (or stop())."""
        try:
            while not self._stop.is_set():
                start = time.monotonic()
                t0 = self.rows[0].t_ns
                for row in self.rows:
                    due = start + (row.t_ns - t0) / 1e9 / self.speed
                    delay = due - time.monotonic()
                    # The wait is the motion's own timing, interruptible by stop().
                    if delay > 0 and self._stop.wait(delay):
                        return
                    self._apply(row)
                self.loops += 1
                if not self.loop:
                    return
        except BaseException as e:  # reported by join()
            self.error = e
            raise
        finally:
            self.finished.set()

    def start(self):
        self._thread = threading.Thread(target=self._run_quiet, name='trace-player', daemon=True)
        self._thread.start()
        return self

    def _run_quiet(self):
        try:
            self.run()
        except BaseException:
            pass

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.error is not None:
            raise self.error

    def join(self, timeout=None):
        """Wait for the end of a non-looping trace; True if it finished. Raises the player's error."""
        done = self.finished.wait(timeout)
        if self.error is not None:
            raise self.error
        return done

    @property
    def duration(self):
        return (self.rows[-1].t_ns - self.rows[0].t_ns) / 1e9 / self.speed


def turn(testbed, accel_dev, gyro_dev, axis, degrees, seconds=0.25, start=None):
    """Turn the emulated device about its own axis (synchronously; see rotation_rows). Returns
    the accelerometer vector at the end. `start` defaults to the accelerometer's current value."""
    if start is None:
        start = testbed.last(accel_dev, ACCEL) if accel_dev is not None else UPRIGHT
    rows, end = rotation_rows(start, axis, degrees, seconds)
    TracePlayer(testbed, accel_dev, gyro_dev, rows).run()
    return end
