"""The `parallax` Python module (Sources/python) against the real parallaxd: reading offsets,
velocity on the wire, a daemon that starts late or restarts, a reader that pauses. Motion comes
from a recording replayed as the sensor source (a device rocking about its Y axis)."""
import math
import os
import signal
import sys
import time

import pytest

import plx

sys.path.insert(0, os.path.join(plx.REPO_ROOT, 'Sources', 'python'))
sys.path.insert(0, os.path.join(plx.REPO_ROOT, 'Tests', 'python'))
import parallax  # noqa: E402
from pump import pump_until  # noqa: E402

# Rocking about device Y (left/right): x swings, y stays near 0.
ROCK_AMPLITUDE_DEG = 20.0
ROCK_PERIOD_S = 2.0
ROCK_SECONDS = 60.0
TRACE_RATE_HZ = 200.0
# An offset swing that counts as "moving" (about a third of the swing the rocking produces).
MOVING = 0.08
# Frame-to-frame change of x large enough that its direction is not noise (offset units).
CLEAR_STEP = 0.004
# Share of clear steps whose velocity must point the way x moved (turning points and filter lag
# may disagree for a frame or two).
VELOCITY_AGREEMENT = 0.9
# How long the reader pauses (s), and how much of it the newest frame's sample time must have
# advanced (the rest is allowance for the frame in flight).
PAUSE_S = 1.0
NEWEST_AFTER_PAUSE = 0.8
# Longest a blocking read may take before the test fails instead of hanging (s).
READ_GUARD_S = 20


def rocking_trace(path):
    rows = []
    w = 2 * math.pi / ROCK_PERIOD_S
    for i in range(int(ROCK_SECONDS * TRACE_RATE_HZ)):
        t = i / TRACE_RATE_HZ
        angle = ROCK_AMPLITUDE_DEG * math.sin(w * t)
        rate = math.radians(ROCK_AMPLITUDE_DEG) * w * math.cos(w * t)
        rows.append(plx.Row(int(t * 1e9), plx.gravity_after_rotation(plx.UPRIGHT, 'y', angle), (0.0, rate, 0.0)))
    plx.write_trace(path, rows, ['rocking about +Y, %g deg amplitude, %g s period' % (ROCK_AMPLITUDE_DEG, ROCK_PERIOD_S)])
    return 'replay:' + path


@pytest.fixture
def rocking(workdir):
    return rocking_trace(os.path.join(workdir, 'rocking-y.csv'))


class read_guard:
    """Fails the test instead of hanging when a blocking read never returns (SIGALRM interrupts
    the client's poll)."""

    def __enter__(self):
        def expired(*_):
            raise TimeoutError('no offset within %d s' % READ_GUARD_S)
        self.previous = signal.signal(signal.SIGALRM, expired)
        signal.alarm(READ_GUARD_S)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.previous)


def take(client, n):
    """The next n offsets from the blocking iterator."""
    out = []
    with read_guard():
        for o in client:
            out.append(o)
            if len(out) == n:
                return out
    return out


def test_reads_offsets_and_vx_agrees_with_the_way_x_moves(start_daemon, rocking):
    daemon = start_daemon(source=rocking)
    with parallax.Client(daemon.socket_path, rate=60) as c:
        frames = take(c, 240)                 # about four seconds, two rocking periods
        assert c.state.connected and c.state.sensor == 'ok' and c.effective_rate == 60, c.state
    seqs = [o.seq for o in frames]
    assert seqs == sorted(set(seqs)), 'seq not increasing: %s' % seqs[:20]
    assert all(-1 <= v <= 1 for o in frames for v in (o.x, o.y))
    assert all(math.isfinite(v) for o in frames for v in o[:4])
    assert max(o.x for o in frames) > MOVING and min(o.x for o in frames) < -MOVING, [o.x for o in frames[::10]]
    steps = [(b.x - a.x, b.vx) for a, b in zip(frames, frames[1:]) if abs(b.x - a.x) >= CLEAR_STEP]
    agree = sum(1 for dx, vx in steps if vx * dx > 0)
    assert len(steps) > 20, 'too few clear steps to judge: %d' % len(steps)
    assert agree >= VELOCITY_AGREEMENT * len(steps), \
        'vx points the way x moves in %d of %d steps: %s' % (agree, len(steps), steps[:12])


def test_waits_for_a_daemon_that_starts_later(start_daemon, workdir, rocking):
    path = os.path.join(workdir, 'parallaxd.sock')
    c = parallax.Client(path, rate=20)
    assert not c.state.connected and c.fileno() == -1 and c.timeout() is not None
    daemon = start_daemon(source=rocking)
    assert daemon.socket_path == path
    # The back-off is at most 5 s by now; give it two rounds.
    assert pump_until(c, lambda c: c.state.connected, timeout=2 * parallax.MAX_BACKOFF * (1 + parallax.BACKOFF_JITTER) + 1), c.state
    assert take(c, 5)
    assert c.effective_rate == 20
    c.close()


def test_survives_a_daemon_restart(start_daemon, rocking):
    daemon = start_daemon(source=rocking)
    c = parallax.Client(daemon.socket_path, rate=20, rotation=90)
    before = take(c, 10)
    assert daemon.stop() == 0
    assert pump_until(c, lambda c: not c.state.connected, timeout=5), 'the client did not notice the daemon stopped'
    start_daemon(source=rocking)
    assert pump_until(c, lambda c: c.state.connected, timeout=2 * parallax.MAX_BACKOFF * (1 + parallax.BACKOFF_JITTER) + 1), c.state
    after = take(c, 10)
    assert c.effective_rate == 20 and c.state.sensor == 'ok' and c.state.error is None
    # A new daemon: a new frame counter, newer sample times.
    assert after[0].t > before[-1].t
    c.close()


def test_a_reader_that_pauses_gets_the_newest_offset(start_daemon, rocking):
    daemon = start_daemon(source=rocking)
    c = parallax.Client(daemon.socket_path, rate=60)
    last = take(c, 5)[-1]
    time.sleep(PAUSE_S)                   # the reader is busy; dozens of frames queue up
    assert c.dispatch() is True
    newest = c.offset
    # The first queued frame is a frame period after `last`; the newest about the pause.
    gap_s = (newest.t - last.t) / 1e9
    assert gap_s >= NEWEST_AFTER_PAUSE * PAUSE_S, \
        'after a %.1f s pause the client holds a sample only %.3f s newer' % (PAUSE_S, gap_s)
    # The iterator goes on from there (starting with that frame, which it had not yielded yet),
    # never with one of the queued older frames.
    following = [o.seq for o in take(c, 3)]
    assert following[0] >= newest.seq and following == sorted(set(following)), (newest.seq, following)
    c.close()


def test_pause_lets_the_daemon_close_its_sensors_and_resume_brings_offsets_on_the_same_connection(start_daemon, workdir, rocking):
    config = os.path.join(workdir, 'linger.conf')
    with open(config, 'w') as f:
        f.write('[Sensor]\nLinger=0.3\n')
    daemon = start_daemon(source=rocking, config=config)
    c = parallax.Client(daemon.socket_path, rate=30)
    take(c, 3)
    opened = daemon.stderr_text().count('opening sensors')
    closed = daemon.stderr_text().count('closing sensors')
    c.pause()
    assert pump_until(c, lambda c: c.timeout() is None), 'the daemon did not answer the unsubscribe'
    assert c.state.connected and c.fileno() >= 0
    assert daemon.connect().status()['subscribers'] == 0
    assert pump_until(c, lambda c: daemon.stderr_text().count('closing sensors') > closed, timeout=10), \
        'the sensors stayed open with the only subscriber paused'
    held = c.offset
    c.resume()
    assert pump_until(c, lambda c: c.offset.seq > held.seq, timeout=10), 'no offset after resume'
    assert daemon.stderr_text().count('opening sensors') > opened and c.state.sensor == 'ok'
    assert daemon.connect().status()['subscribers'] == 1
    c.close()
