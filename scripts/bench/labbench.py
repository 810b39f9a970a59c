"""Measurement pieces shared by the real-kernel lab benchmarks (scripts/bench/lab-capture.py,
scripts/bench/lab-installed.py): a daemon's wake-ups and CPU from /proc, the hub's counters over a
window, latency percentiles, onset trials and the 10 Hz timer floor, all in one lab guest
(Tests/lab/labvm.py). Times compared with each other are the guest's CLOCK_MONOTONIC (ns); window
lengths are the host's clock.
"""
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'lab'))

TURN = 30.0  # deg/s, the moving windows
ONSET_TURN = 60.0  # deg/s: a deliberate tilt (the offset must move MinimumChange, 0.015 ≈ 1.35°, for a frame: 22 ms at this rate)


def thread_costs(lab, pid):
    """(context switches, run ns) summed over every thread of pid in the guest."""
    out = lab.check(f'cat /proc/{pid}/task/*/status | grep ctxt_switches; echo --; cat /proc/{pid}/task/*/schedstat')
    switches, _, sched = out.partition('--')
    return (sum(int(l.split()[1]) for l in switches.splitlines() if l.strip()),
            sum(int(l.split()[0]) for l in sched.splitlines() if l.strip()))


def window(lab, hub, pid, seconds, during=None):
    """Counters of the hub and costs of pid over a window of `seconds` (host clock); `during`
    (a callable) runs at its middle. Sums over the hub's sensors, and per sensor
    ('accel.get_input', 'gyro.input_sent', …)."""
    before, (sw0, ns0) = hub.status(), thread_costs(lab, pid)
    t0 = time.monotonic()
    if during:
        time.sleep(seconds / 2)
        during()
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
    else:
        time.sleep(seconds)
    after, (sw1, ns1) = hub.status(), thread_costs(lab, pid)
    dt = time.monotonic() - t0
    one = lambda s, key: (after['sensors'][s][key] - before['sensors'][s][key]) / dt
    rate = lambda key: sum(one(s, key) for s in after['sensors'])
    out = {'get_reports': rate('get_input') + rate('get_feature'), 'get_input': rate('get_input'),
           'input_reports': rate('input_sent'), 'wakeups': (sw1 - sw0) / dt, 'cpu': 100.0 * (ns1 - ns0) / 1e9 / dt}
    for s in after['sensors']:
        for key in ('get_input', 'input_sent'):
            out[f'{s}.{key}'] = one(s, key)
    return out


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float('nan')


def spread(values, fmt='.3g'):
    """'median (min–max)' of the values (NaNs left out)."""
    values = [v for v in values if v == v]
    if not values:
        return 'n/a'
    med = statistics.median(values)
    return f'{med:{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})' if len(values) > 1 else f'{med:{fmt}}'


def latencies_ms(frames, start_ns, end_ns):
    """Sample → client of the frames that arrived in [start_ns, end_ns]: arrival − the frame's t."""
    return [(f['recv_ns'] - f['t']) / 1e6 for f in frames if start_ns <= f['recv_ns'] <= end_ns]


def onset_trials(hub, trials, rest_waiter):
    """From rest, a turn at ONSET_TURN for 0.25 s and back; per trial the time of the first report
    the hub sent after the motion began (None if none). rest_waiter(), called before each trial,
    returns a callable that blocks until the daemon rests again (called after the trial)."""
    starts = []
    for _ in range(trials):
        await_rest = rest_waiter()
        seq = hub.ctl('sent', since=10**12)['seq']
        t_cmd = hub.ctl('rate', x=ONSET_TURN)['t_ns']
        time.sleep(0.25)
        hub.ctl('rate', x=-ONSET_TURN)
        time.sleep(0.25)
        hub.ctl('rate', x=0)
        reports = [r for r in hub.ctl('sent', since=seq)['reports'] if r['t_ns'] >= t_cmd]
        starts.append(min(r['t_ns'] for r in reports) if reports else None)
        await_rest()
    return starts


def onsets_ms(frames, starts):
    """Per trial: arrival of the first offset frame at or after the hub's first report − that report."""
    out = []
    for t_first in starts:
        later = [f['recv_ns'] for f in frames if t_first is not None and f['recv_ns'] >= t_first]
        out.append((min(later) - t_first) / 1e6 if later else float('nan'))
    return out


def floor(lab, seconds):
    """A C process sleeping on a 10 Hz timer in the guest (scripts/bench/timer-floor.c, built on the
    host, run from the shared repository): its wake-ups/s and CPU % measured like the daemon's."""
    exe = os.path.join(REPO, '.build', 'bench', 'timer-floor')
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    subprocess.run(['cc', '-O2', '-o', exe, os.path.join(REPO, 'scripts', 'bench', 'timer-floor.c')], check=True)
    pid = lab.run_background(exe, '/tmp/timer-floor.log')
    try:
        sw0, ns0 = thread_costs(lab, pid)
        t0 = time.monotonic()
        time.sleep(seconds)
        sw1, ns1 = thread_costs(lab, pid)
        dt = time.monotonic() - t0
    finally:
        lab.run(f'kill {pid}')
    return {'wakeups': (sw1 - sw0) / dt, 'cpu': 100.0 * (ns1 - ns0) / 1e9 / dt}
