#!/usr/bin/python3
"""Motion to photon in parallax-wallpaper (BENCHMARKS.md "Motion to photon"; issue 31): the real
parallaxd replaying a device that rocks without pause, parallax-wallpaper on headless sway
(pixman, Mesa's software EGL) with --stats, which logs per presented frame the sample time `t`
behind the offset drawn, the wp_presentation time, and the prediction error against the daemon
frames around that time (docs/wallpaper.md "Motion to photon").

  /usr/bin/python3 scripts/bench/motion-to-photon.py [--daemon .build/debug/parallaxd]
      [--wallpaper .build/debug/parallax-wallpaper] [--runs 5] [--seconds 10]
      [--source-hz 100] [--refresh 60] [--rate RATE (default: the refresh)]

One daemon (replay of a rocking trace at --source-hz: 20° amplitude, 2 s period, MinimumChange=0),
one sway (one 640×360 output at --refresh Hz; or --compositor weston), and per run a new wallpaper (one flat layer,
Rate=--rate, Smoothing=0). Each run measures --seconds once the wallpaper has presented 30
resolved frames. Per run: presented frames per second, sample → presented latency p50/p95/p99
(ms), prediction error p50/p95/p99 (offset units; and p99 against the nearest frame alone), and
the floors in the same run: a plain Python subscriber at the same rate, arrival − t (ms), and the
frames a second the compositor gives weston-simple-egl drawing at each frame callback.
Targets (issue 31): latency p99 ≤ one refresh + one source period; error p99 ≤ 0.005; ≥ 60
presented frames a second. Prints a Markdown table and the medians over runs with their spread."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'integration'))
sys.path.insert(0, os.path.join(REPO, 'Tests', 'wallpaper'))
import desktop  # noqa: E402
import plx  # noqa: E402
from frames import presentation_summary, presentations  # noqa: E402
from helpers import rocking_trace  # noqa: E402

WARM_FRAMES = 30          # resolved frames before a run's window opens
WIDTH, HEIGHT = 640, 360
ERROR_TARGET = 0.005
RUN_OVERHEAD_S = 15       # trace seconds a run may use outside its window (start, warm-up, exit)


def percentile(values, p):
    """Nearest rank, as the wallpaper's own summary."""
    values = sorted(values)
    if not values:
        return float('nan')
    rank = max(1, min(len(values), int(-(-p * len(values) // 1))))
    return values[rank - 1]


def one_run(args, daemon, compositor, scene):
    window = ['--window'] if args.compositor == 'weston' else []
    w = desktop.Wallpaper(args.wallpaper, compositor, window + ['--scene', scene, '--socket', daemon.socket_path, '--stats'],
                          env={k: v for k, v in os.environ.items() if k.startswith('PARALLAX_WALLPAPER_')})
    client = None
    try:
        desktop.wait_until(lambda: len(presentations(w)) >= WARM_FRAMES or w.proc.poll() is not None, 60,
                           'presented frames from the wallpaper')
        if w.proc.poll() is not None:
            raise RuntimeError('parallax-wallpaper exited: ' + w.output()[-2000:])
        client = daemon.connect()
        client.subscribe(rate=args.rate)
        start = time.monotonic_ns()
        client.pump(args.seconds)
        end = time.monotonic_ns()
    finally:
        status = w.stop()
        if client is not None:
            client.close()
    frames = [f for f in presentations(w) if start <= f['at'] <= end]
    floor = [(arrival * 1e9 - obj['t']) / 1e6 for arrival, obj in client.frames if start <= obj['t'] <= end]
    return {
        'status': status, 'summary': presentation_summary(w), 'by': sorted({f['by'] for f in frames}),
        'presented_per_s': len(frames) / ((end - start) / 1e9),
        'latency': [percentile([f['latency_ms'] for f in frames], p) for p in (0.5, 0.95, 0.99)],
        'error': [percentile([f['error'] for f in frames], p) for p in (0.5, 0.95, 0.99)],
        'nearest_error_p99': percentile([f['nearest_error'] for f in frames], 0.99),
        'drawn_after_median': statistics.median([f['drawn_after_ms'] for f in frames]) if frames else float('nan'),
        'predicted_for_median': statistics.median([f['predicted_for_ms'] for f in frames]) if frames else float('nan'),
        'floor': [percentile(floor, p) for p in (0.5, 0.99)],
        'negative_latencies': sum(1 for f in frames if f['latency_ms'] < 0),
        'frames': frames,
    }


def compositor_floor(compositor, seconds):
    """Frames a second the compositor gives a client that does nothing but draw at each frame
    callback (weston-simple-egl -f: an xdg-shell window, EGL, a spinning triangle), measured in
    the same compositor between the runs: what presented/s is compared with."""
    windows = max(1, int(seconds // 5))
    argv = desktop.as_account(['timeout', str(5 * windows + 2), 'stdbuf', '-oL', 'weston-simple-egl', '-f'])
    out = subprocess.run(argv, env=compositor.client_env, capture_output=True, text=True,
                         cwd=desktop.accounts.NEUTRAL_CWD).stdout
    rates = [float(m) for m in re.findall(r'frames in 5 seconds: ([0-9.]+) fps', out)]
    return statistics.median(rates) if rates else float('nan')


def spread(values):
    return '%.3g (%.3g–%.3g)' % (statistics.median(values), min(values), max(values))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--daemon', default=os.path.join(REPO, '.build', 'debug', 'parallaxd'))
    ap.add_argument('--wallpaper', default=os.path.join(REPO, '.build', 'debug', 'parallax-wallpaper'))
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--seconds', type=float, default=10.0)
    ap.add_argument('--source-hz', type=float, default=100.0)
    ap.add_argument('--refresh', type=float, default=60.0)
    ap.add_argument('--rate', type=int, default=None)
    ap.add_argument('--width', type=int, default=WIDTH)
    ap.add_argument('--height', type=int, default=HEIGHT)
    ap.add_argument('--compositor', choices=('sway', 'weston'), default='sway',
                    help='weston: headless weston 10 (60 Hz, --refresh ignored), whose wp_presentation feedback sway 1.7 lacks; the wallpaper as a --window')
    ap.add_argument('--frames-json', help='also write every resolved frame of every run here (for analysis)')
    args = ap.parse_args()
    args.rate = args.rate or int(round(args.refresh))
    for path in (args.daemon, args.wallpaper):
        why = plx.binary_missing(path)
        if why:
            sys.exit('motion-to-photon: ' + why)

    work = desktop.shared_dir('plx-m2p-')
    conf = os.path.join(work, 'parallaxd.conf')
    with open(conf, 'w') as f:
        f.write('[Access]\nSubscribers=everyone\n[Motion]\nMinimumChange=0\n')
    trace_seconds = args.runs * (args.seconds + RUN_OVERHEAD_S) + 30
    source = rocking_trace(os.path.join(work, 'rock.csv'), seconds=trace_seconds, rate_hz=args.source_hz)
    image = os.path.join(desktop.readable(os.path.join(REPO, 'examples', 'scenes', 'images')), 'home-wallpaper.png')
    scene = os.path.join(work, 'scene.conf')
    with open(scene, 'w') as f:
        f.write('[Scene]\nRate=%d\nSmoothing=0\nReduceMotion=off\n[Layer wallpaper]\nImage=%s\nDepth=-32\n' % (args.rate, image))
    for path in (conf, scene, source[len('replay:'):]):
        os.chmod(path, 0o644)

    daemon = plx.Daemon(work, None, binary=args.daemon, config=conf, source=source, log_level='info').start()
    os.chmod(daemon.socket_path, 0o666)
    if args.compositor == 'weston':
        compositor = desktop.Weston(width=args.width, height=args.height)
    else:
        compositor = desktop.Sway(width=args.width, height=args.height, refresh=args.refresh)
    results = []
    try:
        for n in range(args.runs):
            r = one_run(args, daemon, compositor, scene)
            r['compositor_floor'] = compositor_floor(compositor, args.seconds)
            results.append(r)
            print('run %d: %s' % (n + 1, {k: v for k, v in r.items() if k != 'frames'}), file=sys.stderr, flush=True)
    finally:
        compositor.close()
        daemon.stop()

    if args.frames_json:
        import json
        with open(args.frames_json, 'w') as f:
            json.dump([r['frames'] for r in results], f)
    refresh_ms, source_ms = 1000 / args.refresh, 1000 / args.source_hz
    print('replay %g Hz, rocking 20° / 2 s; %s headless %g Hz, %dx%d; Rate=%d; %d runs of %g s; times by %s'
          % (args.source_hz, args.compositor, args.refresh, args.width, args.height, args.rate, args.runs, args.seconds,
             ', '.join(sorted({b for r in results for b in r['by']}))))
    print('latency target (p99): %.1f ms (refresh %.1f + source period %.1f); error target (p99): %g'
          % (refresh_ms + source_ms, refresh_ms, source_ms, ERROR_TARGET))
    print()
    print('| run | presented/s | sample→presented ms p50 / p95 / p99 | error p50 / p95 / p99 | nearest-frame error p99 '
          '| predicted for − presented, ms (median) | floor: daemon → client ms p50 / p99 '
          '| floor: weston-simple-egl frames/s |')
    print('|---|---|---|---|---|---|---|---|')
    for n, r in enumerate(results, 1):
        print('| %d | %.1f | %.2f / %.2f / %.2f | %.5f / %.5f / %.5f | %.5f | %+.2f | %.2f / %.2f | %.1f |' % (
            n, r['presented_per_s'], *r['latency'], *r['error'], r['nearest_error_p99'],
            r['predicted_for_median'], *r['floor'], r['compositor_floor']))
    print()
    print('medians (min–max) over %d runs: presented/s %s; latency p99 %s ms; error p99 %s; floor p99 %s ms; '
          'compositor floor %s frames/s (presented / floor %s)'
          % (len(results), spread([r['presented_per_s'] for r in results]), spread([r['latency'][2] for r in results]),
             spread([r['error'][2] for r in results]), spread([r['floor'][1] for r in results]),
             spread([r['compositor_floor'] for r in results]),
             spread([r['presented_per_s'] / r['compositor_floor'] for r in results])))
    bad = [n for n, r in enumerate(results, 1) if r['negative_latencies'] or r['status'] != 0]
    if bad:
        print('runs with a negative latency or a wallpaper that did not exit 0: %s' % bad)


if __name__ == '__main__':
    main()
