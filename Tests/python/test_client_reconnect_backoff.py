"""The reconnect back-off against a crash-looping daemon (docs/client-kit.md, "Reconnecting"): a
FAKE server that accepts, greets, confirms the subscription and drops the connection at once, again
and again, as a daemon does that dies right after serving each client. The client must back off
exponentially, not knock ten times a second. Same schedule and bounds as libparallax's test
(Tests/libparallax/test_reconnect_backoff.py)."""
import random

import parallax
from hostile_server import HostileServer, line
from pump import pump_until

# The window over which connections are counted (s).
WINDOW = 3.0
# Fewest attempts an exponential back-off makes in WINDOW: the first at once, the next after at
# most 0.12 + 0.24 + 0.48 s. Wide on purpose (a loaded machine answers late); the point here is
# the upper bound, which no machine speed can raise.
FEWEST_ATTEMPTS = 3


def most_attempts(window):
    """Most connection attempts within `window` seconds for a client honouring the back-off: the
    first at once, then each after at least (1 - jitter) of its nominal delay."""
    attempts, elapsed, delay = 1, 0.0, parallax.INITIAL_BACKOFF
    while elapsed + delay * (1 - parallax.BACKOFF_JITTER) <= window:
        elapsed += delay * (1 - parallax.BACKOFF_JITTER)
        attempts += 1
        delay = min(delay * 2, parallax.MAX_BACKOFF)
    return attempts


def drop_after_subscribed(conn, cmd):
    conn.send(line({'type': 'subscribed', 'rate': 60, 'rotation': 0, 'id': cmd.get('id')}))
    conn.close()


def count_connections(sock_path, **server_options):
    server = HostileServer(sock_path, **server_options)
    c = parallax.Client(sock_path)
    pump_until(c, lambda c: False, timeout=WINDOW)
    c.close()
    server.stop()
    return len(server.connections)


def test_backs_off_from_a_daemon_that_drops_every_subscription(sock_path):
    n = count_connections(sock_path, on_subscribe=drop_after_subscribed)
    assert FEWEST_ATTEMPTS <= n <= most_attempts(WINDOW), '%d connections in %.1f s' % (n, WINDOW)


def test_backs_off_from_a_daemon_that_closes_before_the_hello(sock_path):
    # No hello; the subscribe line (sent on connect) is answered by closing.
    n = count_connections(sock_path, answer=False, on_subscribe=lambda conn, cmd: conn.close())
    assert FEWEST_ATTEMPTS <= n <= most_attempts(WINDOW), '%d connections in %.1f s' % (n, WINDOW)


def test_schedule_doubles_to_the_cap_with_jitter_and_starts_over_after_a_reset():
    nominal = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    firsts = set()
    for seed in range(200):
        b = parallax.Backoff(random.Random(seed))
        delays = [b.next_delay() for _ in nominal]
        for d, n in zip(delays, nominal):
            assert n * (1 - parallax.BACKOFF_JITTER) <= d <= n * (1 + parallax.BACKOFF_JITTER), delays
        firsts.add(round(delays[0], 4))
    assert len(firsts) >= 20 and min(firsts) <= 0.085 and max(firsts) >= 0.115, sorted(firsts)
    b = parallax.Backoff(random.Random(1))
    for _ in range(4):
        b.next_delay()
    b.reset()
    assert 0.08 <= b.next_delay() <= 0.12


def test_a_subscription_that_lasted_starts_the_schedule_over(sock_path, monkeypatch):
    # The reset rule with a shorter threshold (the shipped 10 s would make this test slow).
    monkeypatch.setattr(parallax._client, 'BACKOFF_RESET_AFTER', 0.3)
    server = HostileServer(sock_path, on_subscribe=drop_after_subscribed)
    c = parallax.Client(sock_path)
    # Dropped at once three times: the delays grow past the first one.
    assert pump_until(c, lambda c: len(server.connections) == 3, timeout=5)
    assert pump_until(c, lambda c: c.fileno() == -1)
    assert c.timeout() > parallax.INITIAL_BACKOFF * (1 + parallax.BACKOFF_JITTER)
    server.stop()
    # Now a subscription that lasts past the threshold, then a loss: back to the first delay.
    server = HostileServer(sock_path)
    assert pump_until(c, lambda c: c.state.connected, timeout=5)
    conn = server.wait_connection(0)
    assert not pump_until(c, lambda c: not c.state.connected, timeout=0.5)
    conn.close()
    assert pump_until(c, lambda c: not c.state.connected)
    assert 0 < c.timeout() <= parallax.INITIAL_BACKOFF * (1 + parallax.BACKOFF_JITTER)
    c.close()
    server.stop()
