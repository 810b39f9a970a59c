"""The checks of test_flat.py, test_reduce_motion.py, test_outputs.py and test_visibility.py on
the other compositors people run parallax-wallpaper on: KWin 5.27 (KDE Plasma's compositor,
`kwin_wayland --virtual`, kwin.py) and phoc 0.24 (Phosh's, phoc.py), both headless, with the FAKE
daemon (fake_daemon.py says why). Sway runs the full set in those files; here each desktop gets
one run of each check, to keep the suite's time (scripts/test.sh says what it costs).

What a desktop cannot show is said where its case is left out (and in docs/wallpaper.md)."""
import os
import signal
import subprocess
import time

import pytest

import accounts
from desktop import as_account, find_box, near, readable, wait_until
from frames import frames
from kwin import Kwin
from phoc import Phoc
from scenes import GREEN, RED, image, scene
from test_flat import HEIGHT, WIDTH, wait_for_box
from test_pacing import centre_for
from test_visibility import MEASURE_S, consistent, covered, motions, paused, resumed  # noqa: F401 (fixture)

HERE = os.path.dirname(os.path.abspath(__file__))
DESKTOPS = {'kwin': Kwin, 'phoc': Phoc}


@pytest.fixture(params=sorted(DESKTOPS))
def compositors(request):
    """start(**kw) → a running compositor of this test's desktop; all are closed at the end."""
    started = []

    def start(**kw):
        c = DESKTOPS[request.param](**kw)
        started.append(c)
        return c
    yield start
    for c in started:
        c.close()


def settled(desktop, daemon, w, colour=RED, centre=None):
    """Waits for the picture at rest on screen and a live subscription. KWin's first frame on
    llvmpipe may come later than the visibility rule's 500 ms, which pauses the subscription
    until it comes (docs/wallpaper.md "Visibility"): an offset sent meanwhile would reach nobody.
    Once the frame is on screen its callback has been sent, so nothing is pending to pause on."""
    wait_for_box(desktop, colour, centre or (WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5), 'the picture at rest')
    wait_until(lambda: daemon.subscribed_count() == 1 and paused(w) == resumed(w), 20, 'a live subscription')


def layered_scene(scene_dir):
    image(scene_dir, 'back.png', 160, 100, RED)
    image(scene_dir, 'front.png', 40, 40, GREEN)
    return scene(scene_dir, '[Scene]\nBackground=#000000\n'
                 '[Layer recessed]\nImage=back.png\nDepth=-40\nFit=none\n'
                 '[Layer floating]\nImage=front.png\nDepth=30\nFit=none\n')


def test_layers_move_depth_times_offset(wallpaper_bin, compositors, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    desktop = compositors(width=WIDTH, height=HEIGHT)
    w = wallpapers(desktop, wallpaper_bin, ['--scene', layered_scene(scene_dir), '--socket', daemon.path])
    wait_until(lambda: daemon.subscriptions, 20, 'the wallpaper to subscribe')
    assert set(daemon.subscriptions) == {(60, 0)}
    cx, cy = WIDTH / 2 - 0.5, HEIGHT / 2 - 0.5
    settled(desktop, daemon, w)       # the recessed layer centred before any offset
    x, y = 0.5, -0.25
    daemon.send_offset(x, y)
    wait_for_box(desktop, RED, (cx - 40 * x, cy - 40 * y), 'the recessed layer (Depth -40) at %r' % ((x, y),))
    wait_for_box(desktop, GREEN, (cx + 30 * x, cy + 30 * y), 'the floating layer (Depth 30) at %r' % ((x, y),))


def test_the_daemons_reduce_motion_centres_and_stays(wallpaper_bin, compositors, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon(reduce_motion=True)
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    desktop = compositors(width=WIDTH, height=HEIGHT)
    w = wallpapers(desktop, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'])
    settled(desktop, daemon, w)
    daemon.send_offset(0.5, 0.5)
    daemon.set_reduce_motion(False)
    wait_for_box(desktop, RED, centre_for(0.5, 0.5), 'the layer moving once reduce motion is off')
    daemon.set_reduce_motion(True)
    wait_for_box(desktop, RED, centre_for(0, 0), 'the layer centred when the daemon says reduce motion')
    count = len(frames(w))
    daemon.send_offset(-0.75, 0.25)
    wait_for_box(desktop, RED, centre_for(0, 0), 'the layer still centred after more offsets')
    assert all(f[3] == 0 and f[4] == 0 for f in frames(w)[count:]), 'a frame moved in reduce motion'


def test_a_rotated_output_subscribes_with_its_rotation_and_moves_in_its_own_axes(
        wallpaper_bin, compositors, wallpapers, fake_daemon, scene_dir):
    image(scene_dir, 'back.png', 60, 40, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    daemon = fake_daemon()
    desktop = compositors(width=640, height=360, transform=90)
    rotation = desktop.announced_transforms()[0]
    assert rotation in (90, 270), 'the compositor should announce a quarter turn'
    w = wallpapers(desktop, wallpaper_bin, ['--scene', path, '--socket', daemon.path])
    pic = desktop.screenshot()
    assert (pic.width, pic.height) == (360, 640), 'the screenshot shows the output as its viewer sees it'
    settled(desktop, daemon, w, centre=(180 - 0.5, 320 - 0.5))
    assert set(daemon.subscriptions) == {(60, rotation)}
    daemon.send_offset(0.5, 0.25)
    wait_for_box(desktop, RED, (180 - 0.5 + 20, 320 - 0.5 + 10), 'the layer moved in the rotated output\'s axes')


class FullscreenWindow:
    """fullscreen_window.py: a GTK window that makes itself fullscreen over the wallpaper."""

    def __init__(self, desktop):
        env = dict(desktop.client_env, GDK_BACKEND='wayland', NO_AT_BRIDGE='1', GTK_A11Y='none')
        self.proc = subprocess.Popen(as_account(['/usr/bin/python3', readable(os.path.join(HERE, 'fullscreen_window.py'))]),
                                     env=env, cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line == 'fullscreen', 'the window did not become fullscreen (%r)' % line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def moving_wallpaper(wallpaper_bin, compositors, wallpapers, fake_daemon, motions, scene_dir, **desktop_options):
    """A wallpaper subscribed to a device that moves all the time, 10 frames drawn: (daemon, desktop, wallpaper)."""
    daemon = fake_daemon()
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    desktop = compositors(width=WIDTH, height=HEIGHT, **desktop_options)
    w = wallpapers(desktop, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'])
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    motions(daemon)
    wait_until(lambda: len(frames(w)) >= 10, 20, 'frames of the moving device')
    return daemon, desktop, w


# phoc 0.24 keeps answering the background's frame callbacks under a fullscreen window (the
# wallpaper drew 20 frames for 20 offsets, covered), and wlroots 0.15's headless backend cannot
# switch an output off: phoc cannot say the wallpaper is unseen, so only KWin runs this.
@pytest.mark.parametrize('compositors', ['kwin'], indirect=True)
def test_a_fullscreen_window_pauses_the_subscription_and_closing_it_resumes(
        wallpaper_bin, compositors, wallpapers, fake_daemon, motions, scene_dir):
    daemon, desktop, w = moving_wallpaper(wallpaper_bin, compositors, wallpapers, fake_daemon, motions, scene_dir)
    window = FullscreenWindow(desktop)
    try:
        wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe under the fullscreen window')
        assert consistent(daemon, w)
        assert find_box(desktop.screenshot(), lambda c: near(c, RED, 40)) is None, 'the wallpaper shows through'
        drawn = len(frames(w))
        time.sleep(MEASURE_S)
        assert len(frames(w)) == drawn and covered(daemon, w), 'frames were drawn under the fullscreen window'
    finally:
        window.stop()
    drawn = len(frames(w))
    wait_until(lambda: len(frames(w)) > drawn, 20, 'a frame once the window closed')
    wait_until(lambda: daemon.subscribed_count() == 1 and resumed(w) == paused(w), 20, 'the subscription again')
    assert consistent(daemon, w)


# The lock screen: KWin 5.27 shows only the locker's window while locked (its greeter,
# kscreenlocker_greet, falls back to its built-in screen here: Plasma's QML is not installed), so
# the background gets no frame callbacks. Sway 1.7 has no ext-session-lock and swaylock's overlay
# leaves them running; phoc 0.24 keeps answering covered surfaces; GNOME's is Tests/gnome.
@pytest.mark.parametrize('compositors', ['kwin'], indirect=True)
def test_a_locked_session_pauses_the_subscription_and_unlocking_resumes(
        wallpaper_bin, compositors, wallpapers, fake_daemon, motions, scene_dir):
    daemon, desktop, w = moving_wallpaper(wallpaper_bin, compositors, wallpapers, fake_daemon, motions, scene_dir,
                                          lock_screen=True)
    assert not desktop.locked()

    desktop.lock()
    wait_until(desktop.locked, 20, 'KWin to lock the session')
    # (KWin takes no screenshot while locked: what the lock screen shows is not for a client.)
    wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe under the lock screen')
    assert consistent(daemon, w)
    drawn = len(frames(w))
    time.sleep(MEASURE_S)
    assert len(frames(w)) == drawn and covered(daemon, w), 'frames were drawn while locked'

    desktop.unlock()
    wait_until(lambda: not desktop.locked(), 20, 'KWin to unlock the session')
    wait_until(lambda: len(frames(w)) > drawn, 20, 'a frame once unlocked')
    wait_until(lambda: daemon.subscribed_count() == 1 and resumed(w) == paused(w), 20, 'the subscription again')
    assert consistent(daemon, w)
    assert 'lost the connection' not in w.output(), 'it reconnected instead of pausing'
    after = len(frames(w))
    wait_until(lambda: len(frames(w)) >= after + 10, 20, 'frames of the moving device after the unlock')


def test_the_background_mapped_last_is_on_top(wallpaper_bin, compositors, wallpapers, scene_dir):
    # Why parallax-wallpaper goes in the bottom layer on phoc (docs/wallpaper.md "Under desktop
    # shells: Plasma and Phosh"): of two surfaces in one layer the one mapped last is on top, even
    # when the other draws again. KWin 5.27 puts layer-shell backgrounds in its DesktopLayer, where
    # plasmashell's desktop window is too; phoc stacks its layers so, and phosh's own background
    # is in the background layer (the wallpaper's two instances here share the bottom layer). With
    # the shells themselves: test_plasmashell.py, test_phosh.py.
    desktop = compositors(width=WIDTH, height=HEIGHT)
    first = scene(scene_dir, '[Scene]\nBackground=#00ff00\n', name='first.conf')
    second = scene(scene_dir, '[Scene]\nBackground=#ff0000\n', name='second.conf')
    none = os.path.join(scene_dir, 'none.sock')
    a = wallpapers(desktop, wallpaper_bin, ['--scene', first, '--socket', none, '--stats'])
    wait_until(lambda: near(desktop.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3], GREEN, 2), 20, 'the first background')
    wallpapers(desktop, wallpaper_bin, ['--scene', second, '--socket', none])
    wait_until(lambda: near(desktop.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3], RED, 2), 20, 'the second on top')
    drawn = len(frames(a))
    a.proc.send_signal(signal.SIGHUP)      # the first draws a new frame
    wait_until(lambda: len(frames(a)) > drawn, 20, 'the first to draw again')
    assert near(desktop.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3], RED, 2), 'a new frame raised the first'
