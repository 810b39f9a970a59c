#!/usr/bin/python3
"""Connection floods (BENCHMARKS.md): a root subscriber's frame latency with and without a flood
of 200 connections from `nobody`, and the daemon's CPU meanwhile.

  sudo scripts/bench/connection-flood.py [PARALLAXD] [--seconds S] [--runs N] [--mode idle|subscribe]

Latency = arrival (CLOCK_MONOTONIC in this process) − the frame's `t` (the sample's monotonic
time), for a 60 Hz subscriber, the device rocking (a replayed trace, MinimumChange=0: every sample
is a frame). The flood: Tests/integration/flood_client.py as nobody, keeping 200 connections open
(each one the daemon closes is opened again, at most 400 connects/s). Needs root (setpriv)."""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'integration'))
import accounts  # noqa: E402  (a copy of the flooder that nobody can read)
import helpers  # noqa: E402  (rocking_trace)

FLOOD = os.path.join(REPO, 'Tests', 'integration', 'flood_client.py')


def cpu_seconds(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def latencies(path, seconds, rate=60):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(path)
    f = s.makefile('rb')
    f.readline()
    s.sendall(b'{"cmd":"subscribe","rate":%d}\n' % rate)
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        line = f.readline()
        now = time.monotonic_ns()
        if b'"type":"offset"' in line:
            out.append((now - json.loads(line)['t']) / 1e6)
    s.close()
    return out


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run(binary, seconds, mode):
    work = tempfile.mkdtemp(prefix='plx-flood-')
    os.chmod(work, 0o755)
    source = helpers.rocking_trace(os.path.join(work, 'rocking.csv'), seconds=20)
    conf = os.path.join(work, 'c.conf')
    with open(conf, 'w') as f:
        f.write('[Motion]\nMinimumChange=0\n' + ('[Access]\nSubscribers=everyone\n' if mode == 'subscribe' else ''))
    sock = os.path.join(work, 's.sock')
    daemon = subprocess.Popen([binary, '--socket', sock, '--config', conf, '--source', source, '--log-level', 'notice'],
                              stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        latencies(sock, 1.0)                       # warm-up
        c0 = cpu_seconds(daemon.pid)
        quiet = latencies(sock, seconds)
        quiet_cpu = (cpu_seconds(daemon.pid) - c0) / seconds
        flood = subprocess.Popen(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', sys.executable,
                                  accounts.shared_copy(FLOOD), 'flood', sock, mode, '200', str(seconds + 2)],
                                 cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
        flood.stdout.readline()                    # "ready"
        c0 = cpu_seconds(daemon.pid)
        flooded = latencies(sock, seconds)
        flood_cpu = (cpu_seconds(daemon.pid) - c0) / seconds
        counts = json.loads(flood.communicate()[0].strip().splitlines()[-1])
    finally:
        daemon.terminate()
        log = daemon.communicate()[1].decode()
    return quiet, quiet_cpu, flooded, flood_cpu, counts, log


def main():
    args = sys.argv[1:]
    seconds = float(args[args.index('--seconds') + 1]) if '--seconds' in args else 10.0
    runs = int(args[args.index('--runs') + 1]) if '--runs' in args else 3
    mode = args[args.index('--mode') + 1] if '--mode' in args else 'idle'
    positional = [a for i, a in enumerate(args) if not a.startswith('--') and (i == 0 or not args[i - 1].startswith('--'))]
    binary = positional[0] if positional else os.path.join(REPO, '.build', 'release', 'parallaxd')
    print('connection flood (%s, 200 connections from nobody), root subscriber at 60 Hz, %g s per phase, %d runs, %s'
          % (mode, seconds, runs, binary))
    print()
    print('| run | quiet p50 ms | quiet p99 ms | quiet CPU % | flood p50 ms | flood p99 ms | flood CPU % | frames quiet/flood | flood connects | refusal log lines |')
    print('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    rows = []
    for i in range(runs):
        quiet, qcpu, flooded, fcpu, counts, log = run(binary, seconds, mode)
        lines = sum('uid 65534' in l for l in log.splitlines())
        row = (percentile(quiet, 0.5), percentile(quiet, 0.99), qcpu * 100,
               percentile(flooded, 0.5), percentile(flooded, 0.99), fcpu * 100)
        rows.append(row)
        print('| %d | %.2f | %.2f | %.1f | %.2f | %.2f | %.1f | %d/%d | %d | %d |' % ((i + 1,) + row + (len(quiet), len(flooded), counts['attempts'], lines)))
    med = [statistics.median(r[k] for r in rows) for k in range(6)]
    print('| median | %.2f | %.2f | %.1f | %.2f | %.2f | %.1f | | | |' % tuple(med))


if __name__ == '__main__':
    main()
