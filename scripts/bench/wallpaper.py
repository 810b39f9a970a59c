#!/usr/bin/env python3
"""parallax-wallpaper costs (BENCHMARKS.md "parallax-wallpaper"), on headless sway with Mesa's
software renderer, fed by the tests' fake daemon (chosen offsets, so runs are comparable):

  /usr/bin/python3 scripts/bench/wallpaper.py [--binary .build/release/parallax-wallpaper] [--seconds 10]

- still: one offset, then SECONDS with none: frames drawn and main-thread wake-ups (voluntary
  context switches of the loop's thread) per second;
- moving, per scene at 1920×1080: offsets at 60 Hz (a slow circle) for SECONDS: offsets sent,
  frames drawn, wake-ups (the loop's own poll(2) returns; the main thread's context switches also
  count Mesa waiting for its rasteriser threads), CPU per frame (all threads: llvmpipe rasterises on its own threads),
  frame time (draw + eglSwapBuffers, from --stats: median and 90th percentile), RSS at the end.
"""
import argparse
import math
import os
import re
import statistics
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'wallpaper'))
import desktop  # noqa: E402
from fake_daemon import FakeDaemon  # noqa: E402
from frames import frames, main_thread_wakeups  # noqa: E402

TICKS = os.sysconf('SC_CLK_TCK')
IMAGES = os.path.join(ROOT, 'examples', 'scenes', 'images')
FLAT3 = ('[Scene]\n[Layer wallpaper]\nImage=%s/home-wallpaper.png\nDepth=-32\n'
         '[Layer trees]\nImage=%s/trees.png\nDepth=-12\n[Layer icons]\nImage=%s/home-icons.png\nDepth=10\n') % ((IMAGES,) * 3)


def cpu_seconds(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        return int(re.search(r'VmRSS:\s+(\d+)', f.read())[1])


def frame_times(w):
    return [float(m[1]) for m in re.finditer(r'frame-time \d+ (\S+) ms', w.output())]


def loop_wakeups(w):
    """The loop's own count of poll(2) returns, as of the last frame."""
    found = re.findall(r'frame-time \d+ \S+ ms wakeups=(\d+)', w.output())
    return int(found[-1]) if found else 0


def run(binary, scene_path, seconds, width, height, moving):
    workdir = desktop.shared_dir('plx-bench-')
    daemon = FakeDaemon(os.path.join(workdir, 'fake.sock'))
    sway = desktop.Sway(width=width, height=height)
    w = desktop.Wallpaper(binary, sway, ['--scene', scene_path, '--socket', daemon.path, '--stats'])
    try:
        desktop.wait_until(lambda: daemon.subscribed_count(), 30, 'the subscription')
        daemon.send_offset(0.3, 0.1)
        desktop.wait_until(lambda: any(f[3] == 0.3 for f in frames(w)), 30, 'the first offset drawn')
        time.sleep(0.5)
        f0, wake0, cpu0, times0 = len(frames(w)), main_thread_wakeups(w.proc.pid), cpu_seconds(w.proc.pid), len(frame_times(w))
        loop0 = loop_wakeups(w)
        sent = 0
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            if moving:
                phase = (time.monotonic() - start) * 2 * math.pi / 4
                daemon.send_offset(round(0.5 * math.cos(phase), 4), round(0.5 * math.sin(phase), 4))
                sent += 1
                time.sleep(1 / 60)
            else:
                time.sleep(0.1)
        elapsed = time.monotonic() - start
        time.sleep(0.3)
        drawn = len(frames(w)) - f0
        result = {
            'sent': sent / elapsed, 'frames': drawn / elapsed,
            'wakeups': (main_thread_wakeups(w.proc.pid) - wake0) / elapsed,
            'loop_wakeups': (loop_wakeups(w) - loop0) / elapsed,
            'cpu_ms_per_frame': (cpu_seconds(w.proc.pid) - cpu0) * 1000 / drawn if drawn else 0.0,
            'frame_ms': frame_times(w)[times0:], 'rss_mib': rss_kib(w.proc.pid) / 1024,
        }
        return result
    finally:
        w.stop()
        sway.close()
        daemon.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--binary', default=os.path.join(ROOT, '.build', 'release', 'parallax-wallpaper'))
    ap.add_argument('--seconds', type=float, default=10.0)
    args = ap.parse_args()
    workdir = desktop.shared_dir('plx-bench-scenes-')
    flat = os.path.join(workdir, 'flat3.conf')
    with open(flat, 'w') as f:
        f.write(FLAT3)
    os.chmod(flat, 0o644)
    still = run(args.binary, flat, args.seconds, 1920, 1080, moving=False)
    print('still %.0f s, 1920x1080, 3 flat layers: %.2f frames/s, %.2f wake-ups/s' % (args.seconds, still['frames'], still['wakeups']))
    scenes = [('3 flat layers', flat), ('blur card', os.path.join(ROOT, 'examples/scenes/blur-card.conf')),
              ('perspective, 6 layers', os.path.join(ROOT, 'examples/scenes/perspective.conf'))]
    print('| scene (1920×1080, moving) | offsets/s | frames/s | loop wake-ups/s | context switches/s | CPU ms/frame | frame ms median (p90) | RSS MiB |')
    print('|---|---|---|---|---|---|---|---|')
    for name, path in scenes:
        r = run(args.binary, path, args.seconds, 1920, 1080, moving=True)
        times = sorted(r['frame_ms'])
        p90 = times[int(0.9 * (len(times) - 1))] if times else 0
        print('| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f (%.1f) | %.1f |' % (
            name, r['sent'], r['frames'], r['loop_wakeups'], r['wakeups'], r['cpu_ms_per_frame'],
            statistics.median(times) if times else 0, p90, r['rss_mib']))


if __name__ == '__main__':
    main()
