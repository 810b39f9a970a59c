"""Remote sensors: iiod serving the testbed inside a private network namespace, and parallaxd
reading it over TCP."""
import os
import subprocess
import time

from .common import HarnessError
from .daemon import STOP_TIMEOUT, Daemon, _die_with_parent, find_binary


# ---------------------------------------------------------------------------------------------
# Remote sensors (Tests/integration/README.md "Remote sensors"): iiod serves the umockdev testbed over libiio's
# network protocol inside a private network namespace (iiod 0.24 listens on every address, so it
# must never see a real interface); parallaxd joins the same namespace without the preload and
# can only get its samples over TCP. The test process stays outside and talks to parallaxd over
# its Unix socket (path-bound Unix sockets work across network namespaces).

# iiod's TCP port (libiio's IIOD_PORT).
IIOD_PORT = 30431
# How long iiod gets to listen after it starts (s).
IIOD_LISTEN_TIMEOUT = 10.0
# Interval between looks at the namespace's socket table while waiting for iiod (s).
IIOD_LISTEN_POLL = 0.02
# TCP state code for LISTEN in /proc/net/tcp{,6} (include/net/tcp_states.h).
_TCP_LISTEN = '0A'


def find_system_binary(name):
    """Absolute path of a system tool (iiod lives in /usr/sbin, often outside a user's PATH)."""
    import shutil
    return shutil.which(name, path=os.environ.get('PATH', '') + ':/usr/sbin:/sbin:/usr/bin:/bin')


class NetNamespace:
    """A private network namespace with only loopback, held open by a small process; commands
    join it with nsenter (which execs the program, so a child's pid is the program's pid).

    ns = NetNamespace()
    argv = ns.command(['iiod'])     # runs iiod inside
    ns.close()
    """

    def __init__(self):
        unshare = find_system_binary('unshare')
        self.nsenter = find_system_binary('nsenter')
        if not unshare or not self.nsenter or not find_system_binary('ip'):
            raise HarnessError('unshare, nsenter and ip (util-linux, iproute2) are needed for a network namespace')
        # `cat` on a pipe keeps the namespace alive until close() (or this process's death)
        # closes its stdin; "up" on stdout says loopback is configured.
        self.proc = subprocess.Popen([unshare, '--net', 'sh', '-c', 'ip link set lo up && echo up && exec cat'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        line = self.proc.stdout.readline()
        if line.strip() != b'up':
            self.proc.stdin.close()
            err = self.proc.stderr.read().decode('utf-8', 'replace')
            self.proc.wait(5)
            raise HarnessError('cannot create a network namespace (needs root or user namespaces): %s' % err.strip())
        self.path = '/proc/%d/ns/net' % self.proc.pid

    def command(self, argv):
        return [self.nsenter, '--net=' + self.path, '--'] + list(argv)

    def listening(self, port):
        """True when some socket of this namespace listens on TCP `port` (any address)."""
        for table in ('tcp', 'tcp6'):
            try:
                with open('/proc/%d/net/%s' % (self.proc.pid, table)) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                if len(fields) > 3 and fields[3] == _TCP_LISTEN and int(fields[1].rsplit(':', 1)[1], 16) == port:
                    return True
        return False

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()


class IIOServer:
    """iiod serving a umockdev testbed inside a NetNamespace; start()/kill() may alternate to
    take the remote sensors away and bring them back."""

    def __init__(self, netns, testbed, workdir, binary=None):
        self.netns = netns
        self.testbed = testbed
        self.binary = binary or find_system_binary('iiod')
        if not self.binary:
            raise HarnessError('iiod not found (apt-get install iiod)')
        self.log_path = os.path.join(workdir, 'iiod.log')
        self.proc = None
        self.starts = 0

    def start(self, timeout=IIOD_LISTEN_TIMEOUT):
        """Start iiod under the testbed's preload; return once it listens on IIOD_PORT."""
        if self.netns.listening(IIOD_PORT):
            raise HarnessError('port %d already listens in the namespace' % IIOD_PORT)
        env = dict(os.environ)
        env.update(self.testbed.env())
        self.starts += 1
        with open(self.log_path, 'ab') as log:
            self.proc = subprocess.Popen(self.netns.command([self.binary]), env=env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, preexec_fn=_die_with_parent)
        end = time.monotonic() + timeout
        while not self.netns.listening(IIOD_PORT):
            if self.proc.poll() is not None:
                raise HarnessError('iiod exited with %s before listening\n%s' % (self.proc.returncode, self.log_tail()))
            if time.monotonic() > end:
                raise HarnessError('iiod does not listen on port %d after %.0f s\n%s'
                                   % (IIOD_PORT, timeout, self.log_tail()))
            time.sleep(IIOD_LISTEN_POLL)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, timeout=STOP_TIMEOUT):
        """SIGKILL (the remote end vanishes as from a crash or a pulled cable's reset); waits
        until the process is gone and its listening socket with it."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        rc = self.proc.wait(timeout)
        self.proc = None
        return rc

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, 'rb') as f:
                text = f.read().decode('utf-8', 'replace').splitlines()
        except OSError:
            text = []
        return '--- iiod log (last %d lines) ---\n%s' % (lines, '\n'.join(text[-lines:]))


def remote_daemon(workdir, netns, host='127.0.0.1', *, binary=None, config='/dev/null', log_level='debug',
                  extra_args=()):
    """A Daemon (not started) that runs parallaxd inside `netns` WITHOUT the umockdev preload,
    reading `--source iio:ip:HOST`: its samples can only come over the network."""
    binary = binary or find_binary('parallaxd')
    args = [binary, '--socket', os.path.join(workdir, 'parallaxd.sock'), '--source', 'iio:ip:' + host,
            '--log-level', log_level]
    if config is not None:
        args += ['--config', config]
    args += list(extra_args)
    d = Daemon(workdir, None, binary=netns.nsenter, args=netns.command(args)[1:])
    d.parallaxd = binary
    return d
