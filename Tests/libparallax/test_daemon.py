"""libparallax against the real parallaxd ($PARALLAXD, else .build/debug/parallaxd) on an emulated
bmi160 (umockdev, Tests/integration/plx/): the probe reads offsets, follows the daemon across a
restart with the same rate and rotation, and the velocity it reads agrees in sign with the way x
moves."""
import os

import pytest

import plx

# Events that do come (s): a debug daemon's start under the umockdev preload, back-off ≤ 1.6 s.
EVENT_TIMEOUT = 30.0
# A turn about device Y: 17° over 0.3 s (1 rad/s) gives x ≈ ±0.19 at the default 90° saturation.
TURN_DEG = 17.0
TURN_SECONDS = 0.3
# |x| a turn must reach, and |vx| that counts as "moving" (offset units/s; the turn gives ≈ 0.64).
MOVED = 0.1
MOVING_VX = 0.1
# Frames whose x changed at least this much count as x moving (offset units).
MOVING_DX = 0.005
# PX_SENSOR_OK of parallax.h.
SENSOR_OK = 1


@pytest.fixture
def daemon_binary():
    path = plx.find_binary('parallaxd')
    why = plx.binary_missing(path)
    if why:
        pytest.skip(why)
    return path


@pytest.fixture
def imu():
    """A testbed with a bmi160-like combined IMU standing upright."""
    testbed = plx.Testbed()
    device = plx.bmi160(0)
    testbed.add(device)
    yield testbed, device
    testbed.close()


@pytest.fixture
def daemons(request):
    started = []
    yield started
    for d in started:
        rc = d.stop()
        if rc != 0:
            print(d.stderr_tail(60))
        assert rc in (0, None), 'parallaxd exit code on SIGTERM: %s' % rc


def start_daemon(daemons, workdir, name, testbed, binary, socket_path):
    home = os.path.join(workdir, name)
    os.makedirs(home)
    d = plx.Daemon(home, testbed, binary=binary, socket_path=socket_path)
    daemons.append(d)
    return d.start()


def frames(probe, since):
    """Distinct offset frames the probe reported from event index `since` on, oldest first."""
    out = []
    for e in probe.events[since:]:
        o = e.get('offset') if e.get('event') == 'dispatch' else None
        if o and (not out or out[-1]['seq'] != o['seq']):
            out.append(o)
    return out


def assert_vx_follows_x(seen, sign):
    """While x moves, vx has the sign of its motion; and the turn is seen moving that way."""
    moving = [(a, b) for a, b in zip(seen, seen[1:]) if abs(b['x'] - a['x']) >= MOVING_DX]
    assert moving, 'x never moved between frames: %s' % seen
    against = [(a, b) for a, b in moving if a['vx'] * (b['x'] - a['x']) < 0 and abs(a['vx']) >= MOVING_VX]
    assert not against, 'vx points against the motion of x: %s' % against
    along = [a for a, b in moving if a['vx'] * sign >= MOVING_VX]
    assert len(along) >= 3, 'too few frames with vx along the turn: %s' % seen


def turn(testbed, device, sign):
    plx.turn(testbed, device, device, 'y', sign * TURN_DEG, TURN_SECONDS)


def test_reads_offsets_survives_a_restart_and_vx_follows_x(workdir, staged, probes, daemons, daemon_binary, imu):
    testbed, device = imu
    socket_path = os.path.join(workdir, 'parallaxd.sock')
    first = start_daemon(daemons, workdir, 'first', testbed, daemon_binary, socket_path)
    probe = probes(socket_path, 60, 0)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'] and e['sensor'] == SENSOR_OK,
               EVENT_TIMEOUT, what='subscribed with sensor ok')
    # The device turns to its right: x grows, and vx says so while it moves.
    mark = len(probe.events)
    turn(testbed, device, +1)
    probe.wait(lambda e: e.get('event') == 'dispatch' and (e.get('offset') or {}).get('x', 0) > MOVED,
               EVENT_TIMEOUT, what='x > %g' % MOVED)
    assert_vx_follows_x(frames(probe, mark), +1)

    # The daemon restarts: the client notices, reconnects and subscribes again by itself.
    assert first.stop() == 0
    lost = probe.wait(lambda e: e.get('event') == 'dispatch' and e['ret'] < 0, EVENT_TIMEOUT, what='lost')
    assert lost['fd'] == -1 and lost['connected'] is False
    second = start_daemon(daemons, workdir, 'second', testbed, daemon_binary, socket_path)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'] and e['sensor'] == SENSOR_OK,
               EVENT_TIMEOUT, what='subscribed again')
    status = second.connect().status()
    assert status['subscribers'] == 1, status
    # The restarted daemon takes the turned pose as its reference; turning back reads as x < 0.
    mark = len(probe.events)
    turn(testbed, device, -1)
    probe.wait(lambda e: e.get('event') == 'dispatch' and (e.get('offset') or {}).get('x', 0) < -MOVED,
               EVENT_TIMEOUT, what='x < -%g after the restart' % MOVED)
    assert_vx_follows_x(frames(probe, mark), -1)


def test_the_heading_follows_a_turn_about_the_vertical(workdir, staged, probes, daemons, daemon_binary, imu):
    # Upright, a turn about device +Y is a turn about the world's vertical: yaw = x·90° in radians
    # (same reference), vyaw along it, and px_client_heading_available says the daemon sends it.
    import math
    testbed, device = imu
    socket_path = os.path.join(workdir, 'parallaxd.sock')
    start_daemon(daemons, workdir, 'heading', testbed, daemon_binary, socket_path)
    probe = probes(socket_path, 60, 90, heading=True)
    probe.wait(lambda e: e.get('event') == 'dispatch' and e['connected'] and e['heading_available'],
               EVENT_TIMEOUT, what='subscribed with the heading')
    mark = len(probe.events)
    turn(testbed, device, +1)
    done = probe.wait(lambda e: e.get('event') == 'dispatch' and (e.get('heading') or {}).get('yaw', 0) > math.radians(TURN_DEG) * 0.8,
                      EVENT_TIMEOUT, what='yaw > 80 % of the turn')
    # Rotation 90: the panel's x is the output's -y; yaw is not rotated.
    assert abs(done['heading']['yaw'] - (-done['offset']['y']) * math.pi / 2) < 0.01, done
    assert done['heading']['seq'] == done['offset']['seq']
    turning = [e['heading'] for e in probe.events[mark:] if e.get('event') == 'dispatch' and e.get('heading')
               and abs(e['heading']['vyaw']) > 0.2]
    assert turning and all(h['vyaw'] > 0 for h in turning), turning
