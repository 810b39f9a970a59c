"""Phosh, the real shell, on headless phoc (phoc.py) for the wallpaper tests: phosh 0.24 on
Debian 12, 0.46 in a Debian 13 root (scripts/check-phosh-trixie.sh).

What it takes to run headless (docs/wallpaper.md "Under desktop shells: Plasma and Phosh"):
- a seat: phosh crashes on a phoc without one, and headless phoc makes its seat only when an
  input device comes, so a virtual pointer (pointer_probe.py) is added first;
- its own system and session buses (private dbus-daemons); it needs no upower or
  NetworkManager (warnings only). On the system bus, the stand-in logind (stand_in_logind.py:
  no systemd runs here) with one graphical session, where phosh sets LockedHint when it locks and
  unlocks, as it does with logind: phosh finds the session's ID with sd-login, which reads
  /run/systemd/users/UID (DISPLAY=); as root that file is written in phosh's private mount
  namespace (below, on a tmpfs over /run/systemd there), so the host's /run is not touched. Not as
  root, phosh finds no session and sets no LockedHint (locked_hint() stays None);
- `phosh -U`: started unlocked;
- its background set to one colour (gsettings org.gnome.desktop.background: no picture,
  primary-color BLUE), so a screenshot tells phosh's background from the wallpaper's scene.

The app grid (phosh's home, unfolded) opens and closes with Super+a (wtype); the lock screen comes
with org.gnome.ScreenSaver.Lock and goes only for the account's password (SetActive(false) does
not end it): phosh checks it with PAM (service "phosh", which Debian does not ship, so PAM's
"other": common-auth, pam_unix). The test account (nobody) has no password, so phosh runs, as
root, in a private mount namespace (unshare -m) where /etc/shadow is a file of the test's own that
gives nobody the PIN TEST_PIN: PAM's stack and pam_unix stay the real ones and only the account
database is the test's; the host's /etc is not touched. unlock() types the PIN on the lock
screen's keypad page with wtype, as a user with a keyboard does. Not as root (the harness then
runs phosh as the caller, whose password it does not know) phosh cannot be unlocked:
can_unlock() says so."""
import os
import pwd
import shutil
import subprocess
import threading
import time

import accounts
from desktop import ACCOUNT, as_account, near, wait_until
from phoc import Phoc
from pointer_probe import PointerProbe
from stand_in_logind import SESSION_ID

PHOSH = '/usr/libexec/phosh'
BACKGROUND = (0, 0, 255)        # phosh's background colour in these tests
BUS_NAME = 'org.gnome.ScreenSaver'      # one of the names phosh takes once it is up
START_TIMEOUT_S = 30
SEARCH_ENTRY = (40, 40, 40)     # the app grid's search entry
TOP_BAR_ROWS = 24               # where phosh's top bar shows its clock
TOGGLE_WAIT_S = 3               # how long one Super+a is given to show before it is pressed again
# The PIN phosh's lock screen takes in these tests, and its sha512-crypt hash in the test's
# /etc/shadow (`openssl passwd -6 -salt phoshtest 314159`).
TEST_PIN = '314159'
TEST_PIN_HASH = '$6$phoshtest$zBL2LyZ2t4udso2Bk.SzmhUUOpzWobGKQTjfk8ZIskhh1.6n/Cr2nyzNb95UKiKQHlqCQHjXMx/X51B8KWQZm0'
UNLOCK_TIMEOUT_S = 20
SUBMIT_WAIT_S = 1               # how long one Return is given to unlock before it is pressed again


class Phosh(Phoc):
    """phoc with a seat and two private buses; start_phosh() / stop_phosh() run the shell in it.
    bus_env: a client's environment with the session bus (the wallpaper hears the lock there)."""
    name = 'phoc'

    def __init__(self, width=640, height=360, outputs=1):
        super().__init__(width=width, height=height, outputs=outputs)
        self.width, self.height = width, height
        self.pointer = PointerProbe(self)
        self.bus_env = dict(self.client_env)
        for kind in ('system', 'session'):
            address = 'unix:path=%s/%s-bus' % (self.runtime, kind)
            bus = subprocess.Popen(as_account(['dbus-daemon', '--session', '--nofork', '--nopidfile',
                                               '--address=' + address, '--print-address']),
                                   env=self.client_env, cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, text=True)
            self.helpers.append(bus)
            bus.stdout.readline()       # the address: it listens
            self.bus_env['DBUS_SYSTEM_BUS_ADDRESS' if kind == 'system' else 'DBUS_SESSION_BUS_ADDRESS'] = address
        self._start_logind()
        for key, value in (('picture-uri', ''), ('picture-uri-dark', ''), ('picture-options', 'none'),
                           ('primary-color', '#%02x%02x%02x' % BACKGROUND)):
            self._run(['gsettings', 'set', 'org.gnome.desktop.background', key, value])
        self.phosh = None
        self.phosh_log = open(os.path.join(self.home, 'phosh.log'), 'a')

    def _start_logind(self):
        """The stand-in logind on the system bus; a thread keeps the last LockedHint it was given."""
        script = accounts.shared_copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'stand_in_logind.py'))
        self.logind = subprocess.Popen(as_account(['/usr/bin/python3', script, self.bus_env['DBUS_SYSTEM_BUS_ADDRESS']]),
                                       env=self.bus_env, cwd=accounts.NEUTRAL_CWD, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
        self.helpers.insert(0, self.logind)
        line = self.logind.stdout.readline().strip()
        assert line == 'ready', 'the stand-in logind did not start (%r)' % line
        self.locked_hints = []

        def follow():
            for line in self.logind.stdout:
                if line.startswith('locked-hint '):
                    self.locked_hints.append(line.split()[1] == 'true')
        threading.Thread(target=follow, daemon=True).start()

    def stop_logind(self):
        """Ends the stand-in logind: a system bus with no logind on it."""
        self.logind.terminate()
        self.logind.wait(10)

    def set_locked_hint(self, locked):
        """Sets LockedHint on the stand-in logind's session, as a lock screen does."""
        self._run(['dbus-send', '--system', '--print-reply', '--dest=org.freedesktop.login1',
                   '/org/freedesktop/login1/session/' + SESSION_ID, 'org.freedesktop.login1.Session.SetLockedHint',
                   'boolean:' + ('true' if locked else 'false')])

    def locked_hint(self):
        """The LockedHint phosh last set on its logind session (None: never set)."""
        return self.locked_hints[-1] if self.locked_hints else None

    def _run(self, argv):
        result = subprocess.run(as_account(argv), env=self.bus_env, cwd=accounts.NEUTRAL_CWD,
                                capture_output=True, text=True, timeout=20)
        assert result.returncode == 0, '%s failed: %s' % (' '.join(argv), result.stderr.strip())
        return result.stdout

    @staticmethod
    def version():
        """(major, minor) of the installed phosh (its Debian package's version, "0.46.0-3+deb13u1")."""
        out = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'phosh'], capture_output=True, text=True, check=True).stdout
        return tuple(int(n) for n in out.split('-')[0].split('.')[:2])

    def _owned(self, name):
        result = subprocess.run(as_account(['dbus-send', '--session', '--print-reply', '--dest=org.freedesktop.DBus',
                                            '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:' + name]),
                                env=self.bus_env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=20)
        return 'boolean true' in result.stdout

    def start_phosh(self):
        """Starts phosh unlocked and waits until it answers on the session bus."""
        env = dict(self.bus_env, XDG_CURRENT_DESKTOP='Phosh:GNOME', XDG_SESSION_DESKTOP='phosh',
                   GDK_BACKEND='wayland', NO_AT_BRIDGE='1', GTK_A11Y='none')
        self.phosh = subprocess.Popen(self._with_test_shadow(as_account([PHOSH, '-U'])), env=env,
                                      cwd=accounts.NEUTRAL_CWD, stdout=self.phosh_log, stderr=subprocess.STDOUT)
        self.helpers.insert(0, self.phosh)
        wait_until(lambda: self._owned(BUS_NAME) or self.phosh.poll() is not None, START_TIMEOUT_S, 'phosh on the bus')
        assert self.phosh.poll() is None, 'phosh exited (%r): %s' % (self.phosh.returncode, self.log_tail())

    @staticmethod
    def can_unlock():
        """Whether phosh's lock screen can be unlocked here: only as root (_with_test_shadow)."""
        return os.getuid() == 0

    def _with_test_shadow(self, argv):
        """argv run (as root) in a private mount namespace whose /etc/shadow is a file of the test's
        own giving the account the PIN TEST_PIN; readable by all, as it holds only that test hash,
        so pam_unix reads it in phosh itself (its setgid helper unix_chkpwd would do the same).
        There too, a tmpfs over /run/systemd (over /run where there is none, as in a chroot) holds
        the account's sd-login user file naming the stand-in logind's session as its display
        session, so phosh sets LockedHint there. Mounts made there stay there and go with the
        process (unshare makes them private)."""
        if not self.can_unlock():
            return argv
        shadow = os.path.join(self.home, 'shadow')
        with open(shadow, 'w') as f:
            f.write('%s:%s:19000:0:99999:7:::\n' % (ACCOUNT, TEST_PIN_HASH))
        os.chmod(shadow, 0o644)
        user_file = '/run/systemd/users/%d' % pwd.getpwnam(ACCOUNT).pw_uid
        return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
                'set -e; mount --bind "$0" /etc/shadow; '
                'if [ -d /run/systemd ]; then mount -t tmpfs -o mode=0755 tmpfs /run/systemd; '
                'else mount -t tmpfs -o mode=0755 tmpfs /run; fi; '
                'mkdir -p /run/systemd/users; printf "DISPLAY=%s\\n" > %s; exec "$@"' % (SESSION_ID, user_file),
                shadow] + argv

    def start_session(self, autostart_entry):
        """Phosh's session as Phosh 0.24's phosh-session starts it: `gnome-session --builtin` (no
        systemd), which starts phosh (its sm.puri.Phosh entry, here with -U) and then the XDG
        autostart entries, of which `autostart_entry` (the text of a .desktop file) is the only one
        (XDG_CONFIG_DIRS names a folder of the test's own). Waits until phosh answers on the bus."""
        assert shutil.which('gnome-session'), 'gnome-session is not installed (scripts/setup.sh installs gnome-session-bin)'
        config_dirs = os.path.join(self.home, 'xdg')
        for folder, name, text in (
                ('autostart', 'parallax-wallpaper.desktop', autostart_entry),
                ('gnome-session/sessions', 'phosh-test.session',
                 '[GNOME Session]\nName=Phosh (test)\nRequiredComponents=sm.puri.Phosh;\n')):
            os.makedirs(os.path.join(config_dirs, folder), exist_ok=True)
            self.write_config(os.path.join('xdg', folder, name), text)
        applications = os.path.join(self.home, '.local', 'share', 'applications')
        os.makedirs(applications, exist_ok=True)
        with open('/usr/share/applications/sm.puri.Phosh.desktop') as f:
            phosh_entry = f.read().replace('Exec=%s\n' % PHOSH, 'Exec=%s -U\n' % PHOSH)
        self.write_config(os.path.join('.local', 'share', 'applications', 'sm.puri.Phosh.desktop'), phosh_entry)
        for top, dirs, files in os.walk(self.home):
            for name in dirs:
                os.chmod(os.path.join(top, name), 0o755)
        env = dict(self.bus_env, XDG_CURRENT_DESKTOP='Phosh:GNOME', XDG_SESSION_DESKTOP='phosh',
                   XDG_CONFIG_DIRS=config_dirs, XDG_CONFIG_HOME=os.path.join(self.home, '.config'),
                   XDG_DATA_HOME=os.path.join(self.home, '.local', 'share'),
                   GDK_BACKEND='wayland', NO_AT_BRIDGE='1', GTK_A11Y='none')
        self.phosh = subprocess.Popen(as_account(['gnome-session', '--builtin', '--disable-acceleration-check',
                                                  '--session=phosh-test']),
                                      env=env, cwd=accounts.NEUTRAL_CWD, stdout=self.phosh_log, stderr=subprocess.STDOUT)
        self.helpers.insert(0, self.phosh)
        wait_until(lambda: self._owned(BUS_NAME) or self.phosh.poll() is not None, START_TIMEOUT_S, 'phosh on the bus')
        assert self.phosh.poll() is None, 'gnome-session exited (%r): %s' % (self.phosh.returncode, self.log_tail())

    def stop_phosh(self):
        self.phosh.terminate()
        self.phosh.wait(10)
        wait_until(lambda: not self._owned(BUS_NAME), 10, 'phosh off the bus')

    def log_tail(self):
        self.phosh_log.flush()
        with open(os.path.join(self.home, 'phosh.log')) as f:
            return f.read()[-3000:]

    def centre(self):
        return self.screenshot().pixel(self.width // 2, self.height // 2)[:3]

    def toggle_app_grid(self):
        self._run(['wtype', '-M', 'logo', 'a', '-m', 'logo'])

    def app_grid_open(self, pic=None):
        """Whether phosh's app grid is up: its search entry (a dark grey bar, (40, 40, 40) in 0.24
        and 0.46) spans the top half of the screen."""
        pic = pic or self.screenshot()
        xs = [self.width // 4, self.width // 2, 3 * self.width // 4]
        return any(all(near(pic.pixel(x, y)[:3], SEARCH_ENTRY, 6) for x in xs) for y in range(0, self.height // 2, 2))

    def top_bar_drawn(self, pic):
        """Whether phosh has drawn its top bar: the clock's white text in the top rows (phosh takes
        its bus names before it draws)."""
        return any(near(pic.pixel(x, y)[:3], (255, 255, 255), 30) for y in range(TOP_BAR_ROWS) for x in range(self.width))

    def show_desktop(self, colour=None):
        """Folds the app grid until phosh's top bar is drawn, the grid is gone and the middle of the
        screen shows `colour` (phosh opens its app grid at start when no app runs; phosh 0.46 draws
        it over a copy of its background, so the colour alone does not say it is folded)."""
        def shown():
            pic = self.screenshot()
            return (self.top_bar_drawn(pic) and not self.app_grid_open(pic)
                    and (colour is None or near(pic.pixel(self.width // 2, self.height // 2)[:3], colour, 2)))
        self.toggle_app_grid_until(shown, 'the desktop%s' % ('' if colour is None else ' showing %r' % (colour,)))

    def show_app_grid(self):
        self.toggle_app_grid_until(self.app_grid_open, 'the app grid')

    def toggle_app_grid_until(self, shown, what):
        """Presses Super+a until shown() holds: a key pressed before phosh listens, or while its
        home still slides, is not seen, so it is pressed again after each TOGGLE_WAIT_S."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                return wait_until(shown, TOGGLE_WAIT_S, what)
            except AssertionError:
                self.toggle_app_grid()
        raise AssertionError('timed out waiting for %s (the middle of the screen: %r); phosh: %s'
                             % (what, self.centre(), self.log_tail()))

    def _screensaver(self, method, *args):
        return self._run(['dbus-send', '--session', '--print-reply', '--dest=org.gnome.ScreenSaver',
                          '/org/gnome/ScreenSaver', 'org.gnome.ScreenSaver.' + method] + list(args))

    def lock(self):
        self._screensaver('Lock')

    def locked(self):
        return 'boolean true' in self._screensaver('GetActive')

    def _type(self, *keys):
        # Each wtype is a new virtual keyboard, and the first key after it appears can be lost
        # while phosh takes its keymap: a Shift press, which the lock screen ignores, goes first.
        self._run(['wtype', '-k', 'Shift_L'] + list(keys))

    def wake(self):
        """Ends the blank that phosh 0.46 starts with every lock (it powers the output off, and on
        headless phoc that disables it: grim then fails). A user presses the power button; here
        that does not wake it (phosh sees XF86PowerOff, but the output stays off), so
        org.gnome.ScreenSaver.SetActive(false) does: it ends the blank and not the lock, and
        phosh signals ActiveChanged(false) while its lock screen stays up. Returns once the output
        is on again (a screenshot can be taken)."""
        self._screensaver('SetActive', 'boolean:false')

        def output_on():
            try:
                return self.screenshot()
            except subprocess.CalledProcessError:
                return None
        return wait_until(output_on, 20, 'the output on again after the wake')

    def unlock(self, unlocked):
        """Unlocks as a user with a keyboard does: the PIN's first digit brings the lock screen's
        keypad page and goes into its entry with the rest, then Return submits the entry once the
        page is there (it is ignored while the page slides in, so it is pressed again after each
        SUBMIT_WAIT_S until unlocked() holds). unlocked: how the test sees that the lock screen
        is gone (phosh 0.24's GetActive says so; 0.46's says only whether the screen is blanked)."""
        assert self.can_unlock(), 'only root can give phosh a PIN (Phosh.can_unlock)'
        self._type(TEST_PIN)
        deadline = time.monotonic() + UNLOCK_TIMEOUT_S
        while time.monotonic() < deadline:
            self._type('-k', 'Return')
            try:
                return wait_until(unlocked, SUBMIT_WAIT_S, 'phosh to unlock')
            except AssertionError:
                pass
        raise AssertionError('phosh did not unlock for the PIN; phosh: %s' % self.log_tail())

    def close(self):
        self.phosh_log.close()
        super().close()
