#!/usr/bin/python3
"""Buffered against polled capture of a HID sensor hub on the real kernel (BENCHMARKS.md "Real
kernel: a HID sensor hub, buffered and polled"; docs/lab.md): Debian 12's kernel under qemu (TCG),
its hid-sensor-accel-3d / hid-sensor-gyro-3d drivers fed by the lab's hub over /dev/uhid, the
same parallaxd binary run with `Capture=auto` (buffered) and `Capture=polled`, alternating, in
one boot.

  scripts/bench/lab-capture.py [--rounds N] [--seconds S] [--onsets N] [--bin PATH] [--json FILE]

The hub sends its own timestamps (CLOCK_MONOTONIC µs; the IIO timestamps of buffered samples).
A subscriber in the guest (60 Hz, root) holds the daemon through each round. Per mode and round:
- moving: the hub turns about X at 30°/s, then back at −30°/s, `--seconds` in all;
- at rest: the hub still; measured once the daemon said it rests and 2.5 s more (the rest's
  drain interval), for `--seconds`;
- GET_REPORTs/s (the hub's input and feature GET_REPORT counters), input reports/s the hub sent;
- wake-ups/s: voluntary + involuntary context switches of all the daemon's threads (/proc);
- CPU: the threads' schedstat run time over the window's wall time, % of one (emulated) core;
- sample → client latency of every offset frame received while moving: arrival (the
  subscriber's CLOCK_MONOTONIC) − the frame's `t` (the sample's time: the hub's timestamp when
  buffered, the daemon's read time when polled); p50 and p99 per round;
- onset (`--onsets` per round): from rest, the hub starts turning at 60°/s; delay = arrival of the
  first offset frame − the time the hub sent its first report after the motion began (an input
  report when buffered: the first change beyond the raised sensitivity; a GET_REPORT answer when
  polled: the next poll).
Floor, in the same boot: a C process sleeping on a 10 Hz timer (scripts/bench/timer-floor.c),
its wake-ups and CPU measured the same way. TCG emulates the CPU: absolute CPU and latency
numbers are those of an emulated machine; compare the ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labbench import (REPO, TURN, floor, latencies_ms, onset_trials, onsets_ms, percentile,  # noqa: E402
                      spread, window)
from labvm import Lab, missing_artifacts  # noqa: E402
from labkit import Daemon, GuestHub, offsets  # noqa: E402

MODES = {'buffered': 'auto', 'polled': 'polled'}
# Recenter off (the reference stays the opening pose); Linger keeps the sensors open between phases.
SETTINGS = ['Motion.Recenter=no', 'Sensor.Linger=60']


def rests(d):
    # A hub's devices say so when they rest at the hub (the loop hears of it only at its next
    # wake-up); polled sensors when the loop slows them.
    log = d.log_tail(3000)
    return log.count('silent while still') + log.count('<7>at rest: ')


def await_rest(d, count, timeout=30):
    deadline = time.monotonic() + timeout
    while rests(d) <= count:
        if time.monotonic() > deadline:
            raise RuntimeError('the daemon did not come to rest:\n' + d.log_tail())
        time.sleep(0.25)


def one_round(lab, hub, binary, mode, round_no, seconds, onsets):
    d = Daemon(lab, f'/tmp/bench-{mode}-{round_no}', SETTINGS + [f'Sensor.Capture={MODES[mode]}'], binary=binary)
    d.start()
    try:
        expected = 'capture: buffered (' if mode == 'buffered' else 'capture: polled (Capture=polled)'
        if expected not in d.log_tail(200):
            raise RuntimeError(f'{mode}: the daemon did not say {expected!r}:\n' + d.log_tail())
        hold = 30 + 2 * seconds + onsets * 12
        sub = d.subscribe_async(seconds=hold, rate=60)
        deadline = time.monotonic() + 30
        while d.status()['subscribers'] < 1:
            if time.monotonic() > deadline:
                raise RuntimeError('the subscriber did not subscribe')
            time.sleep(0.2)
        # Moving: out at +30°/s and back at −30°/s.
        rests_before = rests(d)
        start = hub.ctl('rate', x=TURN)['t_ns']
        moving = window(lab, hub, d.pid, seconds, during=lambda: hub.ctl('rate', x=-TURN))
        end = hub.ctl('rate', x=0)['t_ns']
        # At rest.
        await_rest(d, rests_before)
        time.sleep(2.5)
        resting = window(lab, hub, d.pid, seconds)
        # Onsets: from rest, a turn; back to the start and to rest again.
        starts = onset_trials(hub, onsets, lambda: (lambda count=rests(d): await_rest(d, count)))
        result = sub.result()
    finally:
        d.stop()
    frames = offsets(result)
    latencies = latencies_ms(frames, start, end)
    onset_ms = onsets_ms(frames, starts)
    return {'moving': moving, 'rest': resting, 'latency_p50': percentile(latencies, 0.5),
            'latency_p99': percentile(latencies, 0.99), 'frames_moving': len(latencies), 'onsets': onset_ms}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=4.0)
    ap.add_argument('--onsets', type=int, default=3)
    ap.add_argument('--bin', default=os.path.join(REPO, '.build', 'release', 'parallaxd'),
                    help='parallaxd built on the host (default: the release build; `swift build -c release`)')
    ap.add_argument('--json', help='also write the raw results here')
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f'{a.bin} is not built (swift build -c release --product parallaxd)')
    subprocess.run([os.path.join(REPO, 'scripts', 'lab.sh'), 'prepare'], check=True)
    why = missing_artifacts()
    if why:
        sys.exit('lab not available: ' + why)
    lab = Lab.boot()
    results = {m: [] for m in MODES}
    try:
        hub = GuestHub(lab)
        hub.start(timestamps=True)
        the_floor = floor(lab, a.seconds)
        for r in range(a.rounds):
            for mode in MODES:
                res = one_round(lab, hub, a.bin, mode, r, a.seconds, a.onsets)
                print(f'round {r} {mode}: {json.dumps(res)}', file=sys.stderr)
                results[mode].append(res)
        hub.stop()
    finally:
        lab.shutdown()
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'floor': the_floor, 'results': results}, f, indent=1)

    def col(mode, phase, key):
        return [r[phase][key] for r in results[mode]]

    def ratio(phase, key):
        b = statistics.median(col('buffered', phase, key))
        p = statistics.median(col('polled', phase, key))
        return f'{b / p:.2f}' if p else 'n/a'
    print(f'\n{a.rounds} rounds of each, {a.seconds:g} s windows; median (min–max over rounds)\n')
    print('| | buffered | polled | buffered / polled |')
    print('|---|---|---|---|')
    for phase in ('moving', 'rest'):
        label = 'moving' if phase == 'moving' else 'at rest'
        for key, name in (('get_reports', 'GET_REPORTs/s (input + feature)'), ('input_reports', 'input reports/s sent by the hub'),
                          ('wakeups', 'daemon wake-ups/s'), ('cpu', 'daemon CPU, % of a core')):
            print(f"| {name}, {label} | {spread(col('buffered', phase, key))} | {spread(col('polled', phase, key))} | {ratio(phase, key)} |")
    for key, name in (('latency_p50', 'sample → client p50, ms'), ('latency_p99', 'sample → client p99, ms')):
        b, p = [r[key] for r in results['buffered']], [r[key] for r in results['polled']]
        print(f'| {name} (moving) | {spread(b)} | {spread(p)} | {statistics.median(b) / statistics.median(p):.2f} |')
    ob = [o for r in results['buffered'] for o in r['onsets']]
    op = [o for r in results['polled'] for o in r['onsets']]
    print(f'| onset from rest, ms (all {len(ob)} trials) | {spread(ob)} | {spread(op)} | '
          f'{statistics.median(ob) / statistics.median(op):.2f} |')
    print(f"| floor: 10 Hz timer process, wake-ups/s · CPU % | {the_floor['wakeups']:.1f} · {the_floor['cpu']:.3f} | | |")


if __name__ == '__main__':
    main()
