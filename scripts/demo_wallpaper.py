#!/usr/bin/env python3
"""The wallpaper part of the demo: parallax-wallpaper on a headless Wayland desktop (sway, pixman
renderer, Mesa's software EGL), driven by the real parallaxd playing the bundled motion recording
through an emulated IIO device. Each example scene runs for a few seconds while grim takes
screenshots; the result is an animated PNG and a still contact sheet (rows: home screen, blur card,
perspective, panorama, mesh; columns: moments of the recording). Capture starts once the scene is
on screen (a screenshot that differs from the empty desktop), so every cell shows its scene.
When gnome-shell is installed, a last row shows GNOME's own desktop background moved by the GNOME
Shell extension (Sources/gnome-extension) under a headless gnome-shell, fed by the same daemon.

  /usr/bin/python3 scripts/demo_wallpaper.py [--bin-dir .build/debug] [--seconds 4] [--pictures DIR (default .build-demo)]

The daemon runs with [Motion] Sensitivity=3 so the recording's modest tilts read in a small
picture (the default maps 90° of tilt to full offset, as iOS does). Prints where the pictures are.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, 'Tests', 'integration'))
sys.path.insert(0, os.path.join(REPO_ROOT, 'Tests', 'wallpaper'))
sys.path.insert(0, os.path.join(REPO_ROOT, 'Tests', 'gnome'))
sys.path.insert(0, os.path.join(REPO_ROOT, 'scripts'))
import desktop  # noqa: E402  (headless sway as an unprivileged account, grim)
import plx  # noqa: E402  (emulated IIO device, the real daemon, the trace player)
import pngkit  # noqa: E402

SCENES = ['home-screen', 'blur-card', 'perspective', 'panorama', 'mesh']
SHEET_COLUMNS = 4
FRAME_INTERVAL = 0.1     # seconds between screenshots (grim itself takes a few tens of ms)
PICTURE_SCALE = 2        # the pictures are the 640×360 output at half size
GNOME_SCALE = 4          # gnome-shell's 1280×720 virtual monitor at a quarter: the same cell size
GNOME_DEPTH = -60        # logical px at full offset: recessed, large enough to read in a cell
DAEMON_CONFIG = '[Access]\nSubscribers=everyone\n[Motion]\nSensitivity=3\n'


def say(msg):
    print('[demo] ' + msg, file=sys.stderr, flush=True)


def capture(sway, seconds):
    frames, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        frames.append(sway.screenshot().rgb().scaled_down(PICTURE_SCALE))
        time.sleep(max(0.0, FRAME_INTERVAL - (time.monotonic() - started)))
    return frames


def capture_gnome(socket_path, seconds):
    """Screenshots of a headless gnome-shell's desktop whose background the real extension
    moves, fed by the daemon at socket_path; the background is the home-screen scene's wallpaper."""
    import shell   # Tests/gnome: gnome-shell on private buses in a throwaway HOME
    picture = os.path.join(REPO_ROOT, 'examples', 'scenes', 'images', 'home-wallpaper.png')
    gnome = shell.GnomeShell(settings={'socket': repr(socket_path), 'depth': str(GNOME_DEPTH)}, picture=picture)
    say('headless gnome-shell running with the parallax extension (software rendering)')
    try:
        shell.wait_until(lambda: gnome.eval(shell.SUBSCRIBED) == 'true', 30, 'the extension to subscribe')
        # At least two screenshots per column: a screenshot takes longer than FRAME_INTERVAL here.
        frames, deadline = [], time.monotonic() + seconds
        while time.monotonic() < deadline or len(frames) < 2 * SHEET_COLUMNS:
            started = time.monotonic()
            frames.append(gnome.screenshot().scaled_down(GNOME_SCALE))
            time.sleep(max(0.0, FRAME_INTERVAL - (time.monotonic() - started)))
        return frames
    finally:
        gnome.close()


def contact_sheet(rows):
    w, h = rows[0][0].width, rows[0][0].height
    gap = 4
    sheet = pngkit.Picture.filled(SHEET_COLUMNS * (w + gap) + gap, len(rows) * (h + gap) + gap, (24, 24, 28))
    for r, frames in enumerate(rows):
        picks = [frames[int(i * (len(frames) - 1) / (SHEET_COLUMNS - 1))] for i in range(SHEET_COLUMNS)]
        for c, pic in enumerate(picks):
            ox, oy = gap + c * (w + gap), gap + r * (h + gap)
            for y in range(h):
                start = ((oy + y) * sheet.width + ox) * 3
                sheet.data[start:start + w * 3] = pic.data[y * w * 3:(y + 1) * w * 3]
    return sheet


def main(argv=None):
    ap = argparse.ArgumentParser(description='parallax-wallpaper demo on a headless Wayland desktop')
    ap.add_argument('--bin-dir', default=os.path.join(REPO_ROOT, '.build', 'debug'))
    ap.add_argument('--seconds', type=float, default=4.0, help='seconds per scene (default 4)')
    ap.add_argument('--trace', default=os.path.join(REPO_ROOT, 'examples', 'traces', 'ngimu.csv'))
    # In the clone (ignored by git): a fixed folder in /tmp belongs to whoever ran the demo first,
    # and another user's run could not write its pictures there.
    ap.add_argument('--pictures', default=os.path.join(REPO_ROOT, '.build-demo'),
                    help='where to write the pictures (default: .build-demo in the clone)')
    args = ap.parse_args(argv)
    binaries = {name: os.path.join(os.path.abspath(args.bin_dir), name) for name in ('parallaxd', 'parallax-wallpaper')}
    for path in binaries.values():
        why = plx.binary_missing(path)
        if why:
            say('cannot run the wallpaper demo: %s' % why)
            return 2

    workdir = tempfile.mkdtemp(prefix='plx-wdemo-', dir='/tmp')
    os.chmod(workdir, 0o755)          # the wallpaper runs as an unprivileged account
    config = os.path.join(workdir, 'parallaxd.conf')
    with open(config, 'w') as f:
        f.write(DAEMON_CONFIG)
    testbed = player = daemon = sway = None
    rows, failures, drawn = [], [], {}
    try:
        comments, trace_rows = plx.read_trace(args.trace)
        testbed = plx.Testbed()
        start = next((r.accel for r in trace_rows if r.accel is not None), plx.UPRIGHT)
        device = testbed.add(plx.bmi160_16g(0, initial_accel=start))
        daemon = plx.Daemon(workdir, testbed, binary=binaries['parallaxd'], config=config, log_level='info')
        daemon.start()
        os.chmod(daemon.socket_path, 0o666)
        say('parallaxd ready (pid %d), playing %s through an emulated BMI160' % (daemon.pid, os.path.relpath(args.trace, REPO_ROOT)))
        player = plx.TracePlayer(testbed, device, device, args.trace, loop=True).start()
        sway = desktop.Sway(width=640, height=360)
        say('headless sway running as %s (pixman renderer); parallax-wallpaper draws with Mesa\'s software EGL' % desktop.ACCOUNT)
        # The wallpaper runs as that account, which may not reach the clone (one under /root).
        scenes = desktop.readable(os.path.join(REPO_ROOT, 'examples', 'scenes'))
        # The desktop with no wallpaper: a scene is on screen once a screenshot differs from it
        # (the first frame drawn is not yet the first frame composited and captured).
        empty = sway.screenshot().data
        for name in SCENES:
            scene = os.path.join(scenes, name + '.conf')
            w = desktop.Wallpaper(binaries['parallax-wallpaper'], sway, ['--scene', scene, '--socket', daemon.socket_path, '--stats'])
            try:
                desktop.wait_until(lambda: 'frame 1 ' in w.output() or w.proc.poll() is not None, 30, 'the first frame of ' + name)
                if w.proc.poll() is not None:
                    raise RuntimeError('parallax-wallpaper exited: ' + w.output()[-500:])
                desktop.wait_until(lambda: sway.screenshot().data != empty, 30, name + ' on screen')
                frames = capture(sway, args.seconds)
            finally:
                w.stop()
            drawn[name] = w.output().count('\nparallax-wallpaper: frame ') + w.output().startswith('parallax-wallpaper: frame ')
            rows.append(frames)
            say('%s: %d screenshots, %d frames drawn by the wallpaper' % (name, len(frames), drawn[name]))
            if drawn[name] < 2:
                failures.append('%s: the wallpaper did not move (is the recording playing?)' % name)
        if shutil.which('gnome-shell'):
            frames = capture_gnome(daemon.socket_path, args.seconds)
            rows.append(frames)
            moved = len({bytes(f.data) for f in frames})
            say('GNOME: %d screenshots of the desktop, %d different' % (len(frames), moved))
            if moved < 2:
                failures.append('GNOME: the background did not move (is the recording playing?)')
        else:
            say('gnome-shell is not installed: no GNOME row (scripts/setup.sh installs it)')
    except (plx.DaemonError, plx.HarnessError, RuntimeError, AssertionError) as e:
        failures.append(str(e))
    finally:
        if player is not None:
            player.stop()
        if sway is not None:
            sway.close()
        if daemon is not None and daemon.proc is not None:
            if daemon.stop() != 0:
                failures.append('parallaxd did not exit cleanly')
        if testbed is not None:
            testbed.close()
        shutil.rmtree(workdir, ignore_errors=True)

    if len(rows) >= len(SCENES):
        os.makedirs(args.pictures, exist_ok=True)
        animation = os.path.join(args.pictures, 'parallax-wallpaper.png')
        sheet = os.path.join(args.pictures, 'parallax-wallpaper-sheet.png')
        pngkit.write_apng(animation, [f for frames in rows for f in frames], int(FRAME_INTERVAL * 1000))
        pngkit.write(sheet, contact_sheet(rows))
        print('demo: parallax-wallpaper pictures: %s (animated PNG, %d frames) and %s (contact sheet)'
              % (animation, sum(len(r) for r in rows), sheet), flush=True)
    print('demo: parallax-wallpaper %s' % ('OK' if not failures else 'FAILED: ' + '; '.join(failures)), flush=True)
    return 0 if not failures else 1


if __name__ == '__main__':
    sys.exit(main())
