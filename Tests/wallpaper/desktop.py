"""Harness for parallax-wallpaper on a real Wayland compositor without a display or GPU: headless
sway with the pixman renderer, run as an unprivileged account (sway refuses root), screenshots
with grim, Mesa's software EGL in the client.

Sway(...) starts one compositor per test in its own XDG_RUNTIME_DIR; Wallpaper(...) starts the
client as the same account; screenshot() returns a pngkit.Picture."""
import glob
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'integration'))
import accounts  # noqa: E402  (copies of repository files the account can read)
import pngkit  # noqa: E402

ACCOUNT = os.environ.get('PLX_WALLPAPER_ACCOUNT', accounts.ACCOUNT)
GROUP = accounts.GROUP


def account_ids():
    entry = pwd.getpwnam(ACCOUNT)
    return entry.pw_uid, entry.pw_gid


def as_account(argv):
    """The command line that runs argv as the unprivileged account (when we are root). Start it
    with cwd=accounts.NEUTRAL_CWD, and give it repository files through readable() (the clone
    may be in a folder the account cannot enter)."""
    if os.getuid() != 0:
        return list(argv)
    return ['setpriv', '--reuid=' + ACCOUNT, '--regid=' + GROUP, '--clear-groups'] + list(argv)


def readable(path):
    """path as the account can read it: a shared copy when we are root (accounts.shared_copy),
    else path itself (the account is then ourselves)."""
    return accounts.shared_copy(path) if os.getuid() == 0 else path


def wait_until(predicate, timeout, what, interval=0.05):
    """Polls predicate until it returns a true value (returned) or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError('timed out after %.1f s waiting for %s (last: %r)' % (timeout, what, last))


def private_dir(prefix):
    """A directory the account owns with mode 0700 (XDG_RUNTIME_DIR rules)."""
    path = tempfile.mkdtemp(prefix=prefix, dir='/tmp')
    uid, gid = account_ids()
    if os.getuid() == 0:
        os.chown(path, uid, gid)
    os.chmod(path, 0o700)
    return path


def shared_dir(prefix):
    """A directory both we and the account can read (scenes, images, the fake daemon's socket)."""
    path = tempfile.mkdtemp(prefix=prefix, dir='/tmp')
    os.chmod(path, 0o755)
    return path


class Compositor:
    """A headless compositor run as the account, in its own XDG_RUNTIME_DIR and HOME; clients get
    client_env. Subclasses start it (_launch) and say how to take a screenshot."""
    name = 'compositor'

    def __init__(self):
        self.runtime = private_dir('plx-wl-run-')
        self.home = private_dir('plx-wl-home-')
        self.log_path = os.path.join(self.home, self.name + '.log')
        self.log = open(self.log_path, 'w')
        self.proc = None
        self.helpers = []       # processes to end before the compositor

    def _launch(self, argv, env, socket_name):
        """Starts argv as the account and waits for its Wayland socket."""
        self.env = env
        self.proc = subprocess.Popen(as_account(argv), env=env, cwd=accounts.NEUTRAL_CWD,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        socket_path = os.path.join(self.runtime, socket_name)
        wait_until(lambda: os.path.exists(socket_path) or self.proc.poll() is not None, 20, self.name + ' to listen')
        if self.proc.poll() is not None:
            raise RuntimeError(self.name + ' exited: ' + open(self.log_path).read()[-2000:])
        self.client_env = {'XDG_RUNTIME_DIR': self.runtime, 'WAYLAND_DISPLAY': socket_name,
                           'PATH': '/usr/bin:/bin', 'HOME': self.home, 'LANG': 'C.UTF-8'}

    def write_config(self, name, text):
        path = os.path.join(self.home, name)
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, 0o644)
        return path

    def screenshot(self, output=None):
        """The output (or all of them) as its viewer sees it, through wlr-screencopy (grim)."""
        path = os.path.join(self.home, 'shot.png')
        argv = ['grim'] + (['-o', output] if output else []) + [path]
        subprocess.run(as_account(argv), env=self.client_env, cwd=accounts.NEUTRAL_CWD, check=True, timeout=20)
        return pngkit.read(path)

    def announced_transforms(self):
        """The wl_output transforms (degrees, in the order of the outputs) the compositor announces
        to clients, read from a Wayland protocol trace of grim (which reads every wl_output before
        it looks for screencopy): independent of the wallpaper."""
        result = subprocess.run(as_account(['grim', os.path.join(self.home, 'probe.png')]), cwd=accounts.NEUTRAL_CWD,
                                env=dict(self.client_env, WAYLAND_DEBUG='1'), capture_output=True, text=True, timeout=20)
        found = re.findall(r'wl_output@\d+\.geometry\((?:[^,]*,){7} *(\d+)\)', result.stderr)
        return [(int(v) & 3) * 90 for v in found]

    def close(self):
        for p in self.helpers + [self.proc]:
            if p is None or p.poll() is not None:
                continue
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.log.close()
        shutil.rmtree(self.runtime, ignore_errors=True)
        shutil.rmtree(self.home, ignore_errors=True)


class Sway(Compositor):
    """Headless sway (wlroots pixman renderer) with outputs of the given config lines."""
    name = 'sway'

    def __init__(self, width=640, height=360, transform=None, scale=None, outputs=1, refresh=None):
        """refresh: the outputs' refresh rate (Hz); wlroots' headless default is 60."""
        super().__init__()
        lines = []
        for n in range(1, outputs + 1):
            line = 'output HEADLESS-%d mode %dx%d' % (n, width, height)
            if refresh is not None:
                line += '@%gHz' % refresh
            if transform is not None:
                line += ' transform %s' % transform
            if scale is not None:
                line += ' scale %s' % scale
            lines.append(line)
        config = self.write_config('config', '\n'.join(lines) + '\n')
        self._launch(['sway', '-c', config], {
            'PATH': '/usr/bin:/bin', 'HOME': self.home, 'XDG_RUNTIME_DIR': self.runtime,
            'WLR_BACKENDS': 'headless', 'WLR_RENDERER': 'pixman', 'WLR_LIBINPUT_NO_DEVICES': '1',
            'WLR_HEADLESS_OUTPUTS': str(outputs), 'LANG': 'C.UTF-8',
        }, 'wayland-1')

    def swaymsg(self, *command):
        """Runs one sway IPC command (e.g. 'fullscreen', 'enable'); returns swaymsg's output."""
        ipc = glob.glob(os.path.join(self.runtime, 'sway-ipc.*.sock'))[0]
        result = subprocess.run(as_account(['swaymsg'] + list(command)), env=dict(self.client_env, SWAYSOCK=ipc),
                                cwd=accounts.NEUTRAL_CWD, check=True, capture_output=True, text=True, timeout=20)
        return result.stdout


class Weston(Compositor):
    """Headless weston (pixman renderer, one output) as the unprivileged account: a compositor
    that answers wp_presentation feedback, which headless sway 1.7 (wlroots 0.15) does not. It has
    no wlr-layer-shell, so the wallpaper runs in it with --window."""
    name = 'weston'

    def __init__(self, width=640, height=360):
        super().__init__()
        argv = ['weston', '--backend=headless-backend.so', '--use-pixman', '--no-config', '--socket=wayland-1',
                '--width=%d' % width, '--height=%d' % height]
        self._launch(argv, {'PATH': '/usr/bin:/bin', 'HOME': self.home, 'XDG_RUNTIME_DIR': self.runtime,
                            'LANG': 'C.UTF-8'}, 'wayland-1')


class Wallpaper:
    """parallax-wallpaper running on a Sway as the unprivileged account."""

    def __init__(self, binary, sway, args, env=None):
        self.sway = sway
        self.log_path = os.path.join(sway.home, 'wallpaper-%d.log' % time.monotonic_ns())
        self.log = open(self.log_path, 'w')
        full_env = dict(sway.client_env)
        full_env.update(env or {})
        self.proc = subprocess.Popen(as_account([readable(binary)] + list(args)), env=full_env, cwd=accounts.NEUTRAL_CWD,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def output(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        """SIGTERM; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def find_box(pic, matches):
    """Bounding box (x0, y0, x1, y1), inclusive, of the pixels for which matches(rgb) holds; None
    when there are none."""
    c = pic.channels
    data = pic.data
    xs, ys = [], []
    w = pic.width
    for y in range(pic.height):
        row = y * w * c
        for x in range(w):
            i = row + x * c
            if matches((data[i], data[i + 1], data[i + 2])):
                xs.append(x)
                ys.append(y)
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def near(colour, target, tolerance=24):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target))
