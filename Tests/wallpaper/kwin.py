"""Headless KWin 5.27 for the wallpaper tests: `kwin_wayland --virtual` with OpenGL compositing on
Mesa's llvmpipe (KWIN_COMPOSE=O2; ScreenShot2 exists only with OpenGL), run as the account like
sway, on a private session bus. Screenshots come from kwin_screenshot.py (ScreenShot2 over D-Bus:
KWin has no wlr-screencopy); an output's rotation comes from KScreen's saved configuration, its
scale from --scale.

Debian's /usr/bin/kwin_wayland carries the file capability cap_sys_resource, which a sandbox may
refuse to grant ("Operation not permitted"): the account runs a plain copy (no extended
attributes). The copy must still be named kwin_wayland: KWin's Qt platform plugin loads only into
an executable of that name."""
import atexit
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

import accounts
import pngkit
from desktop import Compositor, account_ids, as_account

# KScreen's rotation values (KScreen::Output::Rotation) for a turn clockwise in degrees.
KSCREEN_ROTATIONS = {0: 1, 90: 8, 180: 4, 270: 2}

_binary = None


def plain_binary():
    """A copy of kwin_wayland without its file capability, executable by every account."""
    global _binary
    if _binary is None:
        folder = tempfile.mkdtemp(prefix='plx-kwin-', dir='/tmp')
        os.chmod(folder, 0o755)
        atexit.register(shutil.rmtree, folder, True)
        _binary = os.path.join(folder, 'kwin_wayland')
        shutil.copyfile('/usr/bin/kwin_wayland', _binary)
        os.chmod(_binary, 0o755)
    return _binary


class Kwin(Compositor):
    """kwin_wayland --virtual with `outputs` virtual outputs of width×height device pixels."""
    name = 'kwin'
    SOCKET = 'wayland-1'

    def __init__(self, width=640, height=360, transform=None, scale=None, outputs=1, lock_screen=False):
        """lock_screen: KWin's screen locker (kscreenlocker) on, with a stand-in logind on a
        private system bus to end a lock (stand_in_logind.py says why); lock() and unlock()."""
        super().__init__()
        data = os.path.join(self.home, '.local', 'share')
        self._authorise_screenshots(data)
        self._configure_outputs(data, outputs, width, height, transform)
        if os.getuid() == 0:
            uid, gid = account_ids()
            for top, dirs, files in os.walk(self.home):
                for name in dirs + files:
                    os.chown(os.path.join(top, name), uid, gid)
        self.bus_address = 'unix:path=%s/kwin-bus' % self.runtime
        base = {'PATH': '/usr/bin:/bin', 'HOME': self.home, 'XDG_RUNTIME_DIR': self.runtime, 'LANG': 'C.UTF-8',
                'XDG_DATA_HOME': data, 'XDG_CONFIG_HOME': os.path.join(self.home, '.config'),
                'DBUS_SESSION_BUS_ADDRESS': self.bus_address}
        bus = subprocess.Popen(as_account(['dbus-daemon', '--session', '--nofork', '--nopidfile',
                                           '--address=' + self.bus_address, '--print-address']),
                               env=base, cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
        self.helpers.append(bus)
        bus.stdout.readline()      # the address: the bus is listening
        argv = [plain_binary(), '--virtual', '--width', str(width), '--height', str(height),
                '--socket', self.SOCKET, '--no-global-shortcuts', '--no-kactivities']
        self.logind = None
        if lock_screen:
            base['DBUS_SYSTEM_BUS_ADDRESS'] = self._start_logind(base)
        else:
            argv.append('--no-lockscreen')
        if outputs != 1:
            argv += ['--output-count', str(outputs)]
        if scale is not None:
            argv += ['--scale', str(scale)]
        self._launch(argv, dict(base, KWIN_COMPOSE='O2', LIBGL_ALWAYS_SOFTWARE='1'), self.SOCKET)
        # Clients of the tests see no session bus unless they ask (bus_env): the wallpaper's
        # reduced-motion source is tested with a fake portal on a bus of its own.
        self.bus_env = dict(self.client_env, DBUS_SESSION_BUS_ADDRESS=self.bus_address,
                            XDG_DATA_HOME=data, XDG_CONFIG_HOME=base['XDG_CONFIG_HOME'])
        shooter = accounts.shared_copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kwin_screenshot.py'))
        self.shooter = subprocess.Popen(as_account(['/usr/bin/python3', shooter]), env=self.bus_env,
                                        cwd=accounts.NEUTRAL_CWD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.helpers.insert(0, self.shooter)
        assert self.shooter.stdout.readline().strip() == 'ready'

    def _start_logind(self, base):
        """A bus standing in for the system bus, with the stand-in logind on it; its address."""
        address = 'unix:path=%s/system-bus' % self.runtime
        bus = subprocess.Popen(as_account(['dbus-daemon', '--session', '--nofork', '--nopidfile',
                                           '--address=' + address, '--print-address']),
                               env=base, cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
        self.helpers.append(bus)
        bus.stdout.readline()
        script = accounts.shared_copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'stand_in_logind.py'))
        self.logind = subprocess.Popen(as_account(['/usr/bin/python3', script, address]), env=base,
                                       cwd=accounts.NEUTRAL_CWD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.helpers.insert(0, self.logind)
        line = self.logind.stdout.readline().strip()
        assert line == 'ready', 'the stand-in logind did not start (%r)' % line
        return address

    def _screensaver(self, method):
        result = subprocess.run(as_account(['dbus-send', '--session', '--print-reply', '--dest=org.freedesktop.ScreenSaver',
                                            '/ScreenSaver', 'org.freedesktop.ScreenSaver.' + method]),
                                env=self.bus_env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=20)
        assert result.returncode == 0, 'ScreenSaver.%s failed: %s' % (method, result.stderr.strip())
        return result.stdout

    def lock(self):
        """Locks the session as Plasma's lock shortcut does (KDE's org.freedesktop.ScreenSaver.Lock)."""
        self._screensaver('Lock')

    def locked(self):
        """Whether KWin's screen locker says the session is locked."""
        return 'boolean true' in self._screensaver('GetActive')

    def unlock(self):
        """Ends the lock as `loginctl unlock-session` does: logind's Unlock signal for the session."""
        assert self.logind is not None, 'started without lock_screen'
        self.logind.stdin.write('unlock\n')
        self.logind.stdin.flush()

    def _authorise_screenshots(self, data):
        """KWin lets a D-Bus caller take screenshots when a .desktop file names its executable
        (the real path of the Python the helper runs on) with this restricted interface. KWin
        reads the first application whose Exec= is that path, and Debian's python3.11.desktop
        (no such interface) has it too: ours takes that file's id, so it replaces it."""
        python = os.path.realpath('/usr/bin/python3')
        apps = os.path.join(data, 'applications')
        os.makedirs(apps)
        with open(os.path.join(apps, os.path.basename(python) + '.desktop'), 'w') as f:
            f.write('[Desktop Entry]\nType=Application\nName=parallax test screenshots\n'
                    'Exec=%s\nX-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n' % python)

    @staticmethod
    def _configure_outputs(data, outputs, width, height, transform):
        """Rotation is read at start from KScreen's saved configuration, as Plasma's display
        settings leave it: $XDG_DATA_HOME/kscreen/<md5 of the output names> (this set of outputs)
        and kscreen/outputs/<name> (each output). Virtual outputs have no EDID, so KWin names them
        by connector, Virtual-0, Virtual-1, …. (Changing it at run time needs kscreen-doctor,
        whose KWayland backend 5.27 crashes applying a configuration to this KWin.)"""
        if transform is None:
            return
        names = ['Virtual-%d' % n for n in range(outputs)]
        mode = {'size': {'width': width, 'height': height}, 'refresh': 60}
        rotation = KSCREEN_ROTATIONS[int(transform)]
        folder = os.path.join(data, 'kscreen')
        os.makedirs(os.path.join(folder, 'outputs'))
        setup = hashlib.md5(''.join(sorted(names)).encode()).hexdigest()
        with open(os.path.join(folder, setup), 'w') as f:
            json.dump([{'id': name, 'enabled': True, 'pos': {'x': width * n, 'y': 0}, 'rotation': rotation,
                        'scale': 1, 'mode': mode} for n, name in enumerate(names)], f)
        for name in names:
            with open(os.path.join(folder, 'outputs', name), 'w') as f:
                json.dump({'id': name, 'rotation': rotation, 'scale': 1, 'mode': mode}, f)

    def screenshot(self, output=None):
        """The workspace (or one output) in device pixels, as its viewer sees it."""
        path = os.path.join(self.home, 'shot.raw')
        request = ('screen %s %s' % (output, path)) if output else ('workspace ' + path)
        self.shooter.stdin.write(request + '\n')
        self.shooter.stdin.flush()
        answer = self.shooter.stdout.readline().split()
        if answer[:1] != ['ok']:
            raise AssertionError('KWin screenshot failed: %s' % ' '.join(answer))
        width, height, stride, fmt = (int(v) for v in answer[1:])
        assert fmt in (4, 5, 6), 'unexpected QImage format %d' % fmt      # 32-bit xRGB/ARGB, native order
        with open(path, 'rb') as f:
            raw = f.read()
        rows = raw if stride == width * 4 else b''.join(raw[y * stride:y * stride + width * 4] for y in range(height))
        rgb = bytearray(width * height * 3)
        rgb[0::3], rgb[1::3], rgb[2::3] = rows[2::4], rows[1::4], rows[0::4]     # B G R A in memory
        return pngkit.Picture(width, height, 3, rgb)
