"""A live parallaxd under a grammar-aware command fuzzer (command_grammar.py): HOSTILE connections
held open send a seeded mix of valid and hostile lines, some cut in pieces, some never reading their
replies, while a well-behaved subscriber keeps reading frames of a rocking device. Asserts that the
daemon stays alive, the subscriber keeps getting frames, and RSS and descriptors stay bounded.

Budget: PARALLAX_FUZZ_SECONDS (default 60). Seed: PARALLAX_FUZZ_SEED (default: drawn and printed);
a failure prints the seed and the last lines sent, and keeps the whole transcript in
.build-fuzz/live/ (docs/testing.md "Fuzzing" says how to replay it).
"""
import os
import random
import select
import socket
import time

import plx
from command_grammar import CommandGrammar
from helpers import rocking_trace

BUDGET_S = float(os.environ.get('PARALLAX_FUZZ_SECONDS', '60'))
HOSTILE = 16
# Hostile connections that never read: their replies pile up in the daemon until it drops them
# (256 KiB of unread output or StallTimeout, ClientConnection.outputLimit).
NEVER_READ = 4
SUBSCRIBER_RATE = 30
# Longest the subscriber may go without a frame while motion is not reduced. Nominal is 33 ms at
# 30 Hz; the bound is wide because two cores are shared with a debug build's load and this script
# (a sick daemon shows as seconds without frames, or none at all).
MAX_FRAME_GAP_S = 2.0
# RSS may grow by what HOSTILE connections can legitimately hold (256 KiB of unread output and a
# line of input each) plus allocator slack; past that, something accumulates per command.
OUTPUT_LIMIT_KIB = 256
RSS_SLACK_KIB = 8 * 1024
# Descriptors: one per open connection, and a few closed by us that the daemon has not reaped yet.
FD_SLACK = 4
TRANSCRIPT_DIR = os.path.join(plx.REPO_ROOT, '.build-fuzz', 'live')


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])


def open_fds(pid):
    return len(os.listdir('/proc/%d/fd' % pid))


class HostileConnection:
    """A raw socket that sends lines in random pieces and reads (or ignores) what comes back."""

    def __init__(self, path, reads):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self.reads = reads
        self.pending = b''
        self.closed = False

    def queue(self, data):
        self.pending += data

    def send_some(self, rng):
        """Sends a random prefix of what is pending (a line may arrive in several reads)."""
        if not self.pending or self.closed:
            return
        n = len(self.pending) if rng.random() < 0.7 else rng.randrange(1, len(self.pending) + 1)
        try:
            sent = self.sock.send(self.pending[:n])
            self.pending = self.pending[sent:]
        except BlockingIOError:
            pass
        except OSError:         # the daemon closed us (strikes, too long unread): reconnect
            self.closed = True

    def drain(self):
        if not self.reads or self.closed:
            return
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    self.closed = True
                    return
        except BlockingIOError:
            pass
        except OSError:
            self.closed = True

    def close(self):
        self.sock.close()
        self.closed = True


def test_daemon_survives_a_command_fuzzer_and_keeps_serving(start_daemon, workdir):
    seed = int(os.environ.get('PARALLAX_FUZZ_SEED') or random.SystemRandom().randrange(1 << 32))
    print('live fuzz seed: %d (PARALLAX_FUZZ_SEED=%d to repeat), budget %g s' % (seed, seed, BUDGET_S))
    rng = random.Random(seed)
    grammar = CommandGrammar(rng)
    config = os.path.join(workdir, 'fuzz.conf')
    with open(config, 'w') as f:
        # A command rate far above the default 20/s, so lines reach the router rather than the
        # rate limit; the strike limit (10 bad lines) still closes hostile connections.
        f.write('[Daemon]\nCommandRate=1000\n[Sensor]\nReplayLoop=true\n')
    daemon = start_daemon(source=rocking_trace(os.path.join(workdir, 'rocking.csv')), config=config)
    pid = daemon.pid

    subscriber = daemon.connect()
    assert subscriber.subscribe(rate=SUBSCRIBER_RATE)['type'] == 'subscribed'
    assert subscriber.wait_offset(lambda x, y: True, 5) is not None
    base_rss, base_fds = rss_kib(pid), open_fds(pid)
    rss_bound = base_rss + HOSTILE * (OUTPUT_LIMIT_KIB + 8) + RSS_SLACK_KIB
    fd_bound = base_fds + HOSTILE + FD_SLACK

    os.makedirs(TRANSCRIPT_DIR, exist_ok=True)
    transcript_path = os.path.join(TRANSCRIPT_DIR, 'seed-%d.log' % seed)
    transcript = open(transcript_path, 'w')
    recent = []

    def failure(what):
        transcript.flush()
        return ('%s (seed %d; transcript %s); last lines sent:\n%s\ndaemon stderr:\n%s'
                % (what, seed, transcript_path, '\n'.join(recent[-20:]), daemon.stderr_tail()))

    connections = [HostileConnection(daemon.socket_path, reads=i >= NEVER_READ) for i in range(HOSTILE)]
    sent_lines = reconnects = 0
    peak_rss, peak_fds = base_rss, base_fds
    frame_times = []          # arrival of each frame, None where reduce motion went on
    reduced = False
    seen = len(subscriber.objects)
    end = time.monotonic() + BUDGET_S
    next_check = 0.0
    while time.monotonic() < end:
        for _ in range(4):
            i = rng.randrange(HOSTILE)
            c = connections[i]
            if c.closed:
                c.close()
                connections[i] = c = HostileConnection(daemon.socket_path, reads=i >= NEVER_READ)
                reconnects += 1
                transcript.write('-- connection %d reopened\n' % i)
            line = grammar.line()
            c.queue(line)
            sent_lines += 1
            entry = '%d: %r' % (i, line[:300])
            transcript.write(entry + '\n')
            recent.append(entry)
            del recent[:-20]
        readable = [c.sock for c in connections if c.reads and not c.closed]
        for c in connections:
            c.send_some(rng)
        select.select(readable, [], [], 0)
        for c in connections:
            c.drain()
        for obj in subscriber.pump(0.005):
            if obj.get('type') == 'offset':
                frame_times.append(time.monotonic())
            elif obj.get('type') == 'state':
                if obj.get('reduce_motion') and not reduced:
                    frame_times.append(None)
                reduced = bool(obj.get('reduce_motion'))
        now = time.monotonic()
        if now >= next_check:
            next_check = now + 0.25
            assert daemon.alive(), failure('parallaxd died')
            peak_rss, peak_fds = max(peak_rss, rss_kib(pid)), max(peak_fds, open_fds(pid))
            assert peak_rss <= rss_bound, failure('RSS %d KiB over the bound %d KiB' % (peak_rss, rss_bound))
            assert peak_fds <= fd_bound, failure('%d descriptors over the bound %d' % (peak_fds, fd_bound))
            assert not subscriber.closed_by_server, failure('the subscriber was disconnected')
            if reduced and rng.random() < 0.5:
                # Reduce motion is a valid command that silences frames; turn it off again so the
                # subscriber's frames keep flowing most of the time.
                connections[0].queue(b'{"cmd":"set","reduce_motion":false}\n')
    transcript.close()

    gaps, longest, last = 0, 0.0, None
    for t in frame_times:
        if t is not None and last is not None:
            longest = max(longest, t - last)
            gaps += t - last > 0.2
        last = t
    print('live fuzz: %d lines on %d connections (%d reopened), subscriber %d frames, %d gaps over 200 ms, '
          'longest %.3f s; RSS %d → peak %d KiB (bound %d); fds %d → peak %d (bound %d)'
          % (sent_lines, HOSTILE, reconnects, sum(t is not None for t in frame_times), gaps, longest,
             base_rss, peak_rss, rss_bound, base_fds, peak_fds, fd_bound))
    assert daemon.alive(), failure('parallaxd died')
    assert longest <= MAX_FRAME_GAP_S, failure('the subscriber went %.2f s without a frame' % longest)
    assert subscriber.violations == [], failure('protocol violations: %s' % subscriber.violations[:3])
    seqs = [o['seq'] for o in subscriber.offsets()]
    assert all(a < b for a, b in zip(seqs, seqs[1:])), failure('frame seq went backwards')
    # The daemon still answers, and once every hostile connection is gone its descriptors are back.
    if reduced:
        subscriber.send({'cmd': 'set', 'reduce_motion': False})
    assert subscriber.request({'cmd': 'status', 'id': 'after'}, 'status')['id'] == 'after', failure('no status')
    for c in connections:
        c.close()
    deadline = time.monotonic() + 5
    while open_fds(pid) > base_fds and time.monotonic() < deadline:
        subscriber.pump(0.05)   # the daemon reaps closed connections on its own; poll /proc meanwhile
    assert open_fds(pid) <= base_fds, failure('%d descriptors after every hostile connection closed, %d before'
                                              % (open_fds(pid), base_fds))
