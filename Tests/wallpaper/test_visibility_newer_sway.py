"""Sense only while someone can see (docs/wallpaper.md "Visibility"), the two cases headless sway
1.7 cannot show: an output switched off (`output … power off`) and a session locked with
ext-session-lock-v1 (session_lock.py, a locker the test can unlock). Either stops sway's frame
callbacks for the wallpaper, so it unsubscribes on the same connection (fake daemon); switching
the output on, or unlocking, brings a frame and the same subscription again.

Needs sway ≥ 1.8 (wlroots ≥ 0.16): sway 1.7's headless outputs refuse to be switched off ("Failed
to commit output") and it has no ext-session-lock. Debian 12 has sway 1.7, so in the wallpaper section of
scripts/test.sh these tests SKIP; scripts/check-sway-trixie.sh, which scripts/test.sh runs next as
root, runs them on Debian 13's sway 1.10 (wlroots 0.18) in a chroot."""
import re
import subprocess
import time

import pytest

from desktop import wait_until
from frames import frames
from session_lock import SessionLock
from test_visibility import MEASURE_S, consistent, covered, motions, paused, resumed, start  # noqa: F401 (motions: a fixture)

NEWEST_UNFIT = (1, 7)     # sway versions up to this one cannot show these cases (above)


def sway_version():
    text = subprocess.run(['sway', '--version'], capture_output=True, text=True, timeout=20).stdout
    found = re.search(r'(\d+)\.(\d+)', text)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


pytestmark = pytest.mark.skipif(
    sway_version() <= NEWEST_UNFIT,
    reason='needs sway >= 1.8 (headless outputs that can be switched off, ext-session-lock-v1); this is sway '
           '%d.%d (Debian 12 has no newer one): run scripts/check-sway-trixie.sh (Debian 13, sway 1.10)' % sway_version())


def moving(daemon, motions, w):
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    motions(daemon)
    wait_until(lambda: len(frames(w)) >= 10, 20, 'frames of the moving device')


def nothing_drawn_while_hidden(daemon, w):
    """Hidden, it draws nothing although the device moves on (a window to count in, MEASURE_S)."""
    drawn = len(frames(w))
    time.sleep(MEASURE_S)
    assert len(frames(w)) == drawn, 'frames were drawn while nobody could see them'
    assert covered(daemon, w)
    return drawn


def seen_again(daemon, w, drawn, outputs=1):
    wait_until(lambda: len(frames(w)) > drawn, 20, 'a frame once it can be seen again')
    wait_until(lambda: daemon.subscribed_count() == outputs and resumed(w) == paused(w), 20, 'the subscription again')
    assert consistent(daemon, w, outputs) and set(daemon.subscriptions) == {(60, 0)}
    assert 'lost the connection' not in w.output(), 'it reconnected instead of pausing'
    after = len(frames(w))
    wait_until(lambda: len(frames(w)) >= after + 10, 20, 'frames of the moving device afterwards')


def test_an_output_switched_off_pauses_the_subscription_and_switching_it_on_draws_and_resumes(
        wallpaper_bin, sways, wallpapers, fake_daemon, motions, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    moving(daemon, motions, w)

    sway.swaymsg('output HEADLESS-1 power off')
    wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe on the output switched off')
    assert 'output HEADLESS-1 cannot be seen' in w.output() and consistent(daemon, w)
    drawn = nothing_drawn_while_hidden(daemon, w)

    sway.swaymsg('output HEADLESS-1 power on')
    seen_again(daemon, w, drawn)


def test_an_output_switched_off_leaves_the_other_output_subscribed(
        wallpaper_bin, sways, wallpapers, fake_daemon, motions, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path, outputs=2)
    wait_until(lambda: daemon.subscribed_count() == 2, 20, 'a subscription per output')
    moving(daemon, motions, w)

    sway.swaymsg('output HEADLESS-2 power off')
    wait_until(lambda: daemon.subscribed_count() == 1 and paused(w) == resumed(w) + 1, 20, 'the output switched off to unsubscribe')
    assert 'output HEADLESS-2 cannot be seen' in w.output()
    time.sleep(MEASURE_S)
    assert daemon.subscribed_count() == 1 and paused(w) == resumed(w) + 1, 'the output still on paused too'
    sway.swaymsg('output HEADLESS-2 power on')
    wait_until(lambda: daemon.subscribed_count() == 2 and paused(w) == resumed(w), 20, 'both subscriptions again')
    assert consistent(daemon, w, outputs=2)


def test_a_locked_session_pauses_the_subscription_and_unlocking_draws_and_resumes(
        wallpaper_bin, sways, wallpapers, fake_daemon, motions, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    moving(daemon, motions, w)

    lock = SessionLock(sway)
    lock.wait_locked()
    wait_until(lambda: covered(daemon, w), 20, 'the wallpaper to unsubscribe behind the lock screen')
    assert 'output HEADLESS-1 cannot be seen' in w.output() and consistent(daemon, w)
    drawn = nothing_drawn_while_hidden(daemon, w)

    lock.unlock()
    seen_again(daemon, w, drawn)
