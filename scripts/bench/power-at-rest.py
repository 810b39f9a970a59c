#!/usr/bin/python3
"""Power at rest (BENCHMARKS.md "Power at rest"; docs/power.md): what a daemon serving 4
subscribers at 60 Hz costs while the device lies still and while it moves, and how soon the
first frame of a motion that starts at rest reaches a subscriber.

  scripts/bench/power-at-rest.py [--daemon PARALLAXD] [--label NAME] [--seconds S] [--trials N]

The device: an emulated buffered BMI160 under umockdev (Tests/integration/plx/), 200 Hz at
full rate, offering a BMI160's rates; its feeder follows what the daemon sets (sampling_frequency,
buffer/watermark) and adds ±3 LSB of noise to every channel, as a sensor lying still. Needs the
umockdev preload and python3-gi (scripts/setup.sh installs them).

Measured from outside, per phase, over `--seconds`:
- wake-ups/s: voluntary + involuntary context switches of all the daemon's threads (/proc);
- CPU: the threads' schedstat run time (ns-exact) over the wall time, % of a core;
- the device's sampling_frequency and watermark;
- onset (`--trials` times, after the daemon has come to rest, or 3 s still for a daemon
  without rest): a 10° turn about X over 0.25 s begins at a random point of the rest sample grid;
  delay = arrival at a subscriber of the first frame whose `t` is at or after the first moving
  scan's timestamp − that timestamp (both CLOCK_MONOTONIC);
- the floor: a C process that only sleeps on a 10 Hz timer (scripts/bench/timer-floor.c), measured
  the same way in the same run."""
import argparse
import json
import os
import random
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'integration'))
import plx  # noqa: E402
from helpers import context_switches  # noqa: E402

BMI160_RATES = '0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600'
ACTIVE_RATE = 200.0
NOISE_LSB = 3
SUBSCRIBERS = 4
TURN_DEGREES = 10.0


def cpu_ns(pid):
    """Run time of every thread of `pid` (ns, schedstat's first field)."""
    total = 0
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def measure(pid, seconds):
    """(wake-ups/s, % of a core) of `pid` over `seconds`."""
    w0, c0, t0 = context_switches(pid), cpu_ns(pid), time.monotonic_ns()
    time.sleep(seconds)
    w1, c1, t1 = context_switches(pid), cpu_ns(pid), time.monotonic_ns()
    wall = (t1 - t0) / 1e9
    return (w1 - w0) / wall, (c1 - c0) / (t1 - t0) * 100


class Subscribers:
    """`n` subscribers at 60 Hz on one thread; `frames` holds (arrival ns, t, x, y) of each offset."""

    def __init__(self, path, n):
        self.socks = []
        for _ in range(n):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            s.sendall(b'{"cmd":"subscribe","rate":60}\n')
            self.socks.append(s)
        self.frames = []
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        buffers = {s: b'' for s in self.socks}
        while not self._stop:
            ready, _, _ = select.select(self.socks, [], [], 0.2)
            for s in ready:
                data = s.recv(65536)
                now = time.monotonic_ns()
                if not data:
                    self.socks.remove(s)
                    continue
                buffers[s] += data
                *lines, buffers[s] = buffers[s].split(b'\n')
                for line in lines:
                    if b'"offset"' in line:
                        o = json.loads(line)
                        self.frames.append((now, o['t'], o['x'], o['y']))

    def close(self):
        self._stop = True
        self._thread.join(2)
        for s in self.socks:
            s.close()


def status(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(b'{"cmd":"status"}\n')
        data = b''
        s.settimeout(5)
        while True:
            data += s.recv(65536)
            for line in data.split(b'\n'):
                if b'"status"' in line:
                    return json.loads(line)


def wait_resting(path, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if status(path).get('resting'):
            return True
        time.sleep(0.2)
    return False


def rocking(testbed, dev, stop):
    """Rocks the device ±10° about X, 2 s period, until `stop` is set."""
    import math
    t0 = time.monotonic()
    while not stop.is_set():
        t = time.monotonic() - t0
        w = math.pi
        angle = 10.0 * math.sin(w * t)
        testbed.set_accel(dev, plx.gravity_after_rotation((0.0, 0.0, -9.80665), 'x', angle))
        testbed.set_gyro(dev, (math.radians(10.0) * w * math.cos(w * t), 0.0, 0.0))
        stop.wait(0.005)
    testbed.set_gyro(dev, (0.0, 0.0, 0.0))


def floor(seconds):
    """(wake-ups/s, % of a core) of a process that only sleeps on a 10 Hz timer."""
    src = os.path.join(REPO, 'scripts', 'bench', 'timer-floor.c')
    exe = os.path.join(tempfile.gettempdir(), 'plx-timer-floor')
    subprocess.run(['cc', '-O2', '-o', exe, src], check=True)
    p = subprocess.Popen([exe])
    try:
        time.sleep(0.5)
        return measure(p.pid, seconds)
    finally:
        p.kill()
        p.wait()


def run(args):
    tb = plx.Testbed()
    workdir = tempfile.mkdtemp(prefix='plx-power-')
    dev = plx.buffered_bmi160(0, sampling_frequency=ACTIVE_RATE, sampling_frequency_available=BMI160_RATES)
    tb.add(dev)
    tb.set_accel(dev, (0.0, 0.0, -9.80665))
    tb.set_gyro(dev, (0.0, 0.0, 0.0))
    feeder = plx.ScanFeeder(tb, dev, rate_hz=ACTIVE_RATE, follow_device=True, noise_lsb=NOISE_LSB).start()
    daemon = plx.Daemon(workdir, tb, binary=args.daemon, log_level='notice').start()
    subs = Subscribers(daemon.socket_path, SUBSCRIBERS)
    result = {'label': args.label}
    try:
        rests = wait_resting(daemon.socket_path) if not args.never_rests else (time.sleep(3.0) or False)
        result['rests'] = rests
        result['rest_rate'] = float(tb.get_raw(dev, 'sampling_frequency'))
        result['rest_watermark'] = int(tb.get_raw(dev, 'buffer/watermark'))
        mark = len(subs.frames)
        result['rest_wakeups'], result['rest_cpu'] = measure(daemon.pid, args.seconds)
        result['rest_frames'] = len(subs.frames) - mark

        stop = threading.Event()
        mover = threading.Thread(target=rocking, args=(tb, dev, stop), daemon=True)
        mover.start()
        time.sleep(1.0)
        result['moving_rate'] = float(tb.get_raw(dev, 'sampling_frequency'))
        mark = len(subs.frames)
        result['moving_wakeups'], result['moving_cpu'] = measure(daemon.pid, args.seconds)
        result['moving_frames_per_s'] = (len(subs.frames) - mark) / args.seconds
        stop.set()
        mover.join()
        tb.set_accel(dev, (0.0, 0.0, -9.80665))

        delays = []
        sign = 1
        for trial in range(args.trials):
            if args.never_rests:
                time.sleep(3.0)
            elif not wait_resting(daemon.socket_path):
                delays.append(None)
                continue
            time.sleep(random.uniform(0, 0.2))
            started = time.monotonic_ns()
            plx.turn(tb, dev, dev, 'x', sign * TURN_DEGREES, seconds=0.25)
            sign = -sign
            time.sleep(0.3)
            first_scan = min((s for s in list(feeder.written) if s >= started), default=None)
            frame = next(((arrival, t) for arrival, t, _, _ in list(subs.frames) if t >= (first_scan or 0)), None)
            delays.append((frame[0] - first_scan) / 1e6 if frame and first_scan else None)
        result['onset_ms'] = delays
    finally:
        subs.close()
        daemon.stop()
        feeder.stop()
        tb.close()
    result['floor_wakeups'], result['floor_cpu'] = floor(args.seconds)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--daemon', default=os.path.join(REPO, '.build', 'release', 'parallaxd'))
    ap.add_argument('--label', default='')
    ap.add_argument('--seconds', type=float, default=20.0)
    ap.add_argument('--trials', type=int, default=20)
    ap.add_argument('--never-rests', action='store_true',
                    help='the daemon has no rest (a build from before it, or RestAfter=0): wait 3 s still instead')
    args = ap.parse_args()
    args.daemon = os.path.abspath(args.daemon)
    r = run(args)
    onset = [d for d in r['onset_ms'] if d is not None]
    print(json.dumps(r))
    print('%s: at rest %.1f wake-ups/s, %.3f %% CPU (sensor %g Hz, watermark %d, %d frames); '
          'moving %.1f wake-ups/s, %.3f %% CPU (sensor %g Hz, %.0f frames/s); '
          'onset p50 %.1f ms, max %.1f ms (%d of %d trials seen); floor (10 Hz timer) %.1f wake-ups/s, %.3f %% CPU'
          % (r['label'] or args.daemon, r['rest_wakeups'], r['rest_cpu'], r['rest_rate'], r['rest_watermark'],
             r['rest_frames'], r['moving_wakeups'], r['moving_cpu'], r['moving_rate'], r['moving_frames_per_s'],
             statistics.median(onset) if onset else float('nan'), max(onset) if onset else float('nan'),
             len(onset), len(r['onset_ms']), r['floor_wakeups'], r['floor_cpu']))


if __name__ == '__main__':
    main()
