"""Heading on the wire (docs/protocol.md "Heading"): a subscriber that asks with "heading": true
gets yaw and vyaw on every frame, about the world's vertical and the same in every rotation; one
that does not sees protocol v1's lines exactly, and no frames that only the yaw brought; without a
gyroscope the replies say heading false and frames carry no yaw; reduce motion ends with yaw 0.
Real daemon, real sockets, replayed traces."""
import math
import os

import plx
from helpers import describe, rocking_trace

HEADING_KEYS = ('yaw', 'vyaw', 'heading')


def write_config(workdir, text):
    path = os.path.join(workdir, 'heading.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path


def spin_trace(path, seconds=10.0, rate_hz=100.0, rate=0.5, gyro=True):
    """Face-up on a table, turning in the screen's plane about the world's vertical at `rate`
    rad/s (x and y stay 0); `gyro=False`: the accelerometer alone."""
    rows = [plx.Row(int(i / rate_hz * 1e9), (0.0, 0.0, -9.80665), (0.0, 0.0, rate) if gyro else None)
            for i in range(int(seconds * rate_hz))]
    plx.write_trace(path, rows, ['face-up, spinning about +Z at %g rad/s' % rate])
    return 'replay:' + path


def test_yaw_follows_an_upright_turn_in_every_rotation(workdir, start_daemon):
    # Upright, rocking about +Y (the world's vertical): yaw is the turn itself, and with the same
    # reference as x, yaw = x·90° while x is not saturated (re-centring moves both alike).
    source = rocking_trace(os.path.join(workdir, 'rock-y.csv'), axis='y', amplitude_deg=30.0)
    daemon = start_daemon(source=source, config=write_config(workdir, '[Motion]\nMinimumChange=0\n'))
    panel, turned, plain = daemon.connect(), daemon.connect(), daemon.connect()
    reply = panel.subscribe(rate=30, rotation=0, heading=True)
    assert reply.get('heading') is True, reply
    assert turned.subscribe(rate=30, rotation=90, heading=True).get('heading') is True
    assert 'heading' not in plain.subscribe(rate=30)
    state = panel.wait_type('state', 5.0, old=True)
    assert state is not None and state.get('heading') is True, describe(panel)
    panel.pump(2.0)
    turned.pump(0.2)
    plain.pump(0.2)
    frames = [o for _, o in panel.frames]
    assert len(frames) > 30, describe(panel)
    for o in frames:
        assert -math.pi < o['yaw'] <= math.pi + 1e-4 and math.isfinite(o['vyaw']), o
        assert abs(o['yaw'] - o['x'] * math.pi / 2) < 0.01, o
    moving = [o for o in frames if abs(o['vx']) > 0.1]
    assert len(moving) > 10
    assert all((o['vyaw'] > 0) == (o['vx'] > 0) for o in moving)
    assert all(abs(o['vyaw'] - o['vx'] * math.pi / 2) < 0.05 for o in moving)
    # The output turned 90° gets x and y in its own axes and the very same yaw.
    by_t = {o['t']: o for o in frames}
    same = [(by_t[o['t']], o) for _, o in turned.frames if o['t'] in by_t]
    assert len(same) > 10
    for a, b in same:
        assert (b['yaw'], b['vyaw']) == (a['yaw'], a['vyaw']) and b['x'] == a['y'], (a, b)
    # A protocol v1 client never sees a heading field.
    assert plain.objects and not any(k in o for o in plain.objects for k in HEADING_KEYS), plain.objects[:5]


def test_frames_only_the_yaw_brings_go_to_heading_subscribers_only(workdir, start_daemon):
    # Face-up, turning in the screen's plane: x and y stay 0, the yaw turns.
    daemon = start_daemon(source=spin_trace(os.path.join(workdir, 'spin.csv')))
    heading, plain = daemon.connect(), daemon.connect()
    heading.subscribe(rate=30, heading=True)
    plain.subscribe(rate=30)
    heading.pump(2.0)
    plain.pump(0.3)
    turning = [o for _, o in heading.frames]
    assert len(turning) > 20, describe(heading)
    assert all(o['x'] == 0 and o['y'] == 0 for o in turning)
    assert len({o['yaw'] for o in turning}) > 20
    # Re-centring lags the turn: a steady 0.5 rad/s keeps the yaw ahead of the reference.
    assert all(abs(o['vyaw'] - 0.5) < 0.01 for o in turning[1:]), turning[:3]
    # The v1 subscriber: its first frame, (0, 0), and nothing since, since nothing it sees moved.
    assert len(plain.frames) <= 1, describe(plain)
    assert not any(k in o for o in plain.objects for k in HEADING_KEYS)


def test_without_a_gyroscope_there_is_no_heading(workdir, start_daemon):
    daemon = start_daemon(source=spin_trace(os.path.join(workdir, 'accel.csv'), gyro=False))
    c = daemon.connect()
    reply = c.subscribe(rate=30, heading=True)
    assert reply.get('heading') is False, reply
    state = c.wait_type('state', 5.0, old=True)
    assert state is not None and state.get('heading') is False, describe(c)
    assert c.wait_type('offset', 5.0, old=True) is not None, describe(c)
    c.pump(0.5)
    assert not any('yaw' in o or 'vyaw' in o for _, o in c.frames), c.frames[:3]


def test_reduce_motion_ends_with_yaw_zero(workdir, start_daemon):
    daemon = start_daemon(source=spin_trace(os.path.join(workdir, 'spin.csv')),
                          config=write_config(workdir, '[Access]\nSubscribers=everyone\nControllers=everyone\n'))
    c = daemon.connect()
    c.subscribe(rate=60, heading=True)
    assert c.wait_for(lambda o: o.get('type') == 'offset' and o['yaw'] != 0, 5.0) is not None, describe(c)
    mark = c.mark()
    assert daemon.connect().request({'cmd': 'set', 'reduce_motion': True}, 'ok')['type'] == 'ok'
    state = c.wait_for(lambda o: o.get('type') == 'state' and o.get('reduce_motion') is True, 5.0, since=mark)
    assert state is not None and state.get('heading') is True, describe(c)
    c.pump(0.5)
    lines = c.objects[mark:]
    said = lines.index(state)
    last = [o for o in lines[:said] if o.get('type') == 'offset'][-1]
    assert (last['x'], last['y'], last['yaw'], last['vyaw']) == (0, 0, 0, 0), last
    assert not any(o.get('type') == 'offset' for o in lines[said:]), lines[said:]


def test_parallaxctl_monitor_shows_the_heading_when_asked(workdir, start_daemon, parallaxctl_bin):
    import subprocess
    daemon = start_daemon(source=spin_trace(os.path.join(workdir, 'spin.csv')))
    run = [parallaxctl_bin, '--socket', daemon.socket_path, 'monitor', '--seconds', '1.5', '--rate', '10']
    heading = subprocess.run(run + ['--heading'], capture_output=True, text=True, timeout=30)
    assert heading.returncode == 0, heading.stderr
    lines = heading.stdout.splitlines()
    assert any(line.startswith('subscribed') and line.endswith(', heading') for line in lines), lines[:3]
    frames = [line for line in lines if line.startswith('seq ')]
    assert len(frames) > 3 and all(' yaw ' in line and line.endswith('°/s') for line in frames), frames[:3]
    assert any('+28.6°/s' in line for line in frames), frames[:5]  # 0.5 rad/s
    plain = subprocess.run(run, capture_output=True, text=True, timeout=30)
    assert plain.returncode == 0 and 'yaw' not in plain.stdout and 'heading' not in plain.stdout, plain.stdout
