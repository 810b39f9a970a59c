#!/usr/bin/env python3
"""libparallax benchmarks (BENCHMARKS.md, "Client kit: libparallax").

    /usr/bin/python3 scripts/bench/libparallax.py [--daemon PATH] [--runs 3] [--seconds 10]

1. px_client_dispatch per offset frame: Tests/libparallax/bench_dispatch.c (in-process server,
   only the dispatch call timed), 21 runs of 10,000 frames.
2. CPU of each example client in examples/clients/ subscribed at 60 Hz to the real parallaxd
   replaying a device that rocks ±20° about +Y (200 Hz, MinimumChange=0: every frame moves, so the
   client gets its full 60 Hz): the client's on-CPU time from /proc/PID/schedstat over `--seconds`
   after a 1 s warm-up, `--runs` times; medians and all runs printed.
The library and programs are built from a staged `make install-libparallax` (-O2, as installed).
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'libparallax'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'integration'))
import libpx  # noqa: E402
import plx  # noqa: E402

EXAMPLES = {'wl_event_loop': 'wayland-server', 'glib': 'glib-2.0', 'sd_event': 'libsystemd'}
# The replayed motion: ±20° about +Y with a 2 s period, sampled at 200 Hz; the replay loops.
AMPLITUDE_DEG, PERIOD_S, INPUT_HZ, TRACE_S = 20.0, 2.0, 200.0, 20.0
WARMUP_S = 1.0


def rocking_trace(path):
    a, w = math.radians(AMPLITUDE_DEG), 2 * math.pi / PERIOD_S
    rows = ['# libparallax bench: rocking about +Y, 20 deg, 2 s period', 't_ns,ax,ay,az,gx,gy,gz']
    for i in range(int(TRACE_S * INPUT_HZ)):
        t = i / INPUT_HZ
        # Upright, gravity lies along the axis of the turn: it does not change.
        rows.append('%d,0,%.6f,0,0,%.6f,0' % (int(t * 1e9), -plx.GRAVITY, a * w * math.cos(w * t)))
    with open(path, 'w') as f:
        f.write('\n'.join(rows) + '\n')


def on_cpu_ns(pid):
    with open('/proc/%d/schedstat' % pid) as f:
        return int(f.read().split()[0])


def count_lines(path):
    with open(path, 'rb') as f:
        return f.read().count(b'\n')


def example_cpu(binary, staged, socket_path, seconds, out_path):
    with open(out_path, 'wb') as out:
        proc = subprocess.Popen([binary, socket_path, '60', '0'], stdout=out, stderr=subprocess.DEVNULL,
                                env=staged.run_env())
    try:
        time.sleep(WARMUP_S)   # a measurement window, not synchronisation
        cpu0, lines0, t0 = on_cpu_ns(proc.pid), count_lines(out_path), time.monotonic()
        time.sleep(seconds)
        cpu1, lines1, t1 = on_cpu_ns(proc.pid), count_lines(out_path), time.monotonic()
    finally:
        proc.terminate()
        proc.wait(10)
    return 100.0 * (cpu1 - cpu0) / 1e9 / (t1 - t0), (lines1 - lines0) / (t1 - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--daemon', default=os.environ.get('PARALLAXD') or plx.find_binary('parallaxd'))
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=10.0)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix='libpx-bench-', dir='/tmp')
    try:
        staged = libpx.stage(os.path.join(work, 'dest'), os.path.join(work, 'build'))
        bench = staged.build(os.path.join(ROOT, 'Tests/libparallax/bench_dispatch.c'), os.path.join(work, 'bench'),
                             extra_cflags=['-O2'])
        out = subprocess.run([bench, '21', '10000'], env=staged.run_env(), capture_output=True, text=True, check=True)
        print('px_client_dispatch:', json.dumps(json.loads(out.stdout)))

        trace, config = os.path.join(work, 'rocking.csv'), os.path.join(work, 'bench.conf')
        rocking_trace(trace)
        with open(config, 'w') as f:
            f.write('[Sensor]\nLinger=0.5\n[Motion]\nMinimumChange=0\n')
        daemon = plx.Daemon(work, None, binary=args.daemon, config=config, source='replay:' + trace,
                            log_level='warning').start()
        try:
            for name, package in EXAMPLES.items():
                loop = subprocess.run(['pkg-config', '--cflags', '--libs', package], capture_output=True, text=True,
                                      check=True).stdout.split()
                binary = staged.build(os.path.join(ROOT, 'examples/clients', name + '.c'), os.path.join(work, name),
                                      extra_cflags=['-O2'], extra_libs=loop)
                runs = [example_cpu(binary, staged, daemon.socket_path, args.seconds, os.path.join(work, name + '.out'))
                        for _ in range(args.runs)]
                cpu = [r[0] for r in runs]
                rate = [r[1] for r in runs]
                print('%-14s CPU %% of a core: median %.3f (runs %s); offsets/s: median %.1f (runs %s)'
                      % (name, statistics.median(cpu), ', '.join('%.3f' % c for c in cpu),
                         statistics.median(rate), ', '.join('%.1f' % r for r in rate)))
        finally:
            rc = daemon.stop()
            if rc != 0:
                print(daemon.stderr_tail(20), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
