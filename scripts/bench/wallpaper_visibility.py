#!/usr/bin/env python3
"""Sense only while someone can see, timed (BENCHMARKS.md "Wallpaper visibility"): the real
parallaxd (default Linger=2 s) reading an emulated buffered IMU that swings back and forth
(umockdev, Tests/integration/plx), parallax-wallpaper on headless sway, and a fullscreen window
put over it and closed, CYCLES times:

  /usr/bin/python3 scripts/bench/wallpaper_visibility.py [--binary .build/debug/parallax-wallpaper] [--cycles 5]

Per cycle, from just before `swaymsg fullscreen enable`:
- hidden: the wallpaper's "cannot be seen" line (its at=, CLOCK_MONOTONIC);
- buffer off: the emulated device's buffer/enable read 0 (polled every 5 ms);
and from just before the covering window is sent SIGTERM:
- window gone: the window's process reaped (a floor: the close cannot be seen before it);
- drawn: the wallpaper's "can be seen again" line, written once the frame it draws at once is
  committed (its at=);
- buffer on: buffer/enable read 1 again."""
import argparse
import os
import re
import shutil
import statistics
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'wallpaper'))
import desktop  # noqa: E402
import plx  # noqa: E402  (desktop.py puts Tests/integration on the path)
from desktop import wait_until  # noqa: E402
from scenes import RED, image, scene  # noqa: E402
from test_visibility_daemon import Swinging  # noqa: E402

POLL_S = 0.005


def at_times(w, text):
    return [int(m[1]) for m in re.finditer(re.escape(text) + r'.* at=(\d+)', w.output())]


def wait_buffer(testbed, device, want, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if testbed.get_raw(device, 'buffer/enable') == want:
            return time.monotonic_ns()
        time.sleep(POLL_S)
    raise AssertionError('buffer/enable never read %s' % want)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--binary', default=os.path.join(ROOT, '.build', 'debug', 'parallax-wallpaper'))
    parser.add_argument('--cycles', type=int, default=5)
    args = parser.parse_args()

    workdir = desktop.shared_dir('plx-vb-')
    testbed = plx.Testbed()
    device = testbed.add(plx.buffered_bmi160(0))
    feeder = plx.ScanFeeder(testbed, device, rate_hz=200.0).start()
    config = os.path.join(workdir, 'parallaxd.conf')
    with open(config, 'w') as f:
        f.write('[Access]\nSubscribers=everyone\n')          # Linger= as shipped: 2 s
    daemon = plx.Daemon(workdir, testbed, config=config).start()
    image(workdir, 'back.png', 160, 100, RED)
    path = scene(workdir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    cover = scene(workdir, '[Scene]\nBackground=#00ff00\nReduceMotion=on\n', name='cover.conf')
    sway = desktop.Sway(width=640, height=360)
    w = desktop.Wallpaper(args.binary, sway, ['--scene', path, '--socket', daemon.socket_path, '--stats'])
    swinging = Swinging(testbed, device)
    rows = []
    try:
        wait_until(lambda: 'subscribed to parallaxd' in w.output(), 30, 'the subscription')
        wait_buffer(testbed, device, '1')
        for _ in range(args.cycles):
            window = desktop.Wallpaper(args.binary, sway, ['--scene', cover, '--window'])
            wait_until(lambda: '"app_id": "parallax-wallpaper"' in sway.swaymsg('-t', 'get_tree'), 20, 'the window')
            hidden_before = len(at_times(w, 'cannot be seen'))
            shown_before = len(at_times(w, 'can be seen again'))
            t_cover = time.monotonic_ns()
            sway.swaymsg('[app_id=parallax-wallpaper] fullscreen enable')
            t_off = wait_buffer(testbed, device, '0')
            hidden = at_times(w, 'cannot be seen')[hidden_before:]
            t_close = time.monotonic_ns()
            window.proc.terminate()
            window.proc.wait(10)
            t_gone = time.monotonic_ns()
            window.stop()
            t_on = wait_buffer(testbed, device, '1')
            wait_until(lambda: len(at_times(w, 'can be seen again')) > shown_before, 20, 'the frame after the close')
            shown = at_times(w, 'can be seen again')[shown_before:]
            rows.append({'hidden': (hidden[-1] - t_cover) / 1e6, 'pauses': len(hidden), 'buffer off': (t_off - t_cover) / 1e6,
                         'window gone': (t_gone - t_close) / 1e6, 'drawn': (shown[0] - t_close) / 1e6,
                         'buffer on': (t_on - t_close) / 1e6})
            print(' '.join('%s=%.0f' % (k, v) for k, v in rows[-1].items()), flush=True)
            wait_until(lambda: len(re.findall(r'^parallax-wallpaper: frame ', w.output(), re.M)) > 0, 5, 'frames')
    finally:
        swinging.stop()
        w.stop()
        sway.close()
        daemon.stop()
        feeder.stop()
        testbed.close()
        shutil.rmtree(workdir, ignore_errors=True)
    print('\nmedian (min–max) over %d cycles, ms:' % len(rows))
    for key in ('hidden', 'buffer off', 'window gone', 'drawn', 'buffer on'):
        values = [r[key] for r in rows]
        print('  %-12s %7.0f  (%.0f–%.0f)' % (key, statistics.median(values), min(values), max(values)))
    print('  pauses per cover: %s' % [r['pauses'] for r in rows])


if __name__ == '__main__':
    main()
