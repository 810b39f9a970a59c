"""parallax-wallpaper under the real Phosh (phosh.py: phosh 0.24 on headless phoc 0.24 here, 0.46
in a Debian 13 root through scripts/check-phosh-trixie.sh), with the FAKE daemon (fake_daemon.py
says why). docs/wallpaper.md "Under desktop shells: Plasma and Phosh".

- The scene lies above phosh's own background (blue here) whichever started first, and still after
  phosh restarts (phosh maps a new background then); phosh's top bar and home bar stay above it.
  On phoc the wallpaper goes in the layer-shell bottom layer, phosh's background in the background
  layer: stacking by layer, not by who mapped last.
- The app grid covers it.
- The lock screen pauses the subscription and nothing is drawn while the device moves. phoc 0.24
  goes on answering a covered background's frame callbacks, so the wallpaper hears the lock from
  phosh's org.gnome.ScreenSaver ActiveChanged signal. Unlocked as a user does (the PIN typed on
  the lock screen and Return, checked by PAM's pam_unix: phosh.py says how the test account gets
  a PIN without touching the host), it subscribes and draws again, and the scene shows above
  phosh's background. Unlocking needs root (phosh.py); as another user that part skips.
  Phosh 0.46 blanks the screen with the lock (the output off: no frame callbacks either); the test
  wakes it before typing the PIN. Woken, the lock screen still covers the wallpaper, but phosh
  0.46 then says on org.gnome.ScreenSaver that it is inactive: the wallpaper also follows
  logind's LockedHint of the user's session, which phosh 0.46 sets when it locks and unlocks
  (0.24 does not), and stays paused there. No logind runs here: the stand-in (stand_in_logind.py) on phosh's private system
  bus takes its place, and phosh finds its session through a sd-login user file in its private
  mount namespace (phosh.py; as root only: not as root, phosh sets no LockedHint and the woken
  lock screen's test skips). The lock rule itself (locked while either word says so, whatever the
  other) is tested against the stand-in with LockedHint set by the test, as a lock screen does.

Not tested, since nothing tells a client: the app grid pausing the subscription (phosh says on no
bus whether its home is unfolded, and phoc answers the frame callbacks of what it covers)."""
import os
import shutil
import time

import pytest

from desktop import ROOT, find_box, near, readable, wait_until
from frames import frames
from phosh import BACKGROUND, PHOSH, Phosh
from scenes import RED, image, scene
from test_visibility import MEASURE_S, motions  # noqa: F401 (fixture)

WIDTH, HEIGHT = 640, 360
# Where phosh's top bar and home bar are, in every phosh this runs under (32 px or more each).
TOP_BAR = (WIDTH // 4, 4)
HOME_BAR = (WIDTH // 4, HEIGHT - 4)
SETTLE_S = 1.0                  # no frame for this long: drawing has stopped (phosh 0.24 may cause one
                                # more frame, at the last offset, a few hundred ms after the pause)



@pytest.fixture
def phosh():
    if not shutil.which('wtype') or not os.path.exists(PHOSH):
        pytest.fail('phosh and wtype are not installed (scripts/setup.sh installs them: phosh wtype)')
    desktop = Phosh(width=WIDTH, height=HEIGHT)
    yield desktop
    desktop.close()


def red_scene(scene_dir):
    return scene(scene_dir, '[Scene]\nBackground=#ff0000\nReduceMotion=on\n', name='red.conf')


def assert_bars_on_top(desktop):
    pic = desktop.screenshot()
    for where in (TOP_BAR, HOME_BAR):
        colour = pic.pixel(*where)[:3]
        assert not near(colour, RED, 40) and not near(colour, BACKGROUND, 40), \
            'phosh\'s bar at %r shows %r: the scene is not under it' % (where, colour)


@pytest.mark.parametrize('first', ['wallpaper', 'phosh'])
def test_the_scene_is_above_phoshs_background_whichever_starts_first(
        wallpaper_bin, phosh, wallpapers, scene_dir, first):
    if first == 'phosh':
        phosh.start_phosh()
        phosh.show_desktop()                # phosh's own background is what shows before
        assert not near(phosh.centre(), RED, 40)
        wallpapers(phosh, wallpaper_bin, ['--scene', red_scene(scene_dir)], env=phosh.bus_env)
        # (phosh 0.46 may open its app grid a moment after its top bar shows: folded again here.)
        phosh.show_desktop(RED)
    else:
        w = wallpapers(phosh, wallpaper_bin, ['--scene', red_scene(scene_dir)], env=phosh.bus_env)
        wait_until(lambda: near(phosh.centre(), RED, 2), 20, 'the scene on bare phoc')
        assert 'bottom layer' in w.output()
        phosh.start_phosh()
        phosh.show_desktop(RED)
    assert_bars_on_top(phosh)


def test_the_scene_stays_above_phoshs_background_after_phosh_restarts(wallpaper_bin, phosh, wallpapers, scene_dir):
    phosh.start_phosh()
    wallpapers(phosh, wallpaper_bin, ['--scene', red_scene(scene_dir)], env=phosh.bus_env)
    phosh.show_desktop(RED)
    phosh.stop_phosh()
    phosh.start_phosh()                     # a new background surface, mapped after the wallpaper's
    phosh.show_desktop(RED)
    assert_bars_on_top(phosh)


def test_the_autostart_entry_starts_the_scene_in_a_phosh_session(wallpaper_bin, phosh, scene_dir):
    if Phosh.version() >= (0, 46):
        pytest.skip('Phosh 0.46\'s phosh-session runs gnome-session under systemd, where the entry is hidden '
                    '(X-GNOME-HiddenUnderSystemd) and the user unit starts the wallpaper')
    # The entry the package installs in /etc/xdg/autostart, its Exec= naming the binary under test
    # (as the Makefile names the installed one), started by gnome-session as phosh-session does;
    # the scene is the user's default one, which its AutostartCondition asks for.
    with open(os.path.join(ROOT, 'systemd', 'parallax-wallpaper-autostart.desktop')) as f:
        entry = f.read().replace('Exec=/usr/bin/parallax-wallpaper', 'Exec=' + readable(wallpaper_bin))
    assert 'Exec=' + readable(wallpaper_bin) in entry
    config = os.path.join(phosh.home, '.config', 'parallax-wallpaper')
    os.makedirs(config)
    with open(red_scene(scene_dir)) as f:
        phosh.write_config(os.path.join('.config', 'parallax-wallpaper', 'scene.conf'), f.read())
    phosh.start_session(entry)
    phosh.show_desktop(RED)
    assert_bars_on_top(phosh)


def test_the_app_grid_covers_the_scene(wallpaper_bin, phosh, wallpapers, scene_dir):
    phosh.start_phosh()
    wallpapers(phosh, wallpaper_bin, ['--scene', red_scene(scene_dir)], env=phosh.bus_env)
    phosh.show_desktop(RED)
    phosh.show_app_grid()
    wait_until(lambda: find_box(phosh.screenshot(), lambda c: near(c, RED, 40)) is None, 20, 'the app grid over the whole scene')


def moving_scene_under_phosh(phosh, wallpaper_bin, wallpapers, daemon, motions, scene_dir):
    """phosh, and the wallpaper's red picture in the middle of the screen, subscribed and drawing
    for a moving device."""
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    phosh.start_phosh()
    w = wallpapers(phosh, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'], env=phosh.bus_env)
    wait_until(lambda: daemon.subscribed_count() == 1, 20, 'the subscription')
    motions(daemon)
    wait_until(lambda: len(frames(w)) >= 10, 20, 'frames of the moving device')
    phosh.show_desktop(RED)
    return w


def sets_locked_hint():
    """Whether phosh sets LockedHint on the stand-in logind's session here: 0.46 does when it locks
    and unlocks (0.24 never calls SetLockedHint: its ScreenSaver Active is the lock), and it
    finds the session only as root (phosh.py)."""
    return Phosh.version() >= (0, 46) and Phosh.can_unlock()


def assert_paused(w, daemon, what):
    """No frame and no subscription in MEASURE_S, counted from when the frames have stopped (the
    frame already under way when the pause came may still be drawn)."""
    counts = [len(frames(w))]

    def stopped():
        counts.append(len(frames(w)))
        return counts[-1] == counts[-2]
    wait_until(stopped, 5, 'the frames to stop (%s)' % what, interval=SETTLE_S)
    drawn = counts[-1]
    time.sleep(MEASURE_S)       # a window to count in: nothing should happen in it
    assert len(frames(w)) == drawn and daemon.subscribed_count() == 0, \
        '%s: %d frames drawn, %d subscribed; the wallpaper said: %s' % (
            what, len(frames(w)) - drawn, daemon.subscribed_count(),
            '\n'.join(line for line in w.output().splitlines()[-40:] if 'presented' not in line))


def test_the_lock_screen_pauses_the_subscription_and_unlocking_resumes_it(
        wallpaper_bin, phosh, wallpapers, fake_daemon, motions, scene_dir):
    daemon = fake_daemon()
    w = moving_scene_under_phosh(phosh, wallpaper_bin, wallpapers, daemon, motions, scene_dir)

    phosh.lock()
    wait_until(phosh.locked, 20, 'phosh to lock')
    wait_until(lambda: daemon.subscribed_count() == 0 and daemon.unsubscribes >= 1, 20,
               'the wallpaper to unsubscribe under the lock screen')
    assert 'the screen is locked' in w.output()
    if sets_locked_hint():
        wait_until(lambda: phosh.locked_hint() is True, 20, 'phosh to set LockedHint on its logind session')
    assert_paused(w, daemon, 'under the lock screen')
    drawn = len(frames(w))
    if Phosh.version() < (0, 46):   # (0.46 blanks the screen with the lock: no screenshot then)
        assert find_box(phosh.screenshot(), lambda c: near(c, RED, 40)) is None, 'the scene shows through the lock screen'

    if not Phosh.can_unlock():
        pytest.skip('unlocking phosh needs root (a private mount namespace gives the test account a PIN); '
                    'the pause under the lock screen passed')
    subscribes = len(daemon.subscriptions)
    if Phosh.version() >= (0, 46):
        phosh.wake()                # (its GetActive says false from here on: unlocked is what shows)
        phosh.unlock(lambda: phosh.app_grid_open() or near(phosh.centre(), RED, 2))
    else:
        phosh.unlock(lambda: not phosh.locked())
    if sets_locked_hint():
        wait_until(lambda: phosh.locked_hint() is False, 20, 'phosh to clear LockedHint once unlocked')
    wait_until(lambda: daemon.subscribed_count() == 1 and len(daemon.subscriptions) > subscribes, 20,
               'the subscription again once unlocked')
    wait_until(lambda: len(frames(w)) >= drawn + 10, 20, 'frames of the moving device after unlocking')
    phosh.show_desktop(RED)     # (the scene in the middle, above phosh's blue background)
    assert_bars_on_top(phosh)
    assert 'lost the connection' not in w.output(), 'it reconnected instead of pausing'


def test_the_woken_lock_screen_keeps_the_subscription_paused(
        wallpaper_bin, phosh, wallpapers, fake_daemon, motions, scene_dir):
    if Phosh.version() < (0, 46):
        pytest.skip('phosh 0.24 does not blank the screen with the lock: its lock screen is the case above')
    if not sets_locked_hint():
        pytest.skip('phosh finds the stand-in logind\'s session only as root (phosh.py): it sets no LockedHint')
    daemon = fake_daemon()
    w = moving_scene_under_phosh(phosh, wallpaper_bin, wallpapers, daemon, motions, scene_dir)
    phosh.lock()
    wait_until(phosh.locked, 20, 'phosh to lock')
    wait_until(lambda: daemon.subscribed_count() == 0, 20, 'the wallpaper to unsubscribe under the lock screen')
    wait_until(lambda: phosh.locked_hint() is True, 20, 'phosh to set LockedHint on its logind session')
    woken = phosh.wake()            # the screen on, the lock screen up, as before a user types the PIN
    assert not phosh.locked(), 'phosh 0.46 says the woken lock screen is active: the case this tests is gone'
    assert find_box(woken, lambda c: near(c, RED, 40)) is None, 'the scene shows through the lock screen'
    assert_paused(w, daemon, 'under the woken lock screen')
    assert 'the screen is unlocked' not in w.output()


def test_logind_locked_hint_pauses_the_subscription_whatever_the_shell_says(
        wallpaper_bin, phosh, wallpapers, fake_daemon, motions, scene_dir):
    """The lock rule against the stand-in logind, its LockedHint set by the test as a lock screen
    sets it: paused while it is true though org.gnome.ScreenSaver says inactive, and still once
    phosh (the ScreenSaver) has left the bus; resumed when it is false again."""
    daemon = fake_daemon()
    w = moving_scene_under_phosh(phosh, wallpaper_bin, wallpapers, daemon, motions, scene_dir)
    assert not phosh.locked()
    phosh.set_locked_hint(True)
    wait_until(lambda: daemon.subscribed_count() == 0 and daemon.unsubscribes >= 1, 20,
               'the wallpaper to unsubscribe for LockedHint')
    assert "the screen is locked (logind's LockedHint)" in w.output()
    assert_paused(w, daemon, 'while LockedHint is true')
    phosh.stop_phosh()              # the shell's word ends with it; logind's stays
    assert_paused(w, daemon, 'LockedHint true, phosh gone')
    subscribes = len(daemon.subscriptions)
    phosh.set_locked_hint(False)
    wait_until(lambda: daemon.subscribed_count() == 1 and len(daemon.subscriptions) > subscribes, 20,
               'the subscription again once LockedHint is false')
    assert 'the screen is unlocked' in w.output()


def test_without_logind_the_shell_alone_tells_the_lock(wallpaper_bin, phosh, wallpapers, fake_daemon, motions, scene_dir):
    """A system bus with no logind on it: one line says so, and org.gnome.ScreenSaver still pauses."""
    phosh.stop_logind()
    daemon = fake_daemon()
    w = moving_scene_under_phosh(phosh, wallpaper_bin, wallpapers, daemon, motions, scene_dir)
    phosh.lock()
    wait_until(lambda: daemon.subscribed_count() == 0 and daemon.unsubscribes >= 1, 20,
               'the wallpaper to unsubscribe under the lock screen')
    assert 'the screen is locked (org.gnome.ScreenSaver active)' in w.output()
    logind_lines = [line for line in w.output().splitlines() if 'logind' in line]
    assert len(logind_lines) == 1 and 'no logind session to follow' in logind_lines[0], logind_lines
