#!/usr/bin/python3
"""Costs of the `parallax` Python module (BENCHMARKS.md "Client kit: Python").

  dispatch  time of one Client.dispatch() that reads and decodes one offset frame (µs), measured
            in-process against a plain socket server sending one frame before each call; and per
            line when BACKLOG lines wait (a late reader draining, only the newest kept)
  cpu       CPU of a client process subscribed at 60 Hz to a real parallaxd replaying a device
            that rocks without pause, with [Motion] MinimumChange=0 (--minimum-change) so that
            every 60 Hz frame goes out (% of one core, from /proc/PID/schedstat)

Usage: PARALLAXD=.build/debug/parallaxd scripts/bench/python-client.py [--runs 3] [--seconds 20]
Each measure runs --runs times; the median and all runs are printed."""
import argparse
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'Sources', 'python'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'integration'))
import parallax  # noqa: E402
import plx  # noqa: E402

# Frames timed per dispatch run, after WARMUP_FRAMES untimed ones.
DISPATCH_FRAMES = 20000
WARMUP_FRAMES = 1000
# Lines waiting per dispatch in the backlog measurement, and how many such dispatches are timed.
BACKLOG = 100
BACKLOG_DISPATCHES = 500
# A representative frame: 4-decimal numbers as parallaxd writes them.
FRAME = ('{"type":"offset","seq":%d,"t":5123456789012,"x":0.1234,"y":-0.0456,"vx":0.2100,"vy":-0.0500}\n')
# The client process under measurement: iterate and count.
CLIENT = ('import parallax, signal, sys\n'
          'signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n'
          'n = 0\n'
          'try:\n'
          '    for o in parallax.Client(sys.argv[1], rate=60):\n'
          '        n += 1\n'
          'finally:\n'
          '    print(n, flush=True)\n')
# Time the client gets to connect and settle before the window opens (s).
SETTLE_S = 2.0


def dispatch_run():
    with tempfile.TemporaryDirectory(prefix='plxbench-') as d:
        path = os.path.join(d, 's')
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)
        c = parallax.Client(path, rate=60)
        server, _ = listener.accept()
        server.sendall(b'{"type":"hello","protocol":1}\n{"type":"subscribed","rate":60,"rotation":0,'
                       b'"id":"parallax-python-subscribe"}\n')
        c.dispatch()
        assert c.state.connected
        lines = [(FRAME % (i + 1)).encode() for i in range(WARMUP_FRAMES + DISPATCH_FRAMES)]
        times = []
        clock = time.perf_counter_ns
        for i, data in enumerate(lines):
            server.send(data)
            start = clock()
            c.dispatch()
            took = clock() - start
            if i >= WARMUP_FRAMES:
                times.append(took)
        assert c.offset.seq == len(lines)
        backlog = []
        seq = len(lines)
        for _ in range(BACKLOG_DISPATCHES):
            server.sendall(b''.join((FRAME % (seq + i + 1)).encode() for i in range(BACKLOG)))
            seq += BACKLOG
            start = clock()
            c.dispatch()
            backlog.append((clock() - start) / BACKLOG)
        assert c.offset.seq == seq
        c.close()
        server.close()
        listener.close()
    times.sort()
    n = len(times)
    return times[n // 2] / 1000, times[n // 10] / 1000, times[n * 9 // 10] / 1000, statistics.median(backlog) / 1000


def schedstat_ns(pid):
    with open('/proc/%d/schedstat' % pid) as f:
        return int(f.read().split()[0])


def rocking_trace(path, seconds=120.0, rate_hz=200.0, amplitude_deg=20.0, period_s=2.0):
    rows = []
    w = 2 * math.pi / period_s
    for i in range(int(seconds * rate_hz)):
        t = i / rate_hz
        angle = amplitude_deg * math.sin(w * t)
        rate = math.radians(amplitude_deg) * w * math.cos(w * t)
        rows.append(plx.Row(int(t * 1e9), plx.gravity_after_rotation(plx.UPRIGHT, 'y', angle), (0.0, rate, 0.0)))
    plx.write_trace(path, rows, ['rocking about +Y'])
    return 'replay:' + path


def cpu_run(seconds, minimum_change):
    with tempfile.TemporaryDirectory(prefix='plxbench-') as d:
        conf = os.path.join(d, 'bench.conf')
        with open(conf, 'w') as f:
            f.write('[Motion]\nMinimumChange=%g\n' % minimum_change)
        daemon = plx.Daemon(d, None, config=conf, source=rocking_trace(os.path.join(d, 'rock.csv')),
                            log_level='notice').start()
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, 'Sources', 'python'))
        client = subprocess.Popen(['/usr/bin/python3', '-c', CLIENT, daemon.socket_path], env=env,
                                  stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(SETTLE_S)
            cpu0, t0 = schedstat_ns(client.pid), time.monotonic_ns()
            time.sleep(seconds)
            cpu1, t1 = schedstat_ns(client.pid), time.monotonic_ns()
        finally:
            client.terminate()
            frames = int(client.communicate(timeout=10)[0].strip() or 0)
            daemon.stop()
    # Frames per second over the client's whole life (it connects within the settling time).
    return 100.0 * (cpu1 - cpu0) / (t1 - t0), frames / (SETTLE_S + seconds)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--seconds', type=float, default=20.0, help='CPU window per run (s)')
    ap.add_argument('--only', choices=('dispatch', 'cpu'))
    ap.add_argument('--minimum-change', type=float, default=0.0,
                    help='[Motion] MinimumChange for the CPU runs (shipped default 0.015)')
    args = ap.parse_args()
    print('python %s, parallax %s' % (sys.version.split()[0], parallax.__version__))
    if args.only in (None, 'dispatch'):
        runs = [dispatch_run() for _ in range(args.runs)]
        print('dispatch per offset frame: median %.1f µs (runs: %s; p10–p90 of the middle run %.1f–%.1f µs)'
              % (statistics.median(r[0] for r in runs), ', '.join('%.1f' % r[0] for r in runs),
                 sorted(runs)[len(runs) // 2][1], sorted(runs)[len(runs) // 2][2]))
        print('… per line with %d lines waiting: median %.2f µs (runs: %s)'
              % (BACKLOG, statistics.median(r[3] for r in runs), ', '.join('%.2f' % r[3] for r in runs)))
    if args.only in (None, 'cpu'):
        runs = [cpu_run(args.seconds, args.minimum_change) for _ in range(args.runs)]
        print('client at 60 Hz, moving, MinimumChange=%g: median %.2f %% of a core (runs: %s), %.1f frames/s'
              % (args.minimum_change, statistics.median(r[0] for r in runs), ', '.join('%.2f' % r[0] for r in runs),
                 statistics.median(r[1] for r in runs)))


if __name__ == '__main__':
    main()
