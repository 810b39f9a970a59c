"""Helpers for the libparallax tests: staging the library with `make install`, building C programs
with pkg-config only, the probe client (probe.c) as a child process, and a fake parallaxd.

FakeDaemon is a stand-in server written for these tests because it must misbehave on purpose
(garbage, overlong lines, NaN, a wrong protocol version, refusals, vanishing): the real daemon never
does. Tests against the real parallaxd are in test_daemon.py.
"""
import json
import os
import select
import shutil
import socket
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
# Staged install prefix (the usual packaging one).
PREFIX = '/usr'
# The toolchain's multiarch triplet (x86_64-linux-gnu on Debian): the Makefile installs the library
# and parallax.pc into PREFIX/lib/<triplet>, where ld.so and pkg-config look, not into PREFIX/lib.
MULTIARCH = subprocess.run(['cc', '-print-multiarch'], capture_output=True, text=True).stdout.strip()
# Flags the test programs are built with: the header must be clean C11 under all of them.
TEST_CFLAGS = ['-std=c11', '-Wall', '-Wextra', '-Wpedantic', '-Werror', '-g']
# Valgrind's verdict: any error or leak fails the run with this exit code.
VALGRIND_ERROR = 99
# Leaks are definite, indirect or possible ones; glibc's locale data stays "still reachable" by design.
# Descriptors open at exit are listed in the log (valgrind 3.19 does not count them as errors):
# leaked_descriptors() reads them.
VALGRIND = ['valgrind', '-q', '--leak-check=full', '--show-leak-kinds=definite,indirect,possible',
            '--errors-for-leak-kinds=definite,indirect,possible',
            '--track-fds=yes', '--error-exitcode=%d' % VALGRIND_ERROR]


def leaked_descriptors(valgrind_log):
    """The descriptors a program left open at exit that it opened itself, from a --track-fds=yes
    log: each "Open ... N: ..." entry not marked "<inherited from parent>". Inherited ones are
    stdin, stdout, stderr and valgrind's own log file, which the program never owned."""
    leaked, entry = [], None
    for text in valgrind_log.splitlines():
        text = text.split('== ', 1)[-1].strip()
        if text.startswith('Open '):
            if entry is not None:
                leaked.append(entry)
            entry = text
        elif entry is not None and text == '<inherited from parent>':
            entry = None
    if entry is not None:
        leaked.append(entry)
    return leaked


class Staged:
    """libparallax installed with `make install-libparallax DESTDIR=root PREFIX=/usr`."""

    def __init__(self, root):
        self.root = root
        self.prefix = os.path.join(root, PREFIX.lstrip('/'))
        self.libdir = os.path.join(self.prefix, 'lib', MULTIARCH)
        self.pkgconfig_env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.libdir, 'pkgconfig'),
                                  PKG_CONFIG_SYSROOT_DIR=root)
        # The pkg-config search must find only the staged file, never a system one.
        self.pkgconfig_env['PKG_CONFIG_LIBDIR'] = os.path.join(self.libdir, 'pkgconfig')

    def pkg_config(self, *args):
        out = subprocess.run(['pkg-config'] + list(args) + ['parallax'], env=self.pkgconfig_env,
                             capture_output=True, text=True, check=True)
        return out.stdout.split()

    def build(self, source, output, extra_cflags=(), extra_libs=()):
        """cc SOURCE with `pkg-config --cflags --libs parallax` and nothing else of libparallax's."""
        cmd = (['cc'] + TEST_CFLAGS + list(extra_cflags) + self.pkg_config('--cflags') + [source, '-o', output]
               + self.pkg_config('--libs') + list(extra_libs))
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert out.returncode == 0, '%s\n%s%s' % (' '.join(cmd), out.stdout, out.stderr)
        return output

    def run_env(self, extra=None):
        env = dict(os.environ, LD_LIBRARY_PATH=self.libdir)
        env.pop('PARALLAXD_SOCKET', None)
        env.update(extra or {})
        return env


def stage(root, build_dir):
    out = subprocess.run(['make', '-C', REPO_ROOT, '--no-print-directory', 'install-libparallax',
                          'DESTDIR=' + root, 'PREFIX=' + PREFIX, 'LIBPX_BUILD=' + build_dir],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return Staged(root)


class Probe:
    """probe.c as a child process: its JSON events in order, commands on its stdin."""

    def __init__(self, binary, staged, socket_path, rate=60, rotation=0, valgrind=False, env=None, workdir=None,
                 heading=False):
        self.valgrind_log = os.path.join(workdir, 'valgrind.log') if (valgrind and workdir) else None
        argv = [binary, socket_path if socket_path is not None else '-', str(rate), str(rotation)]
        if heading:
            argv.append('heading')
        if valgrind:
            argv = VALGRIND + ['--log-file=' + self.valgrind_log] + argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=staged.run_env(env))
        self.events = []
        self._buffer = b''
        self._seen = 0

    def _read(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], max(0.0, timeout))
        if not r:
            return False
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            raise AssertionError('probe exited (%s): %s' % (self.proc.poll(), self.stderr_text()))
        self._buffer += data
        while b'\n' in self._buffer:
            line, self._buffer = self._buffer.split(b'\n', 1)
            self.events.append(json.loads(line))
        return True

    def wait(self, pred, timeout, what='an event'):
        """The first event not yet returned by wait() that satisfies pred; fails after timeout."""
        end = time.monotonic() + timeout
        while True:
            while self._seen < len(self.events):
                e = self.events[self._seen]
                self._seen += 1
                if pred(e):
                    return e
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError('no %s within %.1f s; events: %s' % (what, timeout, self.events[-12:]))
            self._read(left)

    def wait_event(self, kind, timeout, **fields):
        return self.wait(lambda e: e.get('event') == kind and all(e.get(k) == v for k, v in fields.items()),
                         timeout, what='%s %s' % (kind, fields))

    def collect(self, seconds):
        """Every event arriving within `seconds` (a window that checks what does, or does not, come)."""
        start = len(self.events)
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._read(left)
        self._seen = len(self.events)
        return self.events[start:]

    def command(self, text, reply):
        self.proc.stdin.write(text.encode() + b'\n')
        self.proc.stdin.flush()
        return self.wait_event(reply, 30.0)

    def logs(self):
        return [e for e in self.events if e.get('event') == 'log']

    def quit(self, timeout=60.0):
        """Ends the probe cleanly (px_client_free); returns its exit code (valgrind's verdict)."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'quit\n')
                self.proc.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        return rc

    def stderr_text(self):
        try:
            return self.proc.stderr.read().decode('utf-8', 'replace') if self.proc.poll() is not None else ''
        except (OSError, ValueError):
            return ''

    def leaked_descriptors(self):
        return leaked_descriptors(self.valgrind_report())

    def valgrind_report(self):
        if self.valgrind_log and os.path.exists(self.valgrind_log):
            with open(self.valgrind_log) as f:
                return f.read()
        return ''


class FakeConnection:
    def __init__(self, sock):
        self.sock = sock
        self.buffer = b''

    def send(self, data):
        if isinstance(data, dict):
            data = json.dumps(data)
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def line(self, obj):
        self.send((obj if isinstance(obj, str) else json.dumps(obj, separators=(',', ':'))) + '\n')

    def read_line(self, timeout=10.0):
        end = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError('the client sent no line within %.1f s (got %r)' % (timeout, self.buffer))
            r, _, _ = select.select([self.sock], [], [], left)
            if r:
                data = self.sock.recv(4096)
                if not data:
                    raise AssertionError('the client closed the connection (got %r)' % self.buffer)
                self.buffer += data
        line, self.buffer = self.buffer.split(b'\n', 1)
        return line

    def wait_closed(self, timeout=10.0):
        """True when the client closes its end within timeout."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            r, _, _ = select.select([self.sock], [], [], left)
            if r:
                try:
                    if not self.sock.recv(4096):
                        return True
                except ConnectionResetError:
                    return True
        return False

    def close(self):
        self.sock.close()


HELLO = {'type': 'hello', 'protocol': 1, 'server': 'parallaxd', 'version': '0.1.0', 'max_rate': 60}
STATE_OK = {'type': 'state', 'sensor': 'ok', 'reduce_motion': False, 'calibrated': True}


class FakeDaemon:
    """A listening Unix socket that the test scripts line by line (see the module docstring)."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(16)
        self.connections = []

    def accept(self, timeout=10.0):
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            raise AssertionError('no client connected within %.1f s' % timeout)
        conn, _ = self.sock.accept()
        c = FakeConnection(conn)
        self.connections.append(c)
        return c

    def connects_within(self, seconds):
        """True when a client connects within `seconds` (a window that checks nothing arrives)."""
        r, _, _ = select.select([self.sock], [], [], seconds)
        return bool(r)

    def handshake(self, timeout=10.0, state=STATE_OK):
        """Accept, hello, read the subscribe line, answer subscribed + state. Returns (conn, command)."""
        conn = self.accept(timeout)
        conn.line(HELLO)
        command = conn.read_line(timeout)
        sub = json.loads(command)
        conn.line({'type': 'subscribed', 'rate': min(60, sub.get('rate', 30)), 'rotation': sub.get('rotation', 0)})
        if state is not None:
            conn.line(state)
        return conn, command

    def close(self):
        for c in self.connections:
            c.close()
        self.sock.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def offset_line(seq, x, y, vx=None, vy=None, t=None):
    """An offset frame as parallaxd writes it (4 decimals)."""
    text = '{"type":"offset","seq":%d,"t":%d,"x":%.4f,"y":%.4f' % (seq, t if t is not None else 1000 + seq, x, y)
    if vx is not None:
        text += ',"vx":%.4f,"vy":%.4f' % (vx, vy or 0.0)
    return text + '}'


def have_valgrind():
    return shutil.which('valgrind') is not None
