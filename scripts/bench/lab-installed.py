#!/usr/bin/python3
"""The installed service on the real kernel, beside and without iio-sensor-proxy (BENCHMARKS.md
"Real kernel: the installed service"; docs/lab.md): the project's .debs installed with apt-get
offline in the lab booted with systemd as PID 1 (Tests/lab/test_installed.py's scenario),
`parallaxd.service` as shipped (its own account, started by udev when the hub appears), our HID
hub over /dev/uhid with hub timestamps and a change sensitivity above 0 at creation.

  scripts/bench/lab-installed.py [DEBS_DIR] [--rounds N] [--seconds S] [--onsets N]
                                 [--configs A,B] [--json FILE]

DEBS_DIR (or $PARALLAX_LAB_DEBS): the .deb files to install (-dbgsym ones left out), e.g. the
directory of the paths `DEB_BUILD_OPTIONS=noopt scripts/build-debs.sh` prints. The lab image:
/var/cache/parallaxd/lab or $PARALLAX_LAB_DIR (scripts/lab.sh prepare); PARALLAX_LAB_RELEASE=trixie
or forky boots that release's guest (its kernel, systemd, iio-sensor-proxy; give its packages).

Configurations, in this order in one boot:
  A  iio-sensor-proxy masked (the booted guest's default): both sensors captured buffered.
  B  iio-sensor-proxy unmasked (its udev rule and service) and claimed by `monitor-sensor --accel`:
     the daemon captures the gyroscope buffered and polls the accelerometer through sysfs.
Per configuration and round, a root subscriber (60 Hz) on the service's socket holds the
sensors open (measurement code shared with lab-capture.py: scripts/bench/labbench.py):
- moving: the hub turns about X at 30°/s, then back at −30°/s, `--seconds` in all; at rest:
  from 2.5 s after `parallaxctl status --json` says "resting": true, `--seconds`;
- GET_REPORTs/s and input reports/s: the hub's counters (all its clients: in B iio-sensor-proxy
  reads the accelerometer's buffer too), per sensor;
- daemon wake-ups/s (voluntary + involuntary context switches of all the service's threads) and
  CPU (schedstat), against a 10 Hz timer process measured the same way in the same boot;
- sample → client: arrival of each offset frame while moving (the subscriber's CLOCK_MONOTONIC) −
  its `t`; p50, p99;
- onset: from rest, a 60°/s turn; first offset frame − the first report the hub sent after the
  motion began;
- CTS-style checks (Android CTS sensor verifications: event ordering, frequency ±10 %, gaps over
  1.8 periods at most 1 %) on the samples the service reads while moving, after 1 s of warm-up:
  the daemon writes no per-sample trace, so they are the hub's reports, which are the samples:
  buffered, each input report is one scan of the sensor's buffer with the hub's timestamp as
  its IIO timestamp (the sample's `t`), and every frame's `t` is checked to be one of them; the
  polled accelerometer (B), each poll is three GET_REPORTs (x, y, z) of the daemon, its sample
  time the read. The rate set is the one `status` reports per sensor (the polled rate its
  capture says). Beside them, the daemon's own count of samples reaching the engine in the last
  second (`status` rates.input) at the end of the moving window, against the samples the hub
  gave in that second (the guest clock read before and after the status request).
TCG emulates the CPU on shared cores: absolute times are those of an emulated machine.
"""
import argparse
import json
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labbench import TURN, floor, latencies_ms, onset_trials, onsets_ms, percentile, spread, window  # noqa: E402
from labvm import Lab, LabError, missing_artifacts  # noqa: E402
from labkit import PLXRUN, GuestHub, guest_json, offsets  # noqa: E402
# The booted scenario's own steps (apt-get offline, the hub's sensitivity, unit states).
from test_installed import APT, HUB_DEFAULT_SENSITIVITY, SOCKET, UNIT, await_file_line, await_unit, show  # noqa: E402

HUB_SOCKET = '/run/sensorhub-bench.sock'
STOP_FILE = '/run/bench-subscriber.stop'
WARMUP_NS = 1_000_000_000


class Service:
    """The installed parallaxd.service, seen from a root client in the guest."""

    def __init__(self, lab):
        self.lab = lab

    @property
    def pid(self):
        return int(show(self.lab, UNIT, 'MainPID')['MainPID'])

    def status(self):
        return json.loads(self.lab.check(['parallaxctl', 'status', '--json']))

    def await_resting(self, timeout=60):
        deadline = time.monotonic() + timeout
        while not self.status().get('resting'):
            if time.monotonic() > deadline:
                raise LabError('the service did not come to rest: ' + json.dumps(self.status()))
            time.sleep(0.2)

    def subscribe_async(self, seconds):
        """A 60 Hz subscriber (guest/plxrun.py subscribe) in a host thread, until seconds pass or
        STOP_FILE exists when a frame comes (stop_subscriber); .result() joins."""
        self.lab.check(['rm', '-f', STOP_FILE])
        argv = ['python3', PLXRUN, 'subscribe', '--socket', SOCKET, '--seconds', str(seconds), '--rate', '60',
                '--until', f"__import__('os').path.exists('{STOP_FILE}')"]
        box = {}

        def run():
            try:
                box['value'] = guest_json(self.lab, argv, timeout=seconds + 60)
            except Exception as e:  # noqa: BLE001 - re-raised in result()
                box['error'] = e
        t = threading.Thread(target=run, daemon=True)
        t.start()

        def result():
            t.join()
            if 'error' in box:
                raise box['error']
            return box['value']
        deadline = time.monotonic() + 30
        while self.status()['subscribers'] < 1:
            if time.monotonic() > deadline:
                raise LabError('the subscriber did not subscribe')
            time.sleep(0.2)
        return result


def stop_subscriber(lab, hub):
    """The subscriber stops at its next frame: a short turn and back gives it one."""
    lab.check(['touch', STOP_FILE])
    hub.ctl('rate', x=60)
    time.sleep(0.3)
    hub.ctl('rate', x=-60)
    time.sleep(0.3)
    hub.ctl('rate', x=0)


def cts(times_ns, rate_hz):
    """Android CTS-style verifications of one sensor's sample times: ordering (strictly
    increasing), frequency (the delivered rate within ±10 % of rate_hz), gaps (intervals over 1.8
    periods at most 1 % of them)."""
    if len(times_ns) < 3 or not rate_hz:
        return {'n': len(times_ns), 'ok': False, 'why': 'too few samples or no rate'}
    intervals = [b - a for a, b in zip(times_ns, times_ns[1:])]
    backwards = sum(1 for d in intervals if d <= 0)
    delivered = (len(times_ns) - 1) / ((times_ns[-1] - times_ns[0]) / 1e9)
    period = 1e9 / rate_hz
    gaps = [d for d in intervals if d > 1.8 * period]
    out = {'n': len(times_ns), 'rate_set': rate_hz, 'rate_delivered': delivered,
           'rate_ratio': delivered / rate_hz, 'not_increasing': backwards, 'gaps': len(gaps),
           'gap_fraction': len(gaps) / len(intervals), 'max_gap_periods': max(intervals) / period}
    out['ok'] = backwards == 0 and abs(delivered / rate_hz - 1) <= 0.10 and out['gap_fraction'] <= 0.01
    return out


def polls(times_ns, apart_ns):
    """The start of each poll: GET_REPORTs closer than apart_ns to the previous belong to its poll."""
    out = []
    for t in times_ns:
        if not out or t - last > apart_ns:
            out.append(t)
        last = t
    return out


def capture_of(report, kind):
    return next((s for s in report['sensors'] if s['kind'] == kind), {})


def sample_times(report, sent, kind):
    """(times, rate set, what) of one sensor's samples among the hub's reports: a buffered
    sensor's are its input reports' hub timestamps (the samples' IIO timestamps); a polled one's
    the start of each poll (the daemon's GET_REPORTs)."""
    sensor = capture_of(report, kind)
    polled = re.match(r'polled at ([0-9.]+) Hz', sensor.get('capture', ''))
    if polled:
        rate = float(polled.group(1))
        gets = sorted(r['t_ns'] for r in sent if r['sensor'] == kind and r['kind'] == 'get')
        return polls(gets, 0.4e9 / rate), rate, 'polls (daemon GET_REPORTs, read times)'
    ts = [r['ts_us'] * 1000 for r in sent if r['sensor'] == kind and r['kind'] == 'input' and r.get('ts_us') is not None]
    return ts, sensor.get('rate'), 'buffered scans (hub timestamps)'


def sample_checks(report, sent, start_ns, end_ns, frames, status_ns):
    """CTS-style checks per sensor on the samples between start_ns + warm-up and end_ns; the
    samples the hub gave in the second before the status request and before its reply
    (status_ns: the guest's clock before and after; rates.input counts the second before the
    reply), to compare with the daemon's count."""
    lo = start_ns + WARMUP_NS
    out, last_second = {}, [0, 0]
    for kind in ('accel', 'gyro'):
        times, rate, what = sample_times(report, sent, kind)
        out[kind] = dict(cts([t for t in times if lo <= t <= end_ns], rate), what=what)
        for i, u in enumerate(status_ns):
            last_second[i] += sum(1 for t in times if u - 1e9 <= t <= u)
    out['hub_last_second'] = last_second
    stamps = {r['ts_us'] * 1000 for r in sent if r.get('ts_us') is not None}
    ts = [f['t'] for f in frames if lo <= f['recv_ns'] <= end_ns]
    out['frames'] = {'n': len(ts), 'not_increasing': sum(1 for a, b in zip(ts, ts[1:]) if b <= a),
                     'equal': sum(1 for a, b in zip(ts, ts[1:]) if b == a),
                     't_is_a_hub_timestamp': sum(1 for t in ts if t in stamps)}
    return out


def guest_now_ns(lab):
    """The guest's clock from /proc/uptime (CLOCK_BOOTTIME: CLOCK_MONOTONIC in a guest that never
    suspends; 10 ms resolution)."""
    return int(float(lab.read('/proc/uptime').split()[0]) * 1e9)


def one_round(lab, svc, hub, seconds, onsets):
    pid = svc.pid
    hold = 120 + 2 * seconds + onsets * 30
    sub = svc.subscribe_async(hold)
    try:
        # Each round starts from the sensors open and at rest.
        svc.await_resting()
        # Moving: out at +30°/s and back at −30°/s.
        seq = hub.ctl('sent', since=10**12)['seq']
        start = hub.ctl('rate', x=TURN)['t_ns']
        moving = window(lab, hub, pid, seconds, during=lambda: hub.ctl('rate', x=-TURN))
        u0 = guest_now_ns(lab)
        report = svc.status()           # still turning: rates.input is the last second's
        status_ns = (u0, guest_now_ns(lab))
        end = hub.ctl('rate', x=0)['t_ns']
        sent = hub.ctl('sent', since=seq)['reports']
        # At rest.
        svc.await_resting()
        time.sleep(2.5)
        resting = window(lab, hub, pid, seconds)
        starts = onset_trials(hub, onsets, lambda: svc.await_resting)
    finally:
        stop_subscriber(lab, hub)
    frames = offsets(sub())
    latencies = latencies_ms(frames, start, end)
    if svc.pid != pid:
        raise LabError(f'the service was restarted during the round ({pid} → {svc.pid})')
    return {'moving': moving, 'rest': resting, 'latency_p50': percentile(latencies, 0.5),
            'latency_p99': percentile(latencies, 0.99), 'frames_moving': len(latencies),
            'onsets': onsets_ms(frames, starts), 'input_rate': report['rates']['input'],
            'rates_set': {s['kind']: s['rate'] for s in report['sensors']},
            'captures': {s['kind']: s.get('capture', '') for s in report['sensors']},
            'hub_interval_ms': {n: s['interval_ms'] for n, s in hub.status()['sensors'].items()},
            'checks': sample_checks(report, sent, start, end, frames, status_ns)}


def accel_capture(svc):
    return capture_of(svc.status(), 'accel').get('capture', '')


def await_capture(svc, pred, timeout=60):
    deadline, capture = time.monotonic() + timeout, None
    while True:
        try:
            capture = accel_capture(svc)
            if pred(capture):
                return capture
        except (LabError, ValueError):
            pass
        if time.monotonic() > deadline:
            raise LabError(f'accelerometer capture not as wanted: {capture!r}')
        time.sleep(0.2)


def beside_proxy(lab, svc, hub):
    """Configuration B, as test_beside_iio_sensor_proxy_both_keep_working sets it up."""
    lab.check(['systemctl', 'stop', UNIT])
    lab.check('rm /etc/udev/rules.d/80-iio-sensor-proxy.rules && systemctl unmask iio-sensor-proxy '
              '&& udevadm control --reload && udevadm trigger --subsystem-match=iio --action=add && udevadm settle',
              timeout=120)
    await_unit(lab, 'iio-sensor-proxy.service')
    await_unit(lab, UNIT)
    lab.run_background('monitor-sensor --accel', '/tmp/monitor-sensor.log')
    await_file_line(lab, '/tmp/monitor-sensor.log', 'Has accelerometer')
    return await_capture(svc, lambda c: c.startswith('polled at '))


def debs_in(directory):
    paths = sorted(os.path.join(os.path.abspath(directory), f) for f in os.listdir(directory)
                   if f.endswith('.deb') and '-dbgsym_' not in f)
    if not paths:
        sys.exit(f'no .deb files in {directory}')
    return paths


def table(results, the_floor, configs):
    names = {'A': 'A: without iio-sensor-proxy', 'B': 'B: beside iio-sensor-proxy'}
    col = lambda c, f: [f(r) for r in results[c]]
    lines = ['| | ' + ' | '.join(names[c] for c in configs) + ' |', '|---|' + '---|' * len(configs)]

    def row(label, f, fmt='.3g'):
        lines.append(f'| {label} | ' + ' | '.join(spread(col(c, f), fmt) for c in configs) + ' |')
    for phase, label in (('moving', 'moving'), ('rest', 'at rest')):
        row(f'GET_REPORTs/s (input + feature), {label}', lambda r: r[phase]['get_reports'])
        row(f'  input GET_REPORTs/s of the accelerometer, {label}', lambda r: r[phase]['accel.get_input'])
        row(f'  input GET_REPORTs/s of the gyroscope, {label}', lambda r: r[phase]['gyro.get_input'])
        row(f'input reports/s sent by the hub, {label}', lambda r: r[phase]['input_reports'])
        row(f'  accel, {label}', lambda r: r[phase]['accel.input_sent'])
        row(f'  gyro, {label}', lambda r: r[phase]['gyro.input_sent'])
        row(f'daemon wake-ups/s, {label}', lambda r: r[phase]['wakeups'])
        row(f'daemon CPU, % of a core, {label}', lambda r: r[phase]['cpu'], '.2g')
    row('daemon wake-ups/s at rest ÷ floor', lambda r: r['rest']['wakeups'] / the_floor['wakeups'], '.2f')
    row('sample → client p50, ms (moving)', lambda r: r['latency_p50'])
    row('sample → client p99, ms (moving)', lambda r: r['latency_p99'])
    lines.append('| onset from rest, ms (all trials) | ' + ' | '.join(
        spread([o for r in results[c] for o in r['onsets']]) for c in configs) + ' |')
    lines.append(f"| floor: 10 Hz timer process, wake-ups/s · CPU % | {the_floor['wakeups']:.1f} · {the_floor['cpu']:.2f} |"
                 + ' |' * (len(configs) - 1))
    return '\n'.join(lines)


def checks_table(results, configs):
    lines = ['| config, sensor (what) | samples | rate set, Hz | delivered ÷ set | not increasing | gaps > 1.8 periods | longest interval, periods | pass |',
             '|---|---|---|---|---|---|---|---|']
    for c in configs:
        for kind in ('accel', 'gyro'):
            rs = [r['checks'][kind] for r in results[c]]
            lines.append(f"| {c} {kind} ({rs[0].get('what', '')}) | {spread([x['n'] for x in rs])} | "
                         f"{spread([x.get('rate_set', float('nan')) for x in rs])} | "
                         f"{spread([x.get('rate_ratio', float('nan')) for x in rs], '.3f')} | "
                         f"{sum(x.get('not_increasing', 0) for x in rs)} | "
                         f"{sum(x.get('gaps', 0) for x in rs)} ({spread([100 * x.get('gap_fraction', float('nan')) for x in rs], '.2f')} %) | "
                         f"{spread([x.get('max_gap_periods', float('nan')) for x in rs], '.2f')} | "
                         f"{sum(1 for x in rs if x['ok'])}/{len(rs)} |")
        fr = [r['checks']['frames'] for r in results[c]]
        lines.append(f"| {c} frames at the client (`t`) | {spread([x['n'] for x in fr])} | | | "
                     f"{sum(x['not_increasing'] for x in fr)} ({sum(x.get('equal', 0) for x in fr)} equal) | | | "
                     f"`t` a hub timestamp: {sum(x['t_is_a_hub_timestamp'] for x in fr)}/{sum(x['n'] for x in fr)} |")
        lines.append(f"| {c} daemon's rates.input at the end of moving (both sensors, samples in the last second) | "
                     f"{spread([r['input_rate'] for r in results[c]])} | "
                     f"{spread([sum(r['checks'][k].get('rate_set', 0) for k in ('accel', 'gyro')) for r in results[c]])} (both, set) | "
                     f"{spread([r['input_rate'] / sum(r['checks'][k].get('rate_set', 0) for k in ('accel', 'gyro')) for r in results[c]], '.3f')} | | | | "
                     f"hub gave {'; '.join('–'.join(str(n) for n in r['checks']['hub_last_second']) for r in results[c])} in that second |")
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('debs', nargs='?', default=os.environ.get('PARALLAX_LAB_DEBS'),
                    help='directory of the .deb files (default: $PARALLAX_LAB_DEBS)')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=4.0)
    ap.add_argument('--onsets', type=int, default=3)
    ap.add_argument('--configs', default='A,B', help='A (without iio-sensor-proxy), B (beside it), in this order')
    ap.add_argument('--json', help='also write the raw results here')
    a = ap.parse_args()
    if not a.debs:
        sys.exit('which packages? a directory of .debs (argument or PARALLAX_LAB_DEBS)')
    configs = [c for c in ('A', 'B') if c in a.configs.split(',')]
    debs = debs_in(a.debs)
    why = missing_artifacts()
    if why:
        sys.exit('lab not available: ' + why)
    t0 = time.monotonic()
    lab = Lab.boot(systemd=True, shares=[('debs', os.path.dirname(debs[0]))])
    print(f'booted in {lab.boot_seconds:.1f} s ({lab.system_state})', file=sys.stderr)
    results = {c: [] for c in configs}
    info = {'load_before': os.getloadavg()}
    hub = None
    try:
        r = lab.run(APT + ['install', '--no-install-recommends'] + debs, timeout=600,
                    env={'DEBIAN_FRONTEND': 'noninteractive'})
        if r.rc != 0:
            raise LabError('apt-get install failed:\n' + r.stdout[-3000:] + r.stderr[-3000:])
        print(f'installed at {time.monotonic() - t0:.0f} s', file=sys.stderr)
        svc = Service(lab)
        hub = GuestHub(lab, socket=HUB_SOCKET)
        hub.start(timestamps=True, sensitivity=HUB_DEFAULT_SENSITIVITY)
        lab.check(['udevadm', 'settle'])
        await_unit(lab, UNIT)           # started by udev for the hub (the rule's SYSTEMD_WANTS)
        uid = lab.check(['id', '-u', 'parallaxd']).strip()
        proc = lab.check(f'grep -E "^(Uid|CapEff):" /proc/{svc.pid}/status')
        if proc.split()[1] != uid:
            raise LabError(f'the service does not run as parallaxd: {proc}')
        info['service_status'] = proc
        the_floor = floor(lab, a.seconds)
        for c in configs:
            if c == 'B':
                info['B_accel_capture'] = beside_proxy(lab, svc, hub)
            for n in range(a.rounds):
                res = one_round(lab, svc, hub, a.seconds, a.onsets)
                print(f'{c} round {n} ({time.monotonic() - t0:.0f} s): {json.dumps(res)}', file=sys.stderr)
                results[c].append(res)
        info['load_after'] = os.getloadavg()
        info['journal_warnings'] = lab.run(['journalctl', '-u', UNIT, '-p', 'warning', '--no-pager', '-o', 'cat']).stdout[-3000:]
    finally:
        if hub:
            hub.stop()
        lab.shutdown()
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'floor': the_floor, 'info': info, 'results': results}, f, indent=1)
    print(f'\n{a.rounds} rounds of each, {a.seconds:g} s windows, {a.onsets} onsets a round; median (min–max over rounds); '
          f'load average {info["load_before"][0]:.1f} before, {info["load_after"][0]:.1f} after; '
          f'{time.monotonic() - t0:.0f} s in all\n')
    print(table(results, the_floor, configs))
    print('\nCTS-style checks on the samples the service read while moving (per round; rounds passing):\n')
    print(checks_table(results, configs))
    print('\ncaptures: ' + '; '.join(f"{c}: {results[c][0]['captures']}" for c in configs)
          + '; hub report intervals (ms): ' + '; '.join(f"{c}: {results[c][0]['hub_interval_ms']}" for c in configs))
    print('service: ' + ' '.join(info['service_status'].split()) + '; its warnings in the journal: '
          + (info['journal_warnings'].strip() or 'none'))


if __name__ == '__main__':
    main()
