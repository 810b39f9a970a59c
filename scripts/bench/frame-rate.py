#!/usr/bin/python3
"""Delivered frame rate (BENCHMARKS.md "Delivered frame rate"; issue 31): what a subscriber at
each rate gets from each source while the device moves, MinimumChange=0 (every sample a frame).

  scripts/bench/frame-rate.py [--daemon PARALLAXD] [--seconds S] [--rates 1,30,60,...]
                              [--sources replay:50,buffered:100,...]

Sources: `replay:HZ` (a rocking trace recorded at HZ, replayed), `buffered:HZ` (an emulated
buffered BMI160 under umockdev, Tests/integration/plx/, its feeder writing scans at HZ with ±2 LSB
of noise while a looping trace rocks it). One daemon per source, one subscriber per rate, all
at once. Per subscriber, over `--seconds` of sample time after 1 s of settling: frames counted by
their `t`; `possible` = min(rate, the source's samples in the window / window); the delivered rate;
and the p95 of |interval − 1/possible| between consecutive frames' `t`, in ms and in source periods.
Needs the umockdev preload and python3-gi (scripts/setup.sh installs them)."""
import argparse
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'integration'))
import plx  # noqa: E402
from helpers import rocking_trace, wait_log  # noqa: E402

SETTLE = 1.0


def p95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * 0.95))] if values else 0.0


def run_source(binary, kind, hz, rates, seconds):
    work = tempfile.mkdtemp(prefix='plx-', dir='/tmp')
    conf = os.path.join(work, 'rate.conf')
    with open(conf, 'w') as f:
        f.write('[Motion]\nMinimumChange=0\n')
    testbed = plx.Testbed() if kind == 'buffered' else None
    feeder = player = None
    try:
        if kind == 'replay':
            source = rocking_trace(os.path.join(work, 'rock.csv'), seconds=seconds + 20, rate_hz=hz)
            daemon = plx.Daemon(work, None, binary=binary, config=conf, source=source, log_level='info').start()
            stamps = None
        else:
            dev = plx.buffered_bmi160(0)
            testbed.add(dev)
            feeder = plx.ScanFeeder(testbed, dev, rate_hz=hz, noise_lsb=2).start()
            rows = plx.read_trace(rocking_trace(os.path.join(work, 'loop.csv'), seconds=4.0, rate_hz=50.0)[len('replay:'):])[1]
            player = plx.TracePlayer(testbed, dev, dev, rows, loop=True).start()
            daemon = plx.Daemon(work, testbed, binary=binary, config=conf, log_level='info').start()
            assert wait_log(daemon, 'capture: buffered'), 'not buffered'
            stamps = feeder
        clients = []
        for rate in rates:
            c = daemon.connect()
            c.subscribe(rate=rate)
            clients.append(c)
        firsts = [c.wait_offset(lambda x, y: True, 10) for c in clients]
        start = int(max(f['t'] for f in firsts if f) + SETTLE * 1e9)
        end = int(start + seconds * 1e9)
        deadline = time.monotonic() + SETTLE + seconds + 10
        while time.monotonic() < deadline:
            for c in clients:
                c.pump(0.02)
            if all(any(o['t'] >= end for _, o in c.frames) for c in clients):
                break
        # What reached the engine (the status report's measured input rate): a replay that falls
        # behind under load delivers fewer samples than its trace holds.
        engine_input = clients[0].status()['rates']['input']
        samples = (sum(1 for t in stamps.written if start <= t < end) if stamps else hz * seconds)
        source_rate = samples / seconds
        rows = []
        for rate, c in zip(rates, clients):
            ts = [o['t'] for _, o in c.frames if start <= o['t'] < end]
            possible = min(rate, source_rate)
            ideal = 1e9 / possible
            err = p95([abs((b - a) - ideal) for a, b in zip(ts, ts[1:])])
            rows.append((rate, len(ts) / seconds, possible, err / 1e6, err / (1e9 / source_rate)))
        daemon.stop()
        return source_rate, engine_input, rows
    finally:
        if player:
            player.stop()
        if feeder:
            feeder.stop()
        if testbed:
            testbed.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--daemon', default=os.environ.get('PARALLAXD') or os.path.join(REPO, '.build', 'debug', 'parallaxd'))
    ap.add_argument('--seconds', type=float, default=5.0)
    ap.add_argument('--rates', default='1,10,30,60,100,144,240')
    ap.add_argument('--sources', default='replay:6.25,replay:25,replay:50,replay:100,replay:200,replay:400,buffered:100,buffered:200')
    args = ap.parse_args()
    rates = [int(r) for r in args.rates.split(",")]
    daemon = os.path.abspath(args.daemon)
    print('| source | source rate (Hz) | engine input (Hz) | subscribed (Hz) | delivered (frames/s) | min(R, S) | within 3 % | p95 spacing error (ms) | in source periods |')
    print('|---|---|---|---|---|---|---|---|---|')
    for spec in args.sources.split(','):
        kind, hz = spec.split(':')
        source_rate, engine_input, rows = run_source(daemon, kind, float(hz), rates, args.seconds)
        for rate, got, possible, err_ms, err_periods in rows:
            ok = 'yes' if abs(got - possible) <= 0.03 * possible + 1 / args.seconds else 'NO'
            print('| %s %s Hz | %.1f | %.1f | %d | %.1f | %.1f | %s | %.2f | %.2f |' % (
                kind, hz, source_rate, engine_input, rate, got, possible, ok, err_ms, err_periods), flush=True)


if __name__ == '__main__':
    main()
