"""Harness for the Parallax Plasma wallpaper: a real Plasma 6 desktop, as a user's session runs it,
without a display or GPU, inside a root of Debian 13 or forky (scripts/check-plasma.sh):

    headless sway (wlroots, pixman renderer)  ← grim takes the screenshots of its one output
      └ kwin_wayland, nested: one window filling sway's output, no border
          └ plasmashell on a fresh HOME: Plasma's default Breeze layout (a bottom panel, the
            folder view desktop showing ~/Desktop's files), with kactivitymanagerd

Why this way (docs/plasma.md "The headless Plasma tests"): KWin 6's own virtual backend has no
OpenGL here (no /dev/dri), and its ScreenShot2 then answers "Screenshot got cancelled"; KWin nested
in sway draws in software into buffers sway shows and grim reads. Everything runs as the
unprivileged account (sway refuses root) on a private session bus, which only that account may
join: the tests call D-Bus through bus_client.py run as the account. A second private bus stands
in for the system bus with the stand-in logind that KWin's screen locker asks
(Tests/wallpaper/stand_in_logind.py): its Unlock signal is how a test ends a lock.

Readiness is awaited by events (sockets, D-Bus names owned, evaluateScript answering, the
screenshot showing what is expected), never by fixed sleeps."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'wallpaper'))
from desktop import account_ids, as_account, private_dir, shared_dir, wait_until  # noqa: E402
import accounts  # noqa: E402  (Tests/integration: desktop.py put it on the path)
import pngkit  # noqa: E402
import pictures  # noqa: E402
from pictures import HEIGHT, WIDTH  # noqa: E402

PLUGIN = 'org.parallaxd.wallpaper'
# The plain colour a test shows before the Parallax wallpaper (show_plain_colour): neither the test
# picture's colours nor black.
PLAIN_COLOUR = (20, 200, 120)
SWAY_SOCKET = 'wayland-1'
KWIN_SOCKET = 'plasma-kwin'
# What the folder view desktop shows: a folder and a text file in ~/Desktop.
DESKTOP_FILES = {'Projects/': None, 'notes.txt': 'parallaxd test desktop\n'}
# A session bus's clients wait this long for answers; plasmashell on a loaded 2-core machine with
# software rendering takes up to a minute to start.
START_TIMEOUT = 180


def kactivitymanagerd():
    """Where the release installs kactivitymanagerd (a libexec folder, by architecture)."""
    found = glob.glob('/usr/lib/*/libexec/kactivitymanagerd') + glob.glob('/usr/libexec/kactivitymanagerd')
    if not found:
        raise AssertionError('kactivitymanagerd is not installed (scripts/check-plasma.sh puts it in the root)')
    return found[0]


class PlasmaDesktop:
    """One Plasma session. daemon_socket: the parallaxd socket its wallpaper reads
    (PARALLAXD_SOCKET); env: more environment for plasmashell."""

    def __init__(self, daemon_socket, width=WIDTH, height=HEIGHT, desktop_files=None, env=None):
        self.width, self.height = width, height
        self.daemon_socket = daemon_socket
        self.runtime = private_dir('plx-plasma-run-')
        self.home = private_dir('plx-plasma-home-')
        self.logs = shared_dir('plx-plasma-logs-')
        self._procs = []          # (name, Popen), in the order they started
        self._group = None        # the session's process group (its first process's id)
        self._clients = []
        self.bus = None
        self.plasmashell = None
        try:
            self._prepare_home(DESKTOP_FILES if desktop_files is None else desktop_files)
            self.env = {
                'PATH': '/usr/bin:/bin', 'HOME': self.home, 'XDG_RUNTIME_DIR': self.runtime, 'LANG': 'C.UTF-8',
                'XDG_CONFIG_HOME': os.path.join(self.home, '.config'),
                'XDG_DATA_HOME': os.path.join(self.home, '.local', 'share'),
                'XDG_CACHE_HOME': os.path.join(self.home, '.cache'),
                'DBUS_SESSION_BUS_ADDRESS': 'unix:path=%s/bus' % self.runtime,
                'DBUS_SYSTEM_BUS_ADDRESS': 'unix:path=%s/system-bus' % self.runtime,
                # As startplasma sets it: Debian's menu is plasma-applications.menu. Without it KDE's
                # service cache holds no applications, KWin finds no .desktop file granting
                # plasmashell its restricted Wayland interfaces, and Plasma's task manager (which
                # the wallpaper asks for fullscreen windows) never sees a window.
                'XDG_MENU_PREFIX': 'plasma-',
            }
            for name, address in (('session-bus', self.env['DBUS_SESSION_BUS_ADDRESS']),
                                  ('system-bus', self.env['DBUS_SYSTEM_BUS_ADDRESS'])):
                proc = self._start(name, ['dbus-daemon', '--session', '--nofork', '--nopidfile', '--print-address',
                                          '--address=' + address], stdout=subprocess.PIPE)
                proc.stdout.readline()       # the address: it listens
            self.bus = self._start('bus-client', ['/usr/bin/python3', accounts.shared_copy(os.path.join(HERE, 'bus_client.py'))],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            assert self.bus.stdout.readline().strip() == 'ready', 'bus_client.py did not connect: ' + self.log('bus-client')
            self._start_logind()
            self._start_sway()
            self._start_kwin()
            self._start_plasmashell(env or {})
        except BaseException:
            self.close()
            raise

    # -- starting ---------------------------------------------------------------------------------

    def _prepare_home(self, desktop_files):
        config = os.path.join(self.home, '.config')
        os.makedirs(config)
        # KWin's screen locker locks an idle session after 5 minutes and on resume: here it
        # locks only when a test asks (org.freedesktop.ScreenSaver.Lock).
        with open(os.path.join(config, 'kscreenlockerrc'), 'w') as f:
            f.write('[Daemon]\nAutolock=false\nLockOnResume=false\n')
        desktop = os.path.join(self.home, 'Desktop')
        os.makedirs(desktop)
        for name, text in desktop_files.items():
            if name.endswith('/'):
                os.makedirs(os.path.join(desktop, name))
            else:
                with open(os.path.join(desktop, name), 'w') as f:
                    f.write(text)
        with open(os.path.join(self.home, 'sway.conf'), 'w') as f:
            f.write('output HEADLESS-1 mode %dx%d\ndefault_border none\ndefault_floating_border none\n'
                    % (self.width, self.height))
        if os.getuid() == 0:
            uid, gid = account_ids()
            for top, dirs, files in os.walk(self.home):
                for name in [top] + [os.path.join(top, n) for n in dirs + files]:
                    os.lchown(name, uid, gid)

    def _start(self, name, argv, env=None, stdin=subprocess.DEVNULL, stdout=None):
        """Starts argv as the account; its output (or its stderr, when stdout is piped) goes to
        LOGS/name.log."""
        log = open(os.path.join(self.logs, name + '.log'), 'wb')
        # One process group for the whole session: what plasmashell and the bus start on their own
        # (kioworkers, plasma_waitforname…) is in it too, and close() ends the group.
        proc = subprocess.Popen(as_account(argv), env=env or self.env, cwd=accounts.NEUTRAL_CWD, stdin=stdin,
                                stdout=stdout if stdout is not None else log, stderr=log,
                                text=stdout is not None or stdin is not subprocess.DEVNULL,
                                process_group=self._group or 0)
        log.close()
        self._group = self._group or proc.pid
        self._procs.append((name, proc))
        return proc

    def _await_socket(self, name, proc, socket_name):
        path = os.path.join(self.runtime, socket_name)
        wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 30, name + ' to listen')
        if proc.poll() is not None:
            raise AssertionError('%s exited (%s):\n%s' % (name, proc.returncode, self.log(name)[-3000:]))

    def _start_logind(self):
        env = dict(self.env, DBUS_SESSION_BUS_ADDRESS=self.env['DBUS_SYSTEM_BUS_ADDRESS'])
        self.logind = self._start('stand-in-logind', ['/usr/bin/python3', accounts.shared_copy(
            os.path.join(ROOT, 'Tests', 'wallpaper', 'stand_in_logind.py')), self.env['DBUS_SYSTEM_BUS_ADDRESS']],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.logind.stdout.readline().strip()
        assert line == 'ready', 'the stand-in logind did not start (%r): %s' % (line, self.log('stand-in-logind'))

    def _start_sway(self):
        proc = self._start('sway', ['sway', '-c', os.path.join(self.home, 'sway.conf')], env=dict(
            self.env, WLR_BACKENDS='headless', WLR_RENDERER='pixman', WLR_LIBINPUT_NO_DEVICES='1',
            WLR_HEADLESS_OUTPUTS='1'))
        self._await_socket('sway', proc, SWAY_SOCKET)

    def _start_kwin(self):
        # Nested in sway: the wayland backend, one window that sway tiles over its whole output.
        proc = self._start('kwin', ['kwin_wayland', '--socket', KWIN_SOCKET, '--width', str(self.width),
                                    '--height', str(self.height), '--no-global-shortcuts'],
                           env=dict(self.env, WAYLAND_DISPLAY=SWAY_SOCKET, XDG_SESSION_TYPE='wayland'))
        self._await_socket('kwin', proc, KWIN_SOCKET)
        self._await_name('org.kde.KWin', proc, 'kwin')

    def _start_plasmashell(self, env):
        kamd = self._start('kactivitymanagerd', [kactivitymanagerd()], env=self.session_env())
        # plasmashell refuses to load without the activity manager (it does not wait for it).
        self._await_name('org.kde.ActivityManager', kamd, 'kactivitymanagerd')
        # The wallpaper's debug messages (subscribing, pausing, libparallax's connection steps) in
        # plasmashell's log, which a failing test shows.
        self.plasmashell_env = dict(self.session_env(), PARALLAXD_SOCKET=self.daemon_socket,
                                    QT_LOGGING_RULES='org.parallaxd.plasma.debug=true',
                                    QT_MESSAGE_PATTERN='%{time boot} %{category}: %{message}', **env)
        self.plasmashell = self._start('plasmashell', ['plasmashell', '--no-respawn'], env=self.plasmashell_env)
        self._await_name('org.kde.plasmashell', self.plasmashell, 'plasmashell')

        def laid_out():
            if self.plasmashell.poll() is not None:
                raise AssertionError('plasmashell exited (%s):\n%s' % (self.plasmashell.returncode, self.log('plasmashell')[-3000:]))
            ok, value = self._call_plasmashell('print(desktops().length + " " + panels().length)')
            return ok and value.split() == ['1', '1']
        wait_until(laid_out, START_TIMEOUT, 'plasmashell to answer evaluateScript with one desktop and one panel', interval=0.5)

    def session_env(self):
        """The environment of the session's Plasma programs (and of Wayland clients of KWin)."""
        return dict(self.env, WAYLAND_DISPLAY=KWIN_SOCKET, QT_QPA_PLATFORM='wayland', XDG_CURRENT_DESKTOP='KDE',
                    XDG_SESSION_DESKTOP='KDE', XDG_SESSION_TYPE='wayland', KDE_FULL_SESSION='true',
                    KDE_SESSION_VERSION='6', GDK_BACKEND='wayland', NO_AT_BRIDGE='1')

    def _await_name(self, name, proc, what):
        def owned():
            if proc.poll() is not None:
                raise AssertionError('%s exited (%s):\n%s' % (what, proc.returncode, self.log(what)[-3000:]))
            return self.name_owned(name)
        wait_until(owned, START_TIMEOUT, '%s to own %s on the session bus' % (what, name), interval=0.2)

    # -- talking to the session -------------------------------------------------------------------

    def call(self, dest, path, method, signature=None, args=(), timeout=30):
        """A D-Bus method call on the session bus: (ok, the reply's values or the error's text)."""
        self.bus.stdin.write(json.dumps({'dest': dest, 'path': path, 'method': method, 'signature': signature,
                                         'args': list(args), 'timeout': timeout}) + '\n')
        self.bus.stdin.flush()
        line = self.bus.stdout.readline()
        if not line:
            raise AssertionError('bus_client.py ended: ' + self.log('bus-client')[-2000:])
        answer = json.loads(line)
        return (True, answer['value']) if answer['ok'] else (False, answer['error'])

    def name_owned(self, name):
        ok, value = self.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner',
                              '(s)', [name])
        return ok and value[0]

    def _call_plasmashell(self, script):
        ok, value = self.call('org.kde.plasmashell', '/PlasmaShell', 'org.kde.PlasmaShell.evaluateScript', '(s)',
                              [script], timeout=60)
        return ok, (value[0] if ok else value)

    def evaluate(self, script):
        """What plasmashell's desktop scripting printed running script (print(); the
        org.kde.PlasmaShell.evaluateScript call, as `qdbus … evaluateScript` makes it)."""
        ok, value = self._call_plasmashell(script)
        if not ok:
            raise AssertionError('evaluateScript failed: %s\nscript: %s' % (value, script))
        return value.strip()

    def set_wallpaper(self, plugin, **config):
        """Makes plugin the desktop's wallpaper and writes config (key: value) in its General
        group, through scripting as a user's script would; returns the plugin the desktop then has."""
        lines = ['var d = desktops()[0];', 'd.wallpaperPlugin = %s;' % json.dumps(plugin),
                 'd.currentConfigGroup = ["Wallpaper", %s, "General"];' % json.dumps(plugin)]
        lines += ['d.writeConfig(%s, %s);' % (json.dumps(k), json.dumps(v)) for k, v in config.items()]
        lines.append('print(d.wallpaperPlugin);')
        return self.evaluate('\n'.join(lines))

    def show_plain_colour(self, rgb=PLAIN_COLOUR, timeout=30):
        """Makes the desktop's wallpaper Plasma's plain colour (org.kde.color) and waits until the
        screen shows it. The screen follows a change of wallpaper some frames late: after the
        script returns, the old wallpaper's last picture can stay on screen for 100 ms and more,
        and the new one's first frames are black while it loads its picture. A test that goes
        through this colour before choosing the Parallax wallpaper knows that the test picture
        it then sees is the new wallpaper's, not the last one's still on screen."""
        self.set_wallpaper('org.kde.color', Color='#%02x%02x%02x' % rgb)

        def shown(pic):
            i = (pic.height // 2 * pic.width + pic.width // 2) * pic.channels
            return sum(abs(a - b) for a, b in zip(pic.data[i:i + 3], rgb)) <= 12 and pictures.marker(pic) is None
        wait_for_screen(self, shown, timeout, 'the plain colour #%02x%02x%02x on the screen' % rgb, interval=0.02)

    def write_wallpaper_config(self, plugin, **config):
        """Writes config keys of the desktop's wallpaper plugin (without choosing it again)."""
        lines = ['var d = desktops()[0];', 'd.currentConfigGroup = ["Wallpaper", %s, "General"];' % json.dumps(plugin)]
        lines += ['d.writeConfig(%s, %s);' % (json.dumps(k), json.dumps(v)) for k, v in config.items()]
        self.evaluate('\n'.join(lines))

    def read_wallpaper_config(self, plugin, key):
        return self.evaluate('var d = desktops()[0]; d.currentConfigGroup = ["Wallpaper", %s, "General"]; '
                             'print(d.readConfig(%s));' % (json.dumps(plugin), json.dumps(key)))

    def kwriteconfig(self, file, group, key, value):
        """Writes a key of a KDE configuration file of the session's HOME as System Settings
        does (kwriteconfig6 --notify: KConfig's change notification over D-Bus); value None
        deletes it."""
        argv = ['kwriteconfig6', '--file', file, '--group', group, '--key', key, '--notify']
        argv += ['--delete'] if value is None else [str(value)]
        result = subprocess.run(as_account(argv), env=self.env, cwd=accounts.NEUTRAL_CWD, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, 'kwriteconfig6 failed: %s' % result.stderr

    def emit_global_settings_changed(self):
        """KGlobalSettings' notifyChange(SettingsChanged, 0), which KDE's settings modules send
        after changing kdeglobals, for the programs that listen to it rather than to KConfig's."""
        result = subprocess.run(as_account(['dbus-send', '--session', '--type=signal', '/KGlobalSettings',
                                            'org.kde.KGlobalSettings.notifyChange', 'int32:3', 'int32:0']),
                                env=self.env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, 'dbus-send failed: %s' % result.stderr

    def screenshot(self):
        """sway's output (all of KWin's window) as a pngkit.Picture (RGB), read through grim in
        PPM (no PNG to decode)."""
        result = subprocess.run(as_account(['grim', '-t', 'ppm', '-']), env=dict(self.env, WAYLAND_DISPLAY=SWAY_SOCKET),
                                cwd=accounts.NEUTRAL_CWD, capture_output=True, timeout=60)
        assert result.returncode == 0, 'grim failed: %s' % result.stderr.decode(errors='replace')
        return read_ppm(result.stdout)

    def save_screenshot(self, path, level=9):
        """sway's output as a PNG at path (grim's own encoder, compression level 0–9)."""
        with open(path, 'wb') as f:
            subprocess.run(as_account(['grim', '-l', str(level), '-']), env=dict(self.env, WAYLAND_DISPLAY=SWAY_SOCKET),
                           cwd=accounts.NEUTRAL_CWD, stdout=f, check=True, timeout=60)

    def wait_for_marker(self, expected, timeout=30, tolerance=2.0):
        """Waits until the test picture's square is centred within tolerance px of expected
        (x, y); returns pictures.marker()'s (x, y, width, height)."""
        seen = [None]

        def there(pic):
            m = seen[0] = pictures.marker(pic)
            return m if m and abs(m[0] - expected[0]) <= tolerance and abs(m[1] - expected[1]) <= tolerance else None
        try:
            return wait_for_screen(self, there, timeout, 'the square centred at (%.1f, %.1f) ± %g px' % (expected + (tolerance,)))
        except AssertionError as e:
            raise AssertionError('%s; the square was last at %s' % (e, seen[0] and '(%.1f, %.1f)' % seen[0][:2])) from None

    def repaint_nested(self):
        """Makes the nested KWin draw its whole output anew. Trap (KWin 6.3, QPainter on the
        wayland backend): after a fullscreen client closes, KWin sometimes goes on committing a
        picture that still shows it, until its window gets a configure from the host; toggling
        sway's fullscreen on KWin's window sends one (the size stays the output's)."""
        ipc = glob.glob(os.path.join(self.runtime, 'sway-ipc.*.sock'))[0]
        for _ in range(2):
            subprocess.run(as_account(['swaymsg', '-s', ipc, 'fullscreen', 'toggle']), env=self.env,
                           cwd=accounts.NEUTRAL_CWD, capture_output=True, check=True, timeout=30)

    def client(self, argv, name='client'):
        """Starts a Wayland client of KWin as the account (stdout piped, text); stopped by close()."""
        proc = self._start(name, argv, env=self.session_env(), stdout=subprocess.PIPE)
        self._clients.append(proc)
        return proc

    def stop_client(self, proc):
        terminate(proc)
        if proc in self._clients:
            self._clients.remove(proc)

    # -- the screen locker ------------------------------------------------------------------------

    def lock(self):
        """Locks the session as Plasma's lock shortcut does: org.freedesktop.ScreenSaver.Lock,
        which KWin's screen locker (kscreenlocker) serves."""
        ok, value = self.call('org.freedesktop.ScreenSaver', '/ScreenSaver', 'org.freedesktop.ScreenSaver.Lock')
        assert ok, 'ScreenSaver.Lock failed: %s' % value

    def locked(self):
        ok, value = self.call('org.freedesktop.ScreenSaver', '/ScreenSaver', 'org.freedesktop.ScreenSaver.GetActive')
        assert ok, 'ScreenSaver.GetActive failed: %s' % value
        return value[0]

    def unlock(self):
        """Ends the lock as `loginctl unlock-session` does: logind's Unlock signal for the session
        (from the stand-in logind), which kscreenlocker obeys without a password."""
        self.logind.stdin.write('unlock\n')
        self.logind.stdin.flush()

    # -- the end ----------------------------------------------------------------------------------

    def alive(self):
        return self.plasmashell is not None and all(p.poll() is None for _, p in self._procs if p not in self._clients)

    def log(self, name):
        try:
            with open(os.path.join(self.logs, name + '.log'), 'rb') as f:
                return f.read().decode(errors='replace')
        except OSError:
            return ''

    def logs_tail(self, names=('plasmashell', 'kwin', 'sway'), size=4000):
        wallpaper = [line for line in self.log('plasmashell').splitlines() if 'org.parallaxd.plasma' in line]
        return '\n'.join(['--- the wallpaper\'s messages (last 60)'] + wallpaper[-60:]
                         + ['--- %s log (last lines)\n%s' % (n, self.log(n)[-size:]) for n in names])

    def close(self):
        for proc in self._clients:
            self.stop_client(proc)
        for name, proc in reversed(self._procs):
            terminate(proc)
            for stream in (proc.stdin, proc.stdout):
                if stream:
                    stream.close()
        self._procs = []
        self.plasmashell = None
        if self._group:
            try:
                os.killpg(self._group, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for path in (self.runtime, self.home, self.logs):
            shutil.rmtree(path, ignore_errors=True)


def read_ppm(blob):
    """A binary PPM (P6, 8 bits) as a pngkit.Picture."""
    fields, pos = [], 0
    while len(fields) < 4:
        while blob[pos:pos + 1].isspace():
            pos += 1
        if blob[pos:pos + 1] == b'#':
            pos = blob.index(b'\n', pos) + 1
            continue
        end = pos
        while not blob[end:end + 1].isspace():
            end += 1
        fields.append(blob[pos:end])
        pos = end
    assert fields[0] == b'P6' and fields[3] == b'255', 'not an 8-bit binary PPM: %r' % fields
    width, height = int(fields[1]), int(fields[2])
    pos += 1
    return pngkit.Picture(width, height, 3, blob[pos:pos + width * height * 3])


def wait_for_subscription(daemon, what='the wallpaper to subscribe', timeout=30):
    """Waits until the fake daemon has a subscriber; a timeout says whether the wallpaper was
    connected at all (connected but unsubscribed: it holds itself paused)."""
    try:
        wait_until(lambda: daemon.subscribed_count() > 0, timeout, what)
    except AssertionError as e:
        raise AssertionError('%s; the daemon had %d connection(s), %d subscription(s) and %d unsubscribe(s) in all'
                             % (e, daemon.connection_count(), len(daemon.subscriptions), daemon.unsubscribes)) from None


def wait_for_screen(desktop, predicate, timeout, what, interval=0.2):
    """Takes screenshots until predicate(picture) is true (its value returned), or fails showing
    the last value and the end of the session's logs."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        pic = desktop.screenshot()
        last = predicate(pic)
        if last:
            return last
        if time.monotonic() > deadline:
            saved = ''
            if os.environ.get('PLASMA_TEST_SHOTS'):
                # For a person looking into a failure: the last screenshot, as a PNG.
                saved = os.path.join(os.environ['PLASMA_TEST_SHOTS'], 'timeout-%d.png' % time.time_ns())
                pngkit.write(saved, pic, level=1)
                saved = '; last screenshot: ' + saved
            raise AssertionError('timed out after %.0f s waiting for %s (last: %r)%s' % (timeout, what, last, saved))
        time.sleep(interval)


def terminate(proc):
    """Ends a process the session started: SIGTERM, then SIGKILL after 15 s."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
