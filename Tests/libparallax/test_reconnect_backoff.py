"""The reconnect back-off against a crash-looping daemon: a server that accepts, says hello,
confirms the subscription and then drops the connection at once, again and again (a daemon that
dies right after serving its first client, restarted each time by systemd's socket). The client
must back off exponentially (docs/client-kit.md, "Reconnecting"), not knock ten times a second.

The probe runs without valgrind here: these tests count connection attempts over time."""
import os
import subprocess
import select
import threading
import time

import libpx

# parallax.h: the back-off starts at 100 ms and doubles up to 5 s, each delay jittered by ±20 %.
FIRST_DELAY = 0.100
MAX_DELAY = 5.0
JITTER = 0.20
# The window over which attempts are counted (s).
WINDOW = 3.0
# Fewest attempts an exponential back-off makes in WINDOW: the first at once, the next after at
# most 0.12 + 0.24 + 0.48 s. Wide on purpose (a loaded machine answers late); the point of these
# tests is the upper bound, which no machine speed can raise.
FEWEST_ATTEMPTS = 3


def most_attempts(window):
    """Most connection attempts a client honouring the back-off can make within `window` seconds:
    the first at once, then each after at least (1 - JITTER) of its nominal delay."""
    attempts, elapsed, delay = 1, 0.0, FIRST_DELAY
    while elapsed + delay * (1 - JITTER) <= window:
        elapsed += delay * (1 - JITTER)
        attempts += 1
        delay = min(delay * 2, MAX_DELAY)
    return attempts


class CrashLoopingDaemon:
    """Accepts, handshakes (hello, reads the subscribe line, subscribed) and closes, forever;
    records the time of each accepted connection."""

    def __init__(self, path, handshake=True):
        self.server = libpx.FakeDaemon(path)
        self.handshake = handshake
        self.accepted = []
        self._stop = os.pipe()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            r, _, _ = select.select([self.server.sock, self._stop[0]], [], [])
            if self._stop[0] in r:
                return
            conn = self.server.accept()
            self.accepted.append(time.monotonic())
            try:
                if self.handshake:
                    conn.line(libpx.HELLO)
                    conn.read_line(timeout=5.0)
                    conn.line({'type': 'subscribed', 'rate': 60, 'rotation': 0})
            except (AssertionError, OSError):
                pass
            conn.close()
            self.server.connections.remove(conn)

    def stop(self):
        os.write(self._stop[1], b'x')
        self._thread.join()
        self.server.close()
        os.close(self._stop[0])
        os.close(self._stop[1])


def count_attempts(probes, socket_path, handshake):
    daemon = CrashLoopingDaemon(socket_path, handshake=handshake)
    try:
        probe = probes(socket_path)
        probe.wait_event('start', 10.0)
        probe.collect(WINDOW)
    finally:
        daemon.stop()
    return daemon.accepted


def check_backoff(accepted):
    assert FEWEST_ATTEMPTS <= len(accepted) <= most_attempts(WINDOW), \
        '%d connections in %.1f s (at %s)' % (len(accepted), WINDOW, [round(t - accepted[0], 3) for t in accepted])
    gaps = [b - a for a, b in zip(accepted, accepted[1:])]
    # Each gap grows: the k-th is at least (1 - JITTER) of 100 ms × 2^k.
    for k, gap in enumerate(gaps):
        assert gap >= min(FIRST_DELAY * 2 ** k, MAX_DELAY) * (1 - JITTER) - 0.005, (k, gaps)


def test_backs_off_from_a_daemon_that_drops_every_subscription(probes, socket_path):
    check_backoff(count_attempts(probes, socket_path, handshake=True))


def test_backs_off_from_a_daemon_that_closes_before_the_hello(probes, socket_path):
    check_backoff(count_attempts(probes, socket_path, handshake=False))


def schedule(workdir, seed, count, reset_after=None):
    src = os.path.join(libpx.REPO_ROOT, 'Sources', 'libparallax')
    binary = os.path.join(workdir, 'backoff_schedule')
    if not os.path.exists(binary):
        cmd = ['cc'] + libpx.TEST_CFLAGS + ['-I', src, os.path.join(libpx.HERE, 'backoff_schedule.c'),
                                            os.path.join(src, 'backoff.c'), '-o', binary]
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    args = [binary, str(seed), str(count)] + ([str(reset_after)] if reset_after else [])
    return [int(v) for v in subprocess.run(args, capture_output=True, text=True, check=True).stdout.split()]


def test_schedule_doubles_to_the_cap_with_jitter_and_starts_over_after_a_reset(workdir):
    nominal = [100, 200, 400, 800, 1600, 3200, 5000, 5000]
    seen_first = set()
    for seed in range(1, 201):
        delays = schedule(workdir, seed * 7919, len(nominal))
        for d, n in zip(delays, nominal):
            assert n * (1 - JITTER) <= d <= n * (1 + JITTER), (seed, delays)
        seen_first.add(delays[0])
    # ±20 % of 100 ms spread over 41 values; 200 clients that all waited the same would be no jitter.
    assert len(seen_first) >= 20 and min(seen_first) <= 85 and max(seen_first) >= 115, sorted(seen_first)
    again = schedule(workdir, 12345, 6, reset_after=4)
    assert [n * (1 - JITTER) <= d <= n * (1 + JITTER) for d, n in zip(again, [100, 200, 400, 800, 100, 200])] \
        == [True] * 6, again
