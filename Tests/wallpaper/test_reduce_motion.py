"""Reduce motion from each of its three sources draws the picture at offset (0, 0) and keeps it
there: the daemon's state line, the desktop's reduced-motion setting (a FAKE xdg-desktop-portal on
a private session bus: no real desktop runs here), and ReduceMotion=on in the scene (which does not
even subscribe). Offsets come from the FAKE daemon (fake_daemon.py says why)."""
import os
import subprocess

import pytest

import accounts
from desktop import as_account, readable, wait_until
from frames import frames
from scenes import RED, image, scene
from test_flat import HEIGHT, WIDTH, wait_for_box
from test_pacing import centre_for

HERE = os.path.dirname(os.path.abspath(__file__))


def start(wallpaper_bin, sways, wallpapers, scene_dir, socket_path, reduce='system', env=None):
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\nReduceMotion=%s\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n' % reduce)
    sway = sways(width=WIDTH, height=HEIGHT)
    return sway, wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', socket_path, '--stats'], env)


class SessionBus:
    """A private dbus-daemon --session and the fake portal, both as the wallpaper's account."""

    def __init__(self, sway, initial):
        self.address = 'unix:path=%s/bus' % sway.runtime
        env = dict(sway.client_env)
        self.bus = subprocess.Popen(as_account(['dbus-daemon', '--session', '--nofork', '--nopidfile',
                                                '--address=' + self.address, '--print-address']),
                                    env=env, cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
        self.bus.stdout.readline()      # the address: the bus is listening
        env['DBUS_SESSION_BUS_ADDRESS'] = self.address
        portal = readable(os.path.join(HERE, 'fake_portal.py'))
        self.portal = subprocess.Popen(as_account(['/usr/bin/python3', portal, str(initial)]), cwd=accounts.NEUTRAL_CWD,
                                       env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.portal.stdout.readline().strip() == 'ready'

    def set(self, value):
        self.portal.stdin.write('set %d\n' % value)
        self.portal.stdin.flush()
        assert self.portal.stdout.readline().split() == ['changed', str(value)]

    def close(self):
        for p in (self.portal, self.bus):
            p.terminate()
            p.wait(10)


@pytest.fixture
def session_buses():
    made = []

    def make(sway, initial):
        b = SessionBus(sway, initial)
        made.append(b)
        return b
    yield make
    for b in made:
        b.close()


def test_the_daemons_reduce_motion_state_centres_and_stops(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon(reduce_motion=True)
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path)
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    daemon.send_offset(0.5, 0.5)
    daemon.set_reduce_motion(False)
    wait_for_box(sway, RED, centre_for(0.5, 0.5), 'the layer moving once reduce motion is off')
    daemon.set_reduce_motion(True)
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred when the daemon says reduce motion')
    count = len(frames(w))
    daemon.send_offset(-0.75, 0.25)
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer still centred after more offsets')
    assert all(f[3] == 0 and f[4] == 0 for f in frames(w)[count:]), 'a frame moved in reduce motion'


def test_the_desktops_reduced_motion_setting_centres_and_is_followed_live(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, session_buses):
    daemon = fake_daemon()
    sway = sways(width=WIDTH, height=HEIGHT)
    bus = session_buses(sway, 1)
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\nReduceMotion=system\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    w = wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path, '--stats'],
                   {'DBUS_SESSION_BUS_ADDRESS': bus.address})
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    wait_until(lambda: 'reduced-motion setting is on' in w.output(), 20, 'the portal read')
    daemon.send_offset(0.5, -0.5)
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred while the desktop asks for reduced motion')
    bus.set(0)
    wait_for_box(sway, RED, centre_for(0.5, -0.5), 'the layer at the offset once the desktop setting is off')
    bus.set(1)
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred again (SettingChanged followed live)')


def test_reduce_motion_on_in_the_scene_never_subscribes_and_stays_centred(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir):
    daemon = fake_daemon()
    sway, w = start(wallpaper_bin, sways, wallpapers, scene_dir, daemon.path, reduce='on')
    wait_for_box(sway, RED, centre_for(0, 0), 'the layer centred')
    assert daemon.subscriptions == [] and daemon.subscribed_count() == 0


def test_reduce_motion_off_ignores_the_daemon_and_the_desktop(wallpaper_bin, sways, wallpapers, fake_daemon, scene_dir, session_buses):
    daemon = fake_daemon(reduce_motion=True)
    sway = sways(width=WIDTH, height=HEIGHT)
    bus = session_buses(sway, 1)
    image(scene_dir, 'back.png', 160, 100, RED)
    path = scene(scene_dir, '[Scene]\nReduceMotion=off\n[Layer back]\nImage=back.png\nDepth=40\nFit=none\n')
    wallpapers(sway, wallpaper_bin, ['--scene', path, '--socket', daemon.path], {'DBUS_SESSION_BUS_ADDRESS': bus.address})
    wait_until(lambda: daemon.subscriptions, 20, 'the subscription')
    daemon.send_offset(0.25, 0.5)
    wait_for_box(sway, RED, centre_for(0.25, 0.5), 'the layer moving despite both reduce-motion sources')
