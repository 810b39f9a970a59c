"""parallax-wallpaper where KDE Plasma draws the desktop itself: the real plasmashell 5.27 on
headless KWin 5.27 (kwin.py), on the compositor's private session bus. plasmashell's desktop and a
layer-shell background share one layer (a wallpaper started after it covers its icons and widgets;
under Plasma 6 it is hidden), so parallax-wallpaper says that Plasma's own wallpaper plugin,
plasma-wallpaper-parallax, gives the effect there, and ends with status 0 (a user unit with
Restart=on-failure does not start it again): at start, without mapping any surface, and when
plasmashell comes after it. docs/wallpaper.md "Under desktop shells: Plasma and Phosh".

plasmashell 5.27 refuses to load without kactivitymanagerd, which starts first."""
import os
import shutil
import subprocess

import pytest

import accounts
from desktop import as_account, near, wait_until
from kwin import Kwin
from scenes import RED, scene

WIDTH, HEIGHT = 640, 360
START_TIMEOUT_S = 60        # plasmashell on llvmpipe, beside other work
MESSAGE = 'install plasma-wallpaper-parallax'
KACTIVITYMANAGERD = '/usr/lib/x86_64-linux-gnu/libexec/kactivitymanagerd'


def owned(desktop, name):
    result = subprocess.run(as_account(['dbus-send', '--session', '--print-reply', '--dest=org.freedesktop.DBus',
                                        '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:' + name]),
                            env=desktop.bus_env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=20)
    return 'boolean true' in result.stdout


class Plasma(Kwin):
    """Headless KWin with a session bus; start_plasmashell() runs kactivitymanagerd and plasmashell."""

    def start_plasmashell(self):
        env = dict(self.bus_env, QT_QPA_PLATFORM='wayland', XDG_CURRENT_DESKTOP='KDE', KDE_FULL_SESSION='true',
                   KDE_SESSION_VERSION='5', LIBGL_ALWAYS_SOFTWARE='1', QT_QUICK_BACKEND='software')
        for argv in ([KACTIVITYMANAGERD], ['plasmashell', '--no-respawn']):
            proc = subprocess.Popen(as_account(argv), env=env, cwd=accounts.NEUTRAL_CWD,
                                    stdout=self.log, stderr=subprocess.STDOUT)
            self.helpers.insert(0, proc)
            if argv[0] == KACTIVITYMANAGERD:
                wait_until(lambda: owned(self, 'org.kde.ActivityManager') or proc.poll() is not None, START_TIMEOUT_S,
                           'kactivitymanagerd on the bus')
        wait_until(lambda: owned(self, 'org.kde.plasmashell') or proc.poll() is not None, START_TIMEOUT_S,
                   'plasmashell on the bus')
        assert proc.poll() is None, 'plasmashell exited (%r): %s' % (proc.returncode, open(self.log_path).read()[-2000:])


@pytest.fixture
def plasma():
    if not shutil.which('plasmashell') or not os.path.exists(KACTIVITYMANAGERD):
        pytest.fail('plasmashell 5.27 is not installed (scripts/setup.sh installs plasma-workspace plasma-desktop '
                    'qtwayland5 kactivitymanagerd)')
    desktop = Plasma(width=WIDTH, height=HEIGHT)
    yield desktop
    desktop.close()


def red_scene(scene_dir):
    return scene(scene_dir, '[Scene]\nBackground=#ff0000\nReduceMotion=on\n')


def test_under_plasmashell_it_names_plasmas_plugin_and_ends_without_a_surface(wallpaper_bin, plasma, wallpapers, scene_dir):
    plasma.start_plasmashell()
    w = wallpapers(plasma, wallpaper_bin, ['--scene', red_scene(scene_dir)],
                   env=dict(plasma.bus_env, WAYLAND_DEBUG='client'))
    assert w.proc.wait(20) == 0, w.output()[-2000:]
    out = w.output()
    assert MESSAGE in out and 'org.parallaxd.wallpaper' in out
    assert 'get_layer_surface' not in out, 'a surface was made before the message'


def test_when_plasmashell_comes_later_it_names_the_plugin_and_ends(wallpaper_bin, plasma, wallpapers, scene_dir):
    w = wallpapers(plasma, wallpaper_bin, ['--scene', red_scene(scene_dir)], env=plasma.bus_env)
    wait_until(lambda: near(plasma.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3], RED, 2), 30, 'the scene on bare KWin')
    assert w.proc.poll() is None
    plasma.start_plasmashell()
    assert w.proc.wait(20) == 0, w.output()[-2000:]
    assert MESSAGE in w.output()
    # Plasma's own desktop is what shows then.
    wait_until(lambda: not near(plasma.screenshot().pixel(WIDTH // 2, HEIGHT // 2)[:3], RED, 40), 30,
               'Plasma\'s desktop in place of the scene')
