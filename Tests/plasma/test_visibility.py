"""The wallpaper lets go of parallaxd while the desktop cannot be seen: under a fullscreen window (a
real Wayland client of KWin asking for fullscreen itself, Tests/wallpaper/fullscreen_window.py) and
while KWin's screen locker has locked the session; it subscribes again and moves when the desktop
shows again. The fake daemon sees each unsubscribe."""
import os

import accounts
from desktop import wait_until
from pictures import HEIGHT, WIDTH
from plasma_desktop import ROOT, wait_for_screen, wait_for_subscription

CENTRE = (WIDTH / 2, HEIGHT / 2)
GREEN = (0, 255, 0)       # fullscreen_window.py's colour


def moving(desktop, daemon, x):
    wait_for_subscription(daemon, 'the wallpaper to subscribe')
    daemon.send_offset(x, 0.0)
    desktop.wait_for_marker((CENTRE[0] - 24 * x, CENTRE[1]))


def test_a_fullscreen_window_ends_the_subscription(parallax, fake_daemon):
    daemon = fake_daemon()
    moving(parallax, daemon, 1.0)
    unsubscribes = daemon.unsubscribes
    window = parallax.client(['/usr/bin/python3', accounts.shared_copy(
        os.path.join(ROOT, 'Tests', 'wallpaper', 'fullscreen_window.py'))], name='fullscreen-window')
    try:
        assert window.stdout.readline().strip() == 'fullscreen', parallax.log('fullscreen-window')
        # It covers the whole screen, panel included.
        wait_for_screen(parallax, lambda p: p.pixel(640, 360) == GREEN and p.pixel(20, HEIGHT - 20) == GREEN, 30,
                        'the window to cover the screen')
        wait_until(lambda: daemon.subscribed_count() == 0, 30, 'the wallpaper to unsubscribe under the fullscreen window')
        assert daemon.unsubscribes == unsubscribes + 1, 'it said unsubscribe once (%d)' % (daemon.unsubscribes - unsubscribes)
        assert daemon.connection_count() == 1, 'it keeps its connection while paused'
    finally:
        parallax.stop_client(window)
    wait_until(lambda: daemon.subscribed_count() == 1, 30, 'the wallpaper to subscribe again once the window closed')
    parallax.repaint_nested()
    moving(parallax, daemon, -1.0)


def test_a_locked_screen_ends_the_subscription(parallax, fake_daemon):
    daemon = fake_daemon()
    moving(parallax, daemon, 1.0)
    unsubscribes = daemon.unsubscribes
    parallax.lock()
    try:
        wait_until(parallax.locked, 30, 'KWin to lock the session')
        wait_until(lambda: daemon.subscribed_count() == 0, 30, 'the desktop\'s wallpaper to unsubscribe while locked')
        assert daemon.unsubscribes == unsubscribes + 1
    finally:
        parallax.unlock()
        wait_until(lambda: not parallax.locked(), 30, 'the session unlocked (logind\'s Unlock)')
    wait_until(lambda: daemon.subscribed_count() == 1, 30, 'the wallpaper to subscribe again after the unlock')
    moving(parallax, daemon, -1.0)
