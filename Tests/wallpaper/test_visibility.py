"""Sense only while someone can see (docs/wallpaper.md "Visibility"), on headless sway with the
FAKE daemon (fake_daemon.py says why): a fullscreen window over the wallpaper stops sway's frame
callbacks for it, so the wallpaper unsubscribes on the same connection; closing the window brings
a frame at once and the same subscription again. The real daemon closing its sensor buffer is
test_visibility_daemon.py.

Sway 1.7's headless backend cannot switch an output off (`output … dpms off` / `disable` fail
with "Failed to commit output") and sway 1.7 has no ext-session-lock: both are
test_visibility_newer_sway.py, which runs on sway 1.10 (scripts/check-sway-trixie.sh, a Debian 13
chroot) and skips here; the lock screen is also tested on KWin (test_desktops.py) and GNOME Shell
(Tests/gnome). These tests pass on sway 1.10 too."""
import threading
import time

import pytest

from desktop import Wallpaper, wait_until
from frames import frames
from scenes import RED, image, scene
from test_flat import HEIGHT, WIDTH

DEPTH = 40
# Offsets a moving device sends while the window goes fullscreen (s between frames).
MOTION_PERIOD = 0.02
MEASURE_S = 1.0      # a window to count in, not a synchronisation: nothing should happen in it


def start(wallpaper_bin, sways, wallpapers, scene_dir, socket_path, outputs=1):
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=%d\nFit=none\n' % DEPTH)
    sway = sways(width=WIDTH, height=HEIGHT, outputs=outputs)
    w = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', socket_path, '--stats'])
    return sway, w


class Motion:
    """A device in the hand: the fake daemon sends a new offset every MOTION_PERIOD."""

    def __init__(self, daemon):
        self.daemon = daemon
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        n = 0
        while not self._stop.wait(MOTION_PERIOD):
            n += 1
            self.daemon.send_offset(round((n % 50) / 100, 4), 0)

    def stop(self):
        self._stop.set()
        self._thread.join(5)


@pytest.fixture
def motions():
    started = []

    def start(daemon):
        m = Motion(daemon)
        started.append(m)
        return m
    yield start
    for m in started:
        m.stop()


def covering_window(sway, wallpaper_bin, scene_dir):
    """An opaque toplevel (another parallax-wallpaper --window that never subscribes), made
    fullscreen over the background."""
    path = scene(scene_dir, '[Scene]\nBackground=#00ff00\nReduceMotion=on\n', name='cover.conf')
    window = Wallpaper(wallpaper_bin, sway, ['--scene', path, '--window'])
    wait_until(lambda: '"app_id": "parallax-wallpaper"' in sway.swaymsg('-t', 'get_tree'), 20, 'the window to map')
    sway.swaymsg('[app_id=parallax-wallpaper] fullscreen enable')
    return window


def paused(w):
    return w.output().count('cannot be seen')


def resumed(w):
    return w.output().count('can be seen again')


def consistent(daemon, w, outputs=1):
    """Each pause was one unsubscribe and each resume one subscribe on the same connection: what
    holds even when a loaded compositor answered a frame callback so late that the surface was
    taken for hidden for a moment (docs/wallpaper.md "Visibility")."""
    return daemon.unsubscribes == paused(w) and len(daemon.subscriptions) == outputs + resumed(w)


def covered(daemon, w):
    return daemon.subscribed_count() == 0 and paused(w) == resumed(w) + 1


def test_a_fullscreen_window_pauses_the_subscription_and_closing_it_draws_and_resumes(
        wallpaper_bin, sways, wallpapers, fake_daemon, motions, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    motions(daemon)
    wait_until(lambda: len(frames(w)) >= 10, 20, 'frames of the moving device')

    window = covering_window(sway, wallpaper_bin, scene_dir)
    wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe under the fullscreen window')
    assert daemon.unsubscribes >= 1 and consistent(daemon, w)
    assert set(daemon.subscriptions) == {(60, 0)} and w.output().count('subscribed to parallaxd') == len(daemon.subscriptions)
    # Covered, it draws nothing although the device moves on.
    drawn = len(frames(w))
    time.sleep(MEASURE_S)
    assert len(frames(w)) == drawn, 'frames were drawn under a fullscreen window'
    assert covered(daemon, w)

    window.stop()
    wait_until(lambda: len(frames(w)) > drawn, 20, 'a frame once the window closed')
    wait_until(lambda: daemon.subscribed_count() == 1, 20, 'the subscription again')
    assert consistent(daemon, w) and resumed(w) == paused(w)
    assert 'lost the connection' not in w.output(), 'it reconnected instead of pausing'
    # And it follows the device again.
    after = len(frames(w))
    wait_until(lambda: len(frames(w)) >= after + 10, 20, 'frames of the moving device after the window')


def test_a_still_picture_is_judged_at_the_next_frame_it_draws(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    # No offsets, no frames asked for: nothing says the wallpaper is covered (the daemon rests the
    # sensors of a still device anyway). The next offset asks for a frame that never comes.
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    daemon.send_offset(0.25, 0)
    wait_until(lambda: any(f[3] == 0.25 for f in frames(w)), 20, 'a frame at x=0.25')
    window = covering_window(sway, wallpaper_bin, scene_dir)
    time.sleep(MEASURE_S)
    assert daemon.unsubscribes == 0 and paused(w) == 0, 'a still wallpaper was judged without a frame'
    daemon.send_offset(0.5, 0)
    wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe at the next offset')
    window.stop()
    wait_until(lambda: daemon.subscribed_count() == 1 and resumed(w) == paused(w), 20, 'the subscription again')
    assert consistent(daemon, w)


def test_an_output_only_the_window_covers_keeps_the_other_output_subscribed(
        wallpaper_bin, sways, wallpapers, fake_daemon, motions, scene_dir):
    # Two outputs, two subscriptions: the fullscreen window covers one, the other is still seen.
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path, outputs=2)
    wait_until(lambda: daemon.subscribed_count() == 2, 20, 'a subscription per output')
    motions(daemon)
    window = covering_window(sway, wallpaper_bin, scene_dir)
    wait_until(lambda: daemon.subscribed_count() == 1 and paused(w) == resumed(w) + 1, 20, 'the covered output to unsubscribe')
    time.sleep(MEASURE_S)
    assert daemon.subscribed_count() == 1 and paused(w) == resumed(w) + 1, 'the output nobody covers paused too'
    window.stop()
    wait_until(lambda: daemon.subscribed_count() == 2 and paused(w) == resumed(w), 20, 'both subscriptions again')
    assert consistent(daemon, w, outputs=2)
