"""Harness for the GNOME Shell extension: a real gnome-shell per test (43 on this Debian 12 host;
48, 50 and 51 in roots of later releases, scripts/check-gnome.sh), headless (`--headless --wayland
--virtual-monitor`, software rendering), on private session and system buses, in a throwaway HOME
and XDG_RUNTIME_DIR, with the extension installed for that HOME only, or as its Debian package
installed it (PARALLAX_GNOME_EXTENSION=installed).

Screenshots come from org.gnome.Shell.Screenshot and are decoded with scripts/pngkit.py; the
test-only helper extension (helper-extension/) turns on the shell's unsafe mode so this process
may call it and org.gnome.Shell.Eval. The shipped extension never does.

GnomeShell(...) starts one; screenshot() returns a pngkit.Picture; gsettings(), eval() and
display_config() talk to it; close() stops it and removes its folders."""
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import pngkit  # noqa: E402

UUID = 'parallax@parallaxd'
HELPER_UUID = 'parallax-test-helper@parallaxd'
SCHEMA = 'org.gnome.shell.extensions.parallax'
WIDTH, HEIGHT = 1280, 720
BACKGROUND = (90, 110, 140)       # the test picture's colour
MARKER = (230, 40, 40)            # a square at its centre
MARKER_SIZE = 40
EXTENSION_SOURCES = os.path.join(ROOT, 'Sources', 'gnome-extension')


def shell_versions():
    """{form: [GNOME Shell major versions]} from Sources/gnome-extension/shell-versions, the list
    the extension's metadata, its package and the helper extension all take."""
    forms = {}
    with open(os.path.join(EXTENSION_SOURCES, 'shell-versions')) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if words:
                forms[words[0]] = words[1:]
    return forms


def shell_major():
    """The major version of the gnome-shell on PATH (43, 48, 50, 51…)."""
    out = subprocess.run(['gnome-shell', '--version'], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1].split('.')[0])


def form_of(major):
    """The extension's form that declares GNOME Shell `major`."""
    for form, versions in shell_versions().items():
        if str(major) in versions:
            return form
    raise AssertionError('no form of the extension declares GNOME Shell %d (Sources/gnome-extension/shell-versions: %r)'
                         % (major, shell_versions()))


# The extension's build under test: the form that declares the shell on PATH (legacy: GNOME 43 and
# 44, imports.*; esm: 45 and later, ES modules), or PARALLAX_GNOME_FORM. With
# PARALLAX_GNOME_EXTENSION=installed the tests use the extension the Debian package installed in
# /usr/share (its schema compiled by glib's trigger) instead of one assembled from the sources.
FORM = os.environ.get('PARALLAX_GNOME_FORM') or (form_of(shell_major()) if shutil.which('gnome-shell') else 'legacy')
INSTALLED = os.environ.get('PARALLAX_GNOME_EXTENSION') == 'installed'
HELPER = os.path.join(HERE, 'helper-extension' if FORM == 'legacy' else 'helper-extension-esm')
WAYLAND_DISPLAY = 'plx-gnome'     # the shell's socket in the test's XDG_RUNTIME_DIR
# JavaScript for Eval: the extension's controller, whether it is subscribed, and why it is not.
CONTROLLER = "Main.extensionManager.lookup('%s').stateObj._parallax" % UUID
SUBSCRIBED = CONTROLLER + '._subscriber.state.connected'
IDLE_REASON = CONTROLLER + '.idleReason'


def wait_until(predicate, timeout, what, interval=0.1):
    """Polls predicate until it returns a true value (returned) or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError('timed out after %.1f s waiting for %s (last: %r)' % (timeout, what, last))


def install_helper(dest, form=None):
    """The test-only helper extension in its form, its metadata naming the same shell versions as
    the extension's (shell-versions)."""
    form = form or FORM
    shutil.copytree(os.path.join(HERE, 'helper-extension' if form == 'legacy' else 'helper-extension-esm'), dest)
    with open(os.path.join(dest, 'metadata.json'), 'w') as f:
        json.dump({'uuid': HELPER_UUID, 'name': 'parallax test helper',
                   'description': 'TEST ONLY: turns on the shell\'s unsafe mode so a test can take screenshots and '
                                  'evaluate JavaScript over D-Bus. Never ship or enable it on a real desktop.',
                   'shell-version': shell_versions()[form],
                   'session-modes': ['user', 'unlock-dialog']}, f, indent=2)
    return dest


def assemble(form, dest):
    """The extension as Sources/gnome-extension/assemble.sh builds it, its schema compiled in
    place (a per-user install)."""
    subprocess.run([os.path.join(ROOT, 'Sources', 'gnome-extension', 'assemble.sh'), form, dest, 'test'], check=True)
    subprocess.run(['glib-compile-schemas', '--strict', os.path.join(dest, 'schemas')], check=True)
    return dest


def test_picture(path, width=WIDTH, height=HEIGHT):
    """A background of one colour with a square marker at its centre (PNG: Debian's default
    .webp has no loader here)."""
    pic = pngkit.Picture.filled(width, height, BACKGROUND)
    half = MARKER_SIZE // 2
    pic.fill_rect(width // 2 - half, height // 2 - half, width // 2 + half, height // 2 + half, MARKER)
    pngkit.write(path, pic)
    return path


class GnomeShell:
    def __init__(self, settings=None, interface=None, env=None, extension=True, width=WIDTH, height=HEIGHT,
                 picture=None, enabled=True, zip=None, alter=None):
        """settings: {key: gvariant text} for the extension's schema; interface: the same for
        org.gnome.desktop.interface; env: more environment for the shell (PARALLAXD_SOCKET);
        picture: the background (a PNG, zoomed to cover), default the test picture; enabled:
        False installs the extension without enabling it (enable() does); zip: an
        extensions.gnome.org zip to install for the HOME with `gnome-extensions install` instead
        of the assembled sources; alter: called with the assembled extension's folder before the
        shell starts (a test that breaks it on purpose; the assembled copy is installed for the
        HOME then, even where a package installed the extension: GNOME takes the HOME's first)."""
        self.dir = tempfile.mkdtemp(prefix='plx-gnome-', dir='/tmp')
        self.width, self.height = width, height
        home = os.path.join(self.dir, 'home')
        run = os.path.join(self.dir, 'run')
        os.makedirs(home)
        os.makedirs(run, mode=0o700)
        data = os.path.join(home, '.local', 'share')
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(('DBUS_', 'WAYLAND_', 'DISPLAY', 'XDG_'))}
        self.env.update(HOME=home, XDG_RUNTIME_DIR=run, XDG_DATA_HOME=data,
                        XDG_CONFIG_HOME=os.path.join(home, '.config'), XDG_CACHE_HOME=os.path.join(home, '.cache'),
                        LIBGL_ALWAYS_SOFTWARE='1', GSETTINGS_BACKEND='dconf', NO_AT_BRIDGE='1')
        self._procs = []
        self._clients = []
        self.shell = None
        try:
            # What the session bus starts (the extensions' preferences app) is a Wayland client of
            # this shell and writes to services.log.
            self.services_log_path = os.path.join(self.dir, 'services.log')
            self._services_log = open(self.services_log_path, 'wb')
            for bus, conf in (('system', '/usr/share/dbus-1/session.conf'), ('session', '/usr/share/dbus-1/session.conf')):
                path = os.path.join(self.dir, bus + '_bus')
                env, out = self.env, subprocess.DEVNULL
                if bus == 'session':
                    env, out = dict(self.env, WAYLAND_DISPLAY=WAYLAND_DISPLAY, GDK_BACKEND='wayland'), self._services_log
                self._procs.append(subprocess.Popen(['dbus-daemon', '--nofork', '--config-file=' + conf,
                                                     '--address=unix:path=' + path], env=env,
                                                    stdout=out, stderr=out))
                self.env['DBUS_%s_BUS_ADDRESS' % bus.upper()] = 'unix:path=' + path
                wait_until(lambda: os.path.exists(path), 10, 'the %s bus' % bus)
            self._start_session_services()
            extensions = os.path.join(data, 'gnome-shell', 'extensions')
            install_helper(os.path.join(extensions, HELPER_UUID))
            enabled_uuids = [HELPER_UUID]
            self.schemas = None
            if zip:
                subprocess.run(['gnome-extensions', 'install', '--force', zip], env=self.env, check=True, timeout=60)
                self.schemas = os.path.join(extensions, UUID, 'schemas')
            elif extension and INSTALLED and not alter:
                if not os.path.exists(os.path.join('/usr/share/gnome-shell/extensions', UUID, 'metadata.json')):
                    raise AssertionError('PARALLAX_GNOME_EXTENSION=installed, but no %s in /usr/share/gnome-shell/extensions' % UUID)
            elif extension:
                assemble(FORM, os.path.join(extensions, UUID))
                self.schemas = os.path.join(extensions, UUID, 'schemas')
                if alter:
                    alter(os.path.join(extensions, UUID))
            extension_enabled = (extension or zip) and enabled
            if extension_enabled:
                enabled_uuids.append(UUID)
            options = "'zoom'" if picture else "'stretched'"
            picture = picture or test_picture(os.path.join(self.dir, 'background.png'), width, height)
            self.gsettings('org.gnome.shell', 'disable-user-extensions', 'false')
            self.gsettings('org.gnome.shell', 'enabled-extensions', repr(enabled_uuids))
            self.gsettings('org.gnome.desktop.background', 'picture-uri', "'file://%s'" % picture)
            self.gsettings('org.gnome.desktop.background', 'picture-options', options)
            for key, value in (interface or {}).items():
                self.gsettings('org.gnome.desktop.interface', key, value)
            for key, value in (settings or {}).items():
                self.gsettings(SCHEMA, key, value)
            self.log_path = os.path.join(self.dir, 'shell.log')
            self._log = open(self.log_path, 'wb')
            self.shell = subprocess.Popen(
                ['gnome-shell', '--headless', '--wayland', '--no-x11', '--virtual-monitor', '%dx%d' % (width, height),
                 '--wayland-display', WAYLAND_DISPLAY],
                env=dict(self.env, **(env or {})), stdout=self._log, stderr=subprocess.STDOUT, cwd=self.dir)
            try:
                wait_until(lambda: self._evaluates(), 60, 'gnome-shell to answer Eval (unsafe mode)')
            except AssertionError as e:
                raise AssertionError('%s\n%s\n--- the shell\'s log (last lines)\n%s'
                                     % (e, self.extension_report([HELPER_UUID]), self.log()[-4000:])) from None
            wait_until(lambda: self.eval('String(Main.layoutManager._startingUp)') == '"false"', 60,
                       'the shell to finish starting')
            if extension_enabled:
                self.wait_active()
            # The overview opens at start: the desktop is what the tests look at.
            self.hide_overview()
            # The "unsafe mode" notification's banner would cover the top of every screenshot.
            self.eval('Main.messageTray.getSources().forEach(s => s.destroy())')
        except BaseException:
            self.close()
            raise

    def extension_info(self, uuid):
        """What `gnome-extensions info` says of uuid (its state: ENABLED or ACTIVE, ERROR, OUT OF
        DATE…), and the error the shell recorded for it (org.gnome.Shell.Extensions)."""
        info = subprocess.run(['gnome-extensions', 'info', uuid], env=self.env, capture_output=True, text=True, timeout=30)
        text = (info.stdout + info.stderr).strip()
        error = self._gdbus('org.gnome.Shell', '/org/gnome/Shell', 'org.gnome.Shell.Extensions.GetExtensionErrors',
                            uuid, check=False)
        if error.returncode == 0 and error.stdout.strip() not in ('(@as [],)', '([],)'):
            text += '\n  errors: ' + error.stdout.strip()
        return text

    def extension_report(self, uuids=None):
        """gnome-extensions info of the extensions under test, and the shell's log's JS errors."""
        parts = ['gnome-extensions info %s:\n  %s' % (u, self.extension_info(u).replace('\n', '\n  '))
                 for u in (uuids or [HELPER_UUID, UUID])]
        errors = [line for line in self.log().splitlines() if 'JS ERROR' in line or 'Extension' in line and 'rror' in line]
        if errors:
            parts.append('the shell\'s log:\n  ' + '\n  '.join(errors[-20:]))
        return '\n'.join(parts)

    def extension_state(self):
        """The extension's state as the shell's extension manager holds it (1: enabled/active)."""
        return self.eval("String(Main.extensionManager.lookup('%s')?.state)" % UUID)

    def wait_active(self, timeout=20):
        """Waits until the extension is enabled; when it is not, the failure says why (its state
        and error as `gnome-extensions info` reports them)."""
        failed_since = [None]

        def enabled():
            state = self.extension_state()
            # ERROR and OUT_OF_DATE are final once they last: no need to wait out the timeout.
            # (A moment's ERROR at start, then ACTIVE, has been seen under GNOME 51 a few times in
            # a hundred starts, with no error recorded; the extension then works.)
            if state in ('"3"', '"4"'):
                failed_since[0] = failed_since[0] or time.monotonic()
                if time.monotonic() - failed_since[0] >= 3:
                    raise AssertionError('the extension is not enabled (state %s)' % state)
            else:
                failed_since[0] = None
            return state == '"1"'
        try:
            wait_until(enabled, timeout, "the extension enabled (state 1)")
        except AssertionError as e:
            raise AssertionError('%s\n%s' % (e, self.extension_report())) from None

    def _start_session_services(self):
        """logind and GDM as python-dbusmock mocks on the private system bus, where the shell can
        then lock: GNOME Shell makes its screen shield only when LoginManager.canLock() (GDM's
        Version on the system bus, and logind's /run/systemd/seats), which a headless shell
        without them never has. Only where /run/systemd/seats exists (a booted system, or the root
        scripts/check-gnome.sh prepares) and python3-dbusmock is installed; elsewhere the lock
        screen test makes the shield itself (GNOME 43 lets it). Not for GNOME 43 either: with
        these mocks its shell stopped answering at start in about half the starts in a Debian 12
        root (its log ends after the PolKit message), and its shield can be made through Eval."""
        self.lockable = False
        if FORM == 'legacy' or not os.path.isdir('/run/systemd/seats'):
            return
        try:
            import dbusmock  # noqa: F401
        except ImportError:
            return
        env = dict(self.env)
        for argv in (['-m', 'dbusmock', '--system', '--template', 'logind'],
                     ['-m', 'dbusmock', '--system', 'org.gnome.DisplayManager', '/org/gnome/DisplayManager/Manager',
                      'org.gnome.DisplayManager.Manager']):
            self._procs.append(subprocess.Popen([sys.executable] + argv, env=env, stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL))
        for name in ('org.freedesktop.login1', 'org.gnome.DisplayManager'):
            wait_until(lambda: subprocess.run(['gdbus', 'call', '--system', '--dest', 'org.freedesktop.DBus',
                                               '--object-path', '/org/freedesktop/DBus', '--method',
                                               'org.freedesktop.DBus.NameHasOwner', name], env=env,
                                              capture_output=True, text=True).stdout.startswith('(true'),
                       20, 'the %s mock on the system bus' % name)
        mock = ['gdbus', 'call', '--system', '--dest']
        subprocess.run(mock + ['org.gnome.DisplayManager', '--object-path', '/org/gnome/DisplayManager/Manager',
                               '--method', 'org.freedesktop.DBus.Mock.AddProperty', 'org.gnome.DisplayManager.Manager',
                               'Version', "<'%d.0'>" % shell_major()], env=env, check=True, capture_output=True)
        # The shell's own session, which its screen shield asks logind for (Lock, Unlock, Active).
        subprocess.run(mock + ['org.freedesktop.login1', '--object-path', '/org/freedesktop/login1', '--method',
                               'org.freedesktop.DBus.Mock.AddSession', 'plx', 'seat0', str(os.getuid()),
                               'parallax', 'true'], env=env, check=True, capture_output=True)
        self.env['XDG_SESSION_ID'] = 'plx'
        self.lockable = True

    def set_enabled(self, on):
        """Enables or disables the extension through enabled-extensions, as the Extensions app
        does, and waits until the shell has done it."""
        self.gsettings('org.gnome.shell', 'enabled-extensions', repr([HELPER_UUID, UUID] if on else [HELPER_UUID]))
        if on:
            self.wait_active()
        else:
            wait_until(lambda: self.extension_state() not in ('"1"', '"7"', '"8"'), 20, 'the extension disabled')

    def pid(self):
        return self.shell.pid

    def reenable_extension(self):
        """Disables and enables the extension again (through enabled-extensions, as the
        Extensions app does): it then connects to what the shell has now."""
        state = "String(Main.extensionManager.lookup('%s').state)" % UUID
        self.gsettings('org.gnome.shell', 'enabled-extensions', repr([HELPER_UUID]))
        wait_until(lambda: self.eval(state) != '"1"', 20, 'the extension disabled')
        self.gsettings('org.gnome.shell', 'enabled-extensions', repr([HELPER_UUID, UUID]))
        wait_until(lambda: self.eval(state) == '"1"', 20, 'the extension enabled')

    def hide_overview(self):
        self.eval('Main.overview.hide()')
        wait_until(lambda: self.eval('String(Main.overview.visible || Main.overview.animationInProgress)') == '"false"',
                   30, 'the overview to close')

    def show_overview(self):
        self.eval('Main.overview.show()')
        wait_until(lambda: self.eval('String(Main.overview.visible && !Main.overview.animationInProgress)') == '"true"',
                   30, 'the overview to open')

    def _evaluates(self):
        if self.shell.poll() is not None:
            raise AssertionError('gnome-shell exited (%d):\n%s' % (self.shell.returncode, self.log()[-3000:]))
        ok, _ = self._eval('1')
        return ok

    def _gdbus(self, dest, path, method, *args, check=True):
        out = subprocess.run(['gdbus', 'call', '--session', '--dest', dest, '--object-path', path, '--method', method]
                             + list(args), env=self.env, capture_output=True, text=True, timeout=30)
        if check and out.returncode != 0:
            raise AssertionError('%s failed: %s' % (method, out.stderr))
        return out

    def _eval(self, script):
        out = self._gdbus('org.gnome.Shell', '/org/gnome/Shell', 'org.gnome.Shell.Eval', script, check=False)
        if out.returncode != 0:
            return False, out.stderr
        text = out.stdout.strip()
        ok = text.startswith('(true,')
        value = ast.literal_eval(text[text.index(',') + 1:-1].strip())
        return ok, value

    def eval(self, script):
        """The JSON text of the value of script evaluated in the shell."""
        ok, value = self._eval(script)
        if not ok:
            raise AssertionError('Eval(%r) failed: %s' % (script, value))
        return value

    def gsettings(self, schema, key, value):
        subprocess.run(self.gsettings_command(schema) + ['set', schema, key, value], env=self.env, check=True, timeout=30)

    def gsettings_command(self, schema):
        """gsettings, with the extension's own schema folder for its schema when it is installed
        for the HOME (the package's is compiled with the system's)."""
        if schema == SCHEMA and self.schemas:
            return ['gsettings', '--schemadir', self.schemas]
        return ['gsettings']

    def screenshot(self):
        path = os.path.join(self.dir, 'shot.png')
        self._gdbus('org.gnome.Shell.Screenshot', '/org/gnome/Shell/Screenshot',
                    'org.gnome.Shell.Screenshot.Screenshot', 'false', 'false', path)
        pic = pngkit.read(path).rgb()
        os.unlink(path)
        return pic

    def rotate(self, transform):
        """Gives the virtual monitor Mutter's transform (1 = rotated by 90°) through the D-Bus
        display configuration, as the desktop's settings or iio-sensor-proxy's rotation do."""
        state = self._gdbus('org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig',
                            'org.gnome.Mutter.DisplayConfig.GetCurrentState').stdout
        serial = state.split(',', 1)[0].strip('( ').replace('uint32 ', '')
        mode = '%dx%d@60.000' % (self.width, self.height)
        self._gdbus('org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig',
                    'org.gnome.Mutter.DisplayConfig.ApplyMonitorsConfig', serial, '1',
                    "[(0, 0, 1.0, %d, true, [('Meta-0', '%s', {})])]" % (transform, mode), '{}')

    def power_save(self, mode):
        """Mutter's PowerSaveMode (0 on, 3 off), as GNOME's screen blanking sets it."""
        self._gdbus('org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig',
                    'org.freedesktop.DBus.Properties.Set', 'org.gnome.Mutter.DisplayConfig', 'PowerSaveMode',
                    '<%d>' % mode)

    def client(self, argv, env=None):
        """Starts a Wayland client of this shell (stdout piped, text; env: more environment);
        stopped by close()."""
        proc = subprocess.Popen(argv, env=dict(self.env, WAYLAND_DISPLAY=WAYLAND_DISPLAY, GDK_BACKEND='wayland', **(env or {})),
                                stdout=subprocess.PIPE, stderr=self._log, text=True, cwd=self.dir)
        self._clients.append(proc)
        return proc

    def services_log(self):
        """What the services the session bus started wrote (the preferences app's errors)."""
        return self.log(self.services_log_path)

    def point(self, x, y):
        """Moves the pointer to (x, y) of the stage through a virtual pointer of the shell's seat
        (as a real pointer's events arrive) and waits until the shell has seen it there. The
        motion is sent again until it lands: a new virtual pointer's first absolute motion lands
        at x = 0 under GNOME 50."""
        x, y = int(x), int(y)

        def there():
            if json.loads(json.loads(self.eval('JSON.stringify(global.get_pointer().slice(0, 2))'))) == [x, y]:
                return True
            self.eval('%s.notify_absolute_motion(%s, %d, %d)' % (self._POINTER, self._NOW, x, y))
            return False
        wait_until(there, 10, 'the pointer at (%d, %d)' % (x, y), interval=0.2)

    def click_until(self, x, y, done, what, timeout=20):
        """Clicks at (x, y) until done() is true (returned), waiting a second for the effect of
        each click before the next: a press may be dropped (a new virtual pointer's first click
        under GNOME 50, a press that comes with the pointer's first entry into a GTK 4.18
        surface)."""
        deadline = time.monotonic() + timeout
        while True:
            self.click(x, y)
            try:
                return wait_until(done, 1.0, what)
            except AssertionError:
                if time.monotonic() > deadline:
                    raise

    def click(self, x, y):
        """A click of the primary button at (x, y): the pointer moves there, and the button goes
        down and up once the shell has seen it there."""
        self.point(x, y)
        for state in ('PRESSED', 'RELEASED'):
            self.eval('%s.notify_button(%s, imports.gi.Clutter.BUTTON_PRIMARY, imports.gi.Clutter.ButtonState.%s)'
                      % (self._POINTER, self._NOW, state))

    # The seat's backend: the stage's Clutter context (mutter 46 and later; 51 removed
    # Clutter.get_default_backend), or the default backend before.
    _POINTER = ('(global._plxPointer = global._plxPointer || (global.stage.context ? global.stage.context.get_backend() '
                ': imports.gi.Clutter.get_default_backend())'
                '.get_default_seat().create_virtual_device(imports.gi.Clutter.InputDeviceType.POINTER_DEVICE))')
    _NOW = 'imports.gi.GLib.get_monotonic_time()'

    def windows(self):
        """[(title, wm_class, (x, y, width, height))] of the windows the shell shows."""
        return [(t, c, tuple(r)) for t, c, r in json.loads(json.loads(self.eval(
            'JSON.stringify(global.get_window_actors().map(a => a.meta_window).map(w => [w.get_title(), '
            'w.get_wm_class(), (r => [r.x, r.y, r.width, r.height])(w.get_frame_rect())]))')))]

    def log(self, path=None):
        try:
            with open(path or self.log_path, 'rb') as f:
                return f.read().decode(errors='replace')
        except (OSError, AttributeError):
            return ''

    def close(self):
        for proc in self._clients + ([self.shell] if self.shell else []) + self._procs[::-1]:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.shell = None
        self._procs = []
        self._clients = []
        shutil.rmtree(self.dir, ignore_errors=True)


def find_marker(pic, colour=MARKER, tolerance=40):
    """(centre x, centre y, width, height) of the pixels near `colour`, or None."""
    xs, ys = [], []
    data, w = pic.data, pic.width
    r0, g0, b0 = colour
    for y in range(0, pic.height):
        row = y * w * 3
        for x in range(0, w):
            i = row + x * 3
            if abs(data[i] - r0) <= tolerance and abs(data[i + 1] - g0) <= tolerance and abs(data[i + 2] - b0) <= tolerance:
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return ((min(xs) + max(xs) + 1) / 2, (min(ys) + max(ys) + 1) / 2, max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
