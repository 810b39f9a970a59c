"""The daemon process: finding the built binaries, parallaxd as a child process (under the
umockdev preload, readiness by sd_notify) and parallaxd behind systemd-socket-activate."""
import os
import signal
import subprocess
import threading

from .client import Client
from .common import REPO_ROOT, HarnessError
from .notify import NotifySocket

# How long the daemon gets to send READY=1 (s): a debug build under the umockdev preload.
READY_TIMEOUT = 20.0
# How long a SIGTERM'd daemon gets before SIGKILL (s).
STOP_TIMEOUT = 10.0
# Returned by Daemon.stop() when SIGTERM did not end the process and it had to be killed.
KILLED = -signal.SIGKILL


# ---------------------------------------------------------------------------------------------
# Binaries

def find_binary(name, env_var=None):
    """Path of a built executable: $PARALLAXD / $PARALLAXCTL, else $PARALLAX_BIN_DIR/name, else
    REPO/.build/debug/name. Returns the path whether or not it exists (see binary_missing)."""
    env_var = env_var or name.upper()
    if os.environ.get(env_var):
        return os.path.abspath(os.environ[env_var])
    bin_dir = os.environ.get('PARALLAX_BIN_DIR') or os.path.join(REPO_ROOT, '.build', 'debug')
    return os.path.join(os.path.abspath(bin_dir), name)


def binary_missing(path):
    """A reason string when `path` is not an executable file, else None."""
    if not os.path.isfile(path):
        return '%s not built (swift build first, or set PARALLAXD / PARALLAXCTL / PARALLAX_BIN_DIR)' % path
    if not os.access(path, os.X_OK):
        return '%s is not executable' % path
    return None


# ---------------------------------------------------------------------------------------------
# The daemon process

class DaemonError(Exception):
    pass


# PR_SET_PDEATHSIG from <linux/prctl.h>: the kernel signals the child when the harness dies, so a
# crashed test run leaves no daemon behind.
_PR_SET_PDEATHSIG = 1
try:
    import ctypes
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def _die_with_parent():
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Daemon:
    """parallaxd as a child process under the umockdev preload, with readiness by sd_notify.

    daemon = Daemon(workdir, testbed).start()   # returns after READY=1 (or raises DaemonError)
    client = daemon.connect()
    rc = daemon.stop()                          # SIGTERM; 0 is a clean shutdown
    """

    def __init__(self, workdir, testbed=None, *, binary=None, socket_path=None, config='/dev/null',
                 source='auto', log_level='debug', extra_args=(), args=None, env=None,
                 watchdog_usec=None):
        self.workdir = workdir
        self.testbed = testbed
        self.binary = binary or find_binary('parallaxd')
        self.socket_path = socket_path or os.path.join(workdir, 'parallaxd.sock')
        self.config = config
        if args is None:
            args = ['--socket', self.socket_path]
            if config is not None:
                args += ['--config', config]
            if source is not None:
                args += ['--source', source]
            if log_level is not None:
                args += ['--log-level', log_level]
            args += list(extra_args)
        self.args = list(args)
        self.extra_env = dict(env or {})
        self.watchdog_usec = watchdog_usec
        self.stderr_path = os.path.join(workdir, 'parallaxd.stderr')
        self.stdout_path = os.path.join(workdir, 'parallaxd.stdout')
        self.notify = None
        self.proc = None
        self.returncode = None
        self.clients = []

    def environment(self):
        env = dict(os.environ)
        # Never inherit systemd's variables from whatever runs the tests.
        for k in ('NOTIFY_SOCKET', 'LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES', 'WATCHDOG_USEC',
                  'WATCHDOG_PID', 'PARALLAXD_SOCKET', 'LD_PRELOAD', 'UMOCKDEV_DIR'):
            env.pop(k, None)
        if self.testbed is not None:
            env.update(self.testbed.env())
        env['NOTIFY_SOCKET'] = self.notify.path
        if self.watchdog_usec is not None:
            env['WATCHDOG_USEC'] = str(int(self.watchdog_usec))
        env.update(self.extra_env)
        return env

    def start(self, timeout=READY_TIMEOUT, wait_ready=True):
        why = binary_missing(self.binary)
        if why:
            raise DaemonError(why)
        self.notify = NotifySocket(os.path.join(self.workdir, 'notify.sock'))
        self._stderr = open(self.stderr_path, 'wb')
        self._stdout = open(self.stdout_path, 'wb')
        self.proc = subprocess.Popen([self.binary] + self.args, env=self.environment(),
                                     stdin=subprocess.DEVNULL, stdout=self._stdout,
                                     stderr=self._stderr, cwd=self.workdir,
                                     preexec_fn=_die_with_parent)
        if wait_ready:
            self.wait_ready(timeout)
        return self

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout=READY_TIMEOUT):
        got = self.notify.wait_for(lambda f: f.get('READY') == '1', timeout, abort=lambda: not self.alive())
        if got is None:
            if not self.alive():
                raise DaemonError('parallaxd exited with %s before READY=1\n%s'
                                  % (self.proc.returncode, self.stderr_tail()))
            raise DaemonError('parallaxd sent no READY=1 within %.0f s\n%s' % (timeout, self.stderr_tail()))
        return got

    def notify_messages(self):
        """Every sd_notify message so far, as {key: value} dicts."""
        return [fields for _, fields, _ in list(self.notify.messages)]

    def wait_notify(self, pred, timeout, since=0):
        return self.notify.wait_for(pred, timeout, since=since, abort=lambda: not self.alive())

    def connect(self, timeout=5.0, wait_hello=True):
        c = Client(self.socket_path, timeout=timeout)
        self.clients.append(c)
        if wait_hello and c.wait_hello(timeout) is None:
            raise DaemonError('no hello within %.0f s\n%s' % (timeout, self.stderr_tail()))
        return c

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, wait; SIGKILL if it does not exit. Returns the exit code (0 = clean;
        negative = killed by that signal; KILLED when SIGTERM was not enough)."""
        if self.proc is None:
            return None
        for c in self.clients:
            c.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.returncode = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.returncode = KILLED
        else:
            self.returncode = self.proc.returncode
        self._close_files()
        return self.returncode

    def _close_files(self):
        for f in (getattr(self, '_stderr', None), getattr(self, '_stdout', None)):
            if f and not f.closed:
                f.close()
        if self.notify is not None:
            self.notify.close()
            self.notify = None

    def finish(self, failed, extra_log=None):
        """Test teardown: SIGTERM (if started), print the log when the test failed or the exit was
        not clean, and return the problems found: an exit code other than 0, protocol violations
        any client of this daemon saw. `extra_log` is printed alongside (another process's log)."""
        violations = [v for c in self.clients for v in c.violations]
        rc = self.stop() if self.proc is not None else 0   # None: never started
        if failed or rc != 0:
            print(self.stderr_tail(80))
            if extra_log:
                print(extra_log())
        problems = []
        if rc != 0:
            problems.append('parallaxd exit code on SIGTERM: %s (expected 0)' % rc)
        if violations:
            problems.append('protocol violations seen by clients: %s' % violations[:5])
        return problems

    def stderr_text(self):
        try:
            with open(self.stderr_path, 'rb') as f:
                return f.read().decode('utf-8', 'replace')
        except OSError:
            return ''

    def stderr_tail(self, lines=40):
        text = self.stderr_text().splitlines()
        return '--- parallaxd stderr (last %d lines) ---\n%s' % (lines, '\n'.join(text[-lines:]))



# ---------------------------------------------------------------------------------------------
# Socket activation

class SocketActivated:
    """`systemd-socket-activate -l SOCKET` holding the listening socket for parallaxd: the first
    connection starts the daemon with LISTEN_FDS=1 (the activator execs it, so it keeps this pid).
    `env` is passed with -E; stderr is collected in `log`. start() returns once the activator
    listens (its own "Listening on" line: an event, not a sleep)."""

    def __init__(self, binary, socket_path, env, args):
        self.socket_path = socket_path
        env_args = []
        for k, v in env.items():
            env_args += ['-E', '%s=%s' % (k, v)]
        self.argv = ['systemd-socket-activate', '-l', socket_path] + env_args + [binary] + list(args)
        self.proc = None
        self.log = []
        self._listening = threading.Event()

    def start(self, timeout=10.0):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=_die_with_parent)

        def drain():
            for line in self.proc.stderr:
                self.log.append(line.decode('utf-8', 'replace'))
                if 'Listening on' in self.log[-1]:
                    self._listening.set()
            self._listening.set()

        threading.Thread(target=drain, daemon=True).start()
        if not self._listening.wait(timeout) or self.proc.poll() is not None:
            raise HarnessError('systemd-socket-activate did not listen:\n' + self.text())
        return self

    def text(self, lines=40):
        return ''.join(self.log[-lines:])

    def stop(self, timeout=10.0):
        """SIGTERM (reaching parallaxd once it has started); kill after `timeout`. The exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return KILLED
