#!/usr/bin/env python3
"""Writes a screenshot of a Plasma 6 desktop with the Parallax wallpaper at work: Plasma's own
default picture (the plugin's Image left empty), the folder view's icons and the panel on top, the
picture moved by Depth × offset from a fake parallaxd (offset x = 0.8, y = −0.6: tilted right and
away). Run inside a Plasma root with the package installed: `scripts/check-plasma.sh trixie
--picture FILE.png` (docs/plasma.md "The headless Plasma tests").

    python3 Tests/plasma/plasma_picture.py OUT.png"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'wallpaper'))
import plasma_desktop  # noqa: E402
from desktop import shared_dir, wait_until  # noqa: E402
from fake_daemon import FakeDaemon  # noqa: E402

OFFSET = (0.8, -0.6)
DEPTH = -40
DESKTOP_FILES = {'Photos/': None, 'Projects/': None, 'notes.txt': 'parallaxd\n', 'tilt-me.txt': 'parallaxd\n'}


def changed(a, b, step=16):
    """How many pixels of a coarse grid differ between two screenshots."""
    return sum(1 for y in range(0, a.height, step) for x in range(0, a.width, step)
               if a.pixel(x, y) != b.pixel(x, y))


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: plasma_picture.py OUT.png')
    out = sys.argv[1]
    folder = shared_dir('plx-plasma-picture-')
    socket_path = os.path.join(folder, 'parallaxd.sock')
    daemon = FakeDaemon(socket_path)
    desktop = plasma_desktop.PlasmaDesktop(socket_path, desktop_files=DESKTOP_FILES)
    try:
        # Plasma's default picture shown first, then the plugin chosen with Image empty: it takes
        # the picture the desktop showed.
        plasma_desktop.wait_for_screen(desktop, lambda p: p.pixel(640, 300) != (0, 0, 0), 120, 'the desktop drawn')
        desktop.set_wallpaper(plasma_desktop.PLUGIN, Depth=DEPTH)
        wait_until(lambda: daemon.subscribed_count() > 0, 60, 'the wallpaper to subscribe')
        daemon.send_offset(0.0, 0.0)
        rest = plasma_desktop.wait_for_screen(desktop, lambda p: p if p.pixel(640, 300) != (0, 0, 0) else None, 60,
                                              'the picture at rest')
        daemon.send_offset(*OFFSET)
        plasma_desktop.wait_for_screen(desktop, lambda p: changed(rest, p) > 500, 60, 'the picture moved')
        # Drawn and settled: two screenshots in a row alike.
        previous = [desktop.screenshot()]

        def settled(pic):
            same = changed(previous[0], pic, step=8) == 0
            previous[0] = pic
            return same
        plasma_desktop.wait_for_screen(desktop, settled, 30, 'the picture settled')
        desktop.save_screenshot(out, level=9)
        print('wrote %s: Plasma desktop, Parallax wallpaper at Depth %d, offset x=%.1f y=%.1f' % ((out, DEPTH) + OFFSET))
    finally:
        desktop.close()
        daemon.close()


if __name__ == '__main__':
    main()
