"""Connection-slot exhaustion (docs/protocol.md "Connection limits and refused peers"): a flood
from one local user, allowed or not, must cost the others nothing. The hostile side is a real
unprivileged account (`nobody` through setpriv, flood_client.py); the victims are root (this
process) and another allowed user (uid 1, `daemon`, a member of the subscribers' group through
setpriv --groups), both subscribing to the real daemon while the flood runs. Motion comes from a
rocking recording replayed as the sensor source, every sample a frame (MinimumChange=0)."""
import grp
import json
import os
import re
import subprocess
import sys
import time

import pytest

import accounts
import plx
from helpers import describe, rocking_trace

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason='needs root to run clients as other users')

NOBODY = 65534
OTHER_USER = 1                      # `daemon`: an unprivileged account every Debian system has
# Run as other accounts, which may not reach the clone (one under /root): they run a shared copy.
FLOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'flood_client.py')
# A subscriber at this rate must get most of its frames while the flood runs (the generous
# margin is for the 2-core test machine running daemon, flooder and clients at once; latency
# numbers are in BENCHMARKS.md "Connection floods", not here).
RATE = 60
MIN_SHARE = 0.5
# The baseline subscriber that stays connected through a test (Hz).
KEEPER_RATE = 5
# Connects per second the flooder makes at most (it opens a connection again as soon as the
# daemon closes one): a flood, bounded in count and time.
FLOOD_RATE = 200
# Growth of the daemon's RSS a finished flood may leave (KiB): allocator slack, not per-client state.
RSS_SLACK_KIB = 2048
# Log lines one flooding uid may cause in a flood of a few seconds: the burst's first line and
# at most one summary per 10 s window.
MAX_LOG_LINES = 3


def subscribers_group():
    """A group that exists on every Debian system and that neither `nobody` nor `daemon` is in."""
    for name in ('users', 'plugdev', 'audio', 'video'):
        try:
            return grp.getgrnam(name)
        except KeyError:
            continue
    pytest.skip('no suitable group found')


def write_config(workdir, text):
    path = os.path.join(workdir, 'limits.conf')
    with open(path, 'w') as f:
        f.write('[Motion]\nMinimumChange=0\n' + text)
    return path


def as_user(uid, groups=()):
    gid = NOBODY if uid == NOBODY else uid
    args = ['setpriv', '--reuid=%d' % uid, '--regid=%d' % gid]
    return args + (['--groups=' + ','.join(str(g) for g in groups)] if groups else ['--clear-groups'])


class Flood:
    """flood_client.py as `nobody` (or with `groups`); started() returns once it attempted all."""

    def __init__(self, socket_path, mode, count, seconds, groups=(), extra=()):
        os.chmod(os.path.dirname(socket_path), 0o755)   # let other users reach the socket
        self.proc = subprocess.Popen(as_user(NOBODY, groups) + [sys.executable, accounts.shared_copy(FLOOD), 'flood', socket_path,
                                     mode, str(count), str(seconds), '--rate', str(FLOOD_RATE)] + list(extra),
                                     cwd=accounts.NEUTRAL_CWD, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.strip() == 'ready', 'flooder did not start: %s %s' % (line, self.proc.stderr.read())

    def result(self, timeout=30):
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, err
        return json.loads(out.strip().splitlines()[-1])

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def other_user_subscribes(socket_path, group, seconds=1.5):
    out = subprocess.run(as_user(OTHER_USER, [group]) + [sys.executable, accounts.shared_copy(FLOOD), 'subscriber', socket_path,
                         str(seconds), str(RATE)], cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result['reply'].get('type') == 'subscribed', 'uid %d could not subscribe: %r' % (OTHER_USER, result)
    assert result['frames'] >= seconds * RATE * MIN_SHARE, 'uid %d got %d frames in %g s at %d Hz' % (
        OTHER_USER, result['frames'], seconds, RATE)
    return result


def root_subscribes(daemon_or_path, seconds=1.5, rate=RATE):
    c = daemon_or_path.connect() if hasattr(daemon_or_path, 'connect') else plx.Client(daemon_or_path)
    if c.hello is None:
        assert c.wait_hello(5) is not None, 'root got no hello'
    reply = c.subscribe(rate=rate)
    assert reply is not None and reply['type'] == 'subscribed', 'root could not subscribe: %r' % (reply,)
    start = time.monotonic()
    c.pump(seconds)
    got = len([t for t, _ in c.frames if t >= start])
    assert got >= seconds * rate * MIN_SHARE, 'root got %d frames in %g s at %d Hz; %s' % (got, seconds, rate, describe(c))
    return c


# Connections a flood may have open beyond its slots at one instant: the one being accepted and
# refused, and one displaced to make room whose close has not run yet in the same loop turn.
IN_FLIGHT = 2


def open_fds(pid):
    return len(os.listdir('/proc/%d/fd' % pid))


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        return int(re.search(r'VmRSS:\s+(\d+)', f.read()).group(1))


def wait_until(pred, timeout, what):
    """Polls a condition the daemon exposes only through /proc."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    pytest.fail('timed out waiting for ' + what)


def baseline(daemon):
    """A subscribed root client (keeps the sensors open; at a rate low enough that the frames it
    does not read meanwhile never fill its socket) and the daemon's descriptors and RSS once some
    connections have come and gone (first-use allocations are not a leak)."""
    keeper = root_subscribes(daemon, seconds=1.0, rate=KEEPER_RATE)
    return keeper, settled_fds(keeper, daemon.socket_path, daemon.pid), rss_kib(daemon.pid)


def settled_fds(keeper, path, pid, log=lambda: ''):
    """The daemon's descriptors once 40 connections have come and gone beside the keeper: the
    first ones open what the daemon opens once (the journal, NSS and group files). `log` gives
    the daemon's log for a failure message."""
    for i in range(40):
        c = plx.Client(path)
        assert c.wait_hello(5) is not None, 'connection %d got no hello in 5 s (closed by the server: %s; ' \
            'lines: %s; daemon state %s); log:\n%s' % (i, c.closed_by_server, c.objects[-5:], proc_state(pid), log())
        c.close()
    wait_until(lambda: keeper.status()['clients'] == 1, 5, 'only the keeper to be left')
    return open_fds(pid)


def proc_state(pid):
    """The process's state and its threads' wait channels (what a stuck daemon waits in)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            state = f.read().rsplit(')', 1)[1].split()[0]
        chans = []
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/comm' % (pid, tid)) as f, open('/proc/%d/task/%s/wchan' % (pid, tid)) as w:
                chans.append('%s:%s' % (f.read().strip(), w.read().strip()))
        return '%s %s' % (state, ' '.join(chans))
    except OSError as e:
        return 'unknown (%s)' % e


def log_lines_about(daemon, uid):
    return [l for l in daemon.stderr_text().splitlines() if 'uid %d' % uid in l and not l.startswith('<7>')]


def check_recovery(daemon, keeper, fds, rss):
    wait_until(lambda: open_fds(daemon.pid) == fds, 10, 'descriptors back to %d (now %d)' % (fds, open_fds(daemon.pid)))
    assert keeper.status()['clients'] == 1
    assert rss_kib(daemon.pid) <= rss + RSS_SLACK_KIB, 'RSS %d KiB after the flood, %d before' % (rss_kib(daemon.pid), rss)
    assert keeper.wait_offset(lambda x, y: True, 2) is not None, 'the keeper stopped getting frames'


@pytest.fixture
def group():
    return subscribers_group()


def test_an_idle_flood_from_a_stranger(workdir, start_daemon, group):
    """200 connections from `nobody` (may neither subscribe nor control) that send nothing:
    nobody holds at most MaxClientsPerUser, each for at most IdleTimeout; root and another
    allowed user subscribe meanwhile."""
    motion = rocking_trace(os.path.join(workdir, 'rocking.csv'))
    daemon = start_daemon(source=motion, log_level='info', config=write_config(
        workdir, '[Daemon]\nIdleTimeout=2\n[Access]\nSubscribers=root @%s\n' % group.gr_name))
    keeper, fds, rss = baseline(daemon)
    flood = Flood(daemon.socket_path, 'idle', 200, 5)
    try:
        # Nobody's 32 slots, plus at most IN_FLIGHT connections between accept and close.
        assert open_fds(daemon.pid) <= fds + 32 + IN_FLIGHT, 'nobody holds more than its 32 slots'
        root_subscribes(daemon)
        other_user_subscribes(daemon.socket_path, group.gr_gid)
        counts = flood.result()
    finally:
        flood.kill()
    assert counts['unavailable'] > 0 and 'too many connections from uid 65534 (32)' in counts['messages'][0], counts
    assert counts['hello'] > 32, 'idle connections were never closed to make room: %r' % counts
    check_recovery(daemon, keeper, fds, rss)
    lines = log_lines_about(daemon, NOBODY)
    assert 0 < len(lines) <= MAX_LOG_LINES, 'refusals logged per connection: %d lines for %d refusals' % (
        len(lines), counts['unavailable'])


def test_a_flood_of_refused_subscribes(workdir, start_daemon, group):
    """`nobody` subscribes again and again; each connection gets its hello and one
    permission_denied, then is closed; the others are served meanwhile."""
    motion = rocking_trace(os.path.join(workdir, 'rocking.csv'))
    daemon = start_daemon(source=motion, log_level='info', config=write_config(
        workdir, '[Access]\nSubscribers=root @%s\n' % group.gr_name))
    keeper, fds, rss = baseline(daemon)
    flood = Flood(daemon.socket_path, 'subscribe', 200, 5)
    try:
        root_subscribes(daemon)
        other_user_subscribes(daemon.socket_path, group.gr_gid)
        counts = flood.result()
    finally:
        flood.kill()
    assert counts['permission_denied'] > 100, counts
    assert counts['subscribed'] == 0
    assert counts['closed_by_server'] >= counts['permission_denied'], 'a refused stranger stayed connected: %r' % counts
    assert 'closing the connection' in next(m for m in counts['messages'] if 'subscrib' in m), counts
    check_recovery(daemon, keeper, fds, rss)
    lines = log_lines_about(daemon, NOBODY)
    assert 0 < len(lines) <= MAX_LOG_LINES, '%d log lines for %d refused subscribes' % (len(lines), counts['permission_denied'])


def test_a_flood_of_allowed_subscribers_gives_way_to_other_users(workdir, start_daemon, group):
    """`nobody`, allowed to subscribe here, fills every slot with subscribers (MaxClients equal to
    its per-user limit): newcomers of other users take the slots of its newest connections."""
    motion = rocking_trace(os.path.join(workdir, 'rocking.csv'))
    daemon = start_daemon(source=motion, log_level='info', config=write_config(
        workdir, '[Daemon]\nMaxClients=24\nMaxClientsPerUser=24\n[Access]\nSubscribers=root @%s\n' % group.gr_name))
    keeper, fds, rss = baseline(daemon)
    flood = Flood(daemon.socket_path, 'subscribe', 200, 6, groups=[group.gr_gid], )
    try:
        wait_until(lambda: keeper.status()['clients'] == 24, 5, 'nobody to fill the daemon')
        root_subscribes(daemon)
        other_user_subscribes(daemon.socket_path, group.gr_gid)
        counts = flood.result()
    finally:
        flood.kill()
    assert counts['subscribed'] >= 22, counts
    assert any('make room' in m for m in counts['messages']), 'nobody was never displaced: %r' % counts
    check_recovery(daemon, keeper, fds, rss)
    assert len(log_lines_about(daemon, NOBODY)) <= MAX_LOG_LINES


def test_limits_hold_under_socket_activation(workdir, parallaxd_bin, testbed, group):
    """The same listener code adopts systemd's socket: an idle flood from `nobody` on a
    socket-activated daemon leaves root and another user their slots."""
    motion = rocking_trace(os.path.join(workdir, 'rocking.csv'))
    path = write_config(workdir, '[Daemon]\nMaxClients=8\nMaxClientsPerUser=8\nIdleTimeout=2\n'
                                 '[Access]\nSubscribers=root @%s\n' % group.gr_name)
    os.chmod(workdir, 0o755)
    sock = os.path.join(workdir, 'activated.sock')
    activated = plx.SocketActivated(parallaxd_bin, sock, testbed.env(),
                                    ['--config', path, '--source', motion, '--log-level', 'info'])
    try:
        activated.start()
        keeper = root_subscribes(sock, seconds=1.0, rate=KEEPER_RATE)
        pid = activated.proc.pid                      # the activator exec'd parallaxd
        fds = settled_fds(keeper, sock, pid, log=activated.text)
        os.chmod(sock, 0o666)
        flood = Flood(sock, 'idle', 100, 4)
        try:
            # Nobody's 8 slots, plus at most IN_FLIGHT connections between accept and close.
            assert open_fds(pid) <= fds + 8 + IN_FLIGHT
            root_subscribes(sock)
            other_user_subscribes(sock, group.gr_gid)
            counts = flood.result()
        finally:
            flood.kill()
        assert counts['unavailable'] > 0 and any('make room' in m or 'uid 65534' in m for m in counts['messages']), counts
        wait_until(lambda: open_fds(pid) == fds, 10, 'descriptors back to %d' % fds)
        assert keeper.wait_offset(lambda x, y: True, 2) is not None
        keeper.close()
        assert activated.stop() == 0, activated.text()
        assert sum('uid 65534' in l for l in activated.log) <= MAX_LOG_LINES, activated.text()
    finally:
        activated.stop()


def test_out_of_descriptors_neither_spins_nor_locks_root_out(workdir, start_daemon, group):
    """With its descriptor limit lowered under the flood (prlimit on the running daemon), accept()
    fails with EMFILE: the daemon uses its reserve descriptor to refuse strangers one by one, lets
    root take a stranger's slot, and does not spin on the readable listener."""
    motion = rocking_trace(os.path.join(workdir, 'rocking.csv'))
    daemon = start_daemon(source=motion, log_level='info', config=write_config(
        workdir, '[Daemon]\nIdleTimeout=60\n[Access]\nSubscribers=root @%s\n' % group.gr_name))
    keeper, fds, _ = baseline(daemon)
    limit = fds + 6
    subprocess.run(['prlimit', '--pid', str(daemon.pid), '--nofile=%d:%d' % (limit, limit)], check=True)
    flood = Flood(daemon.socket_path, 'idle', 30, 4, extra=['--no-reopen'])
    try:
        wait_until(lambda: open_fds(daemon.pid) >= limit - 1, 5, 'the daemon to run out of descriptors')
        # Every flood connection is accepted (and refused) or held: the backlog is empty, so a
        # daemon that does not spin uses next to no CPU now.
        cpu_before, wall_before = cpu_seconds(daemon.pid), time.monotonic()
        time.sleep(1.0)   # the measuring window itself
        share = (cpu_seconds(daemon.pid) - cpu_before) / (time.monotonic() - wall_before)
        assert share < 0.5, 'the daemon spun at %.0f %% CPU while out of descriptors' % (share * 100)
        root_subscribes(daemon)
        counts = flood.result()
    finally:
        flood.kill()
    assert counts['unavailable'] > 0, counts
    assert 'out of file descriptors' in daemon.stderr_text()
    assert daemon.stderr_text().count('out of file descriptors') == 1, 'EMFILE logged more than once per burst'


def cpu_seconds(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
