"""Motion through emulated IIO devices → viewer offsets with the right signs (docs/frames.md
"Viewer offset": x > 0 when the screen turns toward the viewer's right = positive rotation about
device +Y; y > 0 when the screen tips downward = positive rotation about device +X).

Tilts are physically consistent: the gyroscope reads the turn while the accelerometer follows
gravity (plx.rotation_rows), as a real device would report. The device starts upright."""
import math

import pytest

import plx
from helpers import (CROSS_AXIS_LIMIT, SIGN_THRESHOLD, TURN_PEAK_LIMIT, TURN_THRESHOLD,
                     describe, expect_offset, subscribe_ready, tilt_x, trace, turn_y)


@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_tilt_about_x_moves_y(imu_daemon, testbed, sign):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, sign * 15.0)
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    assert abs(f['x']) < CROSS_AXIS_LIMIT, 'a tilt about X moved x; ' + describe(c)


@pytest.mark.parametrize('sign', [1, -1], ids=['turn-right', 'turn-left'])
def test_turn_about_y_moves_x(imu_daemon, testbed, sign):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    turn_y(testbed, dev, dev, sign)
    f = expect_offset(c, lambda x, y: sign * x > TURN_THRESHOLD, 'x %s %.2f' % ('>' if sign > 0 else '< -', TURN_THRESHOLD))
    assert abs(f['y']) < CROSS_AXIS_LIMIT, 'a turn about Y moved y; ' + describe(c)
    c.pump(0.5)
    peak = max(sign * o['x'] for o in c.offsets())
    assert peak < TURN_PEAK_LIMIT, '0.3 rad of turn read as %.3f (expected ≈ 0.19); %s' % (peak, describe(c))


def test_display_rotation_rotates_offsets(imu_daemon, testbed):
    # rotated(by: 90) maps (x, y) → (y, −x); 180 → (−x, −y); 270 → (−y, x). A +X tilt gives y > 0.
    daemon, dev = imu_daemon
    expected = {0: ('y', 1), 90: ('x', 1), 180: ('y', -1), 270: ('x', -1)}
    clients = {}
    for rotation in expected:
        c = daemon.connect()
        subscribe_ready(c, rotation=rotation, settle=False)
        clients[rotation] = c
    for c in clients.values():
        assert c.settle(), describe(c)
    tilt_x(testbed, dev, dev, 15.0)
    for rotation, (axis, sign) in expected.items():
        c = clients[rotation]
        other = 'y' if axis == 'x' else 'x'
        f = expect_offset(c, lambda x, y: sign * {'x': x, 'y': y}[axis] > SIGN_THRESHOLD,
                          'rotation %d: %s%s > %.2f' % (rotation, '-' if sign < 0 else '', axis, SIGN_THRESHOLD))
        assert abs(f[other]) < CROSS_AXIS_LIMIT, 'rotation %d: %s' % (rotation, describe(c))


def test_still_device_sends_no_frames(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)  # waits until frames stop for 0.5 s
    before = len(c.frames)
    c.pump(1.5)
    assert len(c.frames) - before <= 1, 'a still device keeps sending offsets; ' + describe(c)


def test_unsubscribe_stops_frames(imu_daemon, testbed):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    reply = c.request({'cmd': 'unsubscribe', 'id': 3}, 'unsubscribed')
    assert reply is not None and reply['type'] == 'unsubscribed' and reply.get('id') == 3, reply
    watcher = daemon.connect()
    subscribe_ready(watcher)
    before = len(c.frames)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(watcher, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f on the still subscribed client' % SIGN_THRESHOLD)
    c.pump(0.3)
    assert len(c.frames) == before, 'frames after unsubscribe; ' + describe(c)


def test_rate_is_clamped_and_respected(start_daemon, testbed):
    dev = plx.bmi160_16g(0)
    daemon = start_daemon(dev)
    c = daemon.connect()
    reply = c.subscribe(rate=100000)
    assert reply is not None and reply['type'] == 'subscribed', reply
    assert reply['rate'] <= c.hello['max_rate'], 'effective rate above the hello max_rate'
    slow = daemon.connect()
    assert slow.subscribe(rate=10)['rate'] == 10
    player = plx.TracePlayer(testbed, dev, dev, trace('ngimu.csv')).start()
    try:
        slow.pump(4.0)
    finally:
        player.stop()
    arrivals = [t for t, _ in slow.frames]
    assert len(arrivals) >= 5, 'real motion produced almost no frames; ' + describe(slow)
    span = arrivals[-1] - arrivals[0]
    assert (len(arrivals) - 1) / span <= 10 * 1.25, '%d frames in %.2f s at rate 10' % (len(arrivals), span)


def test_recording_playback_gives_sane_frames(start_daemon, testbed):
    """The NGIMU recording, played through a bmi160 at its own timing: frames flow, stay within
    [-1, 1] (the client checks every frame), seq increases, t is CLOCK_MONOTONIC of the samples."""
    dev = plx.bmi160_16g(0, initial_accel=plx.FACE_UP)
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c, rate=30)
    player = plx.TracePlayer(testbed, dev, dev, trace('ngimu.csv')).start()
    try:
        c.pump(5.0)
    finally:
        player.stop()
    frames = c.offsets()
    assert len(frames) >= 20, describe(c)
    assert max(max(abs(o['x']), abs(o['y'])) for o in frames) > 0.05, 'real motion left the offset at 0'
    assert all(b['seq'] > a['seq'] and b['t'] >= a['t'] for a, b in zip(frames, frames[1:]))
    # t is the monotonic time of the newest sample behind the frame: at most a moment before arrival
    for arrival, o in c.frames:
        lag = arrival - o['t'] / 1e9
        assert -0.01 <= lag < 1.0, 't=%d is not CLOCK_MONOTONIC ns near the arrival (lag %.3f s)' % (o['t'], lag)


# --- device variants: names, scales, offsets, mount matrices --------------------------------------

def combined(**kw):
    d = plx.bmi160(0, **kw)
    return [d], d, d


def split(**kw):
    a = plx.hid_accel_3d(0, accel_mount_matrix='0, 1, 0; -1, 0, 0; 0, 0, 1')
    g = plx.hid_gyro_3d(1, gyro_mount_matrix='-1, 0, 0; 0, -1, 0; 0, 0, 1',
                        channel_scale={'anglvel_y': 0.0005}, gyro_offset=5)
    return [a, g], a, g


VARIANTS = {
    'split-hid-rotated': split,
    'mount_matrix': lambda: combined(mount_matrix='0, -1, 0; -1, 0, 0; 0, 0, -1'),
    'in_mount_matrix': lambda: combined(in_mount_matrix='1, 0, 0; 0, 0, 1; 0, -1, 0'),
    'per-type-matrices-offsets': lambda: combined(
        accel_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1', gyro_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1',
        accel_offset=-40, channel_scale={'anglvel_x': 0.002, 'anglvel_y': 0.0005}, channel_offset={'anglvel_y': 7}),
    'udev-matrix': lambda: combined(
        udev_mount_matrix='-1, 0, 0; 0, -1, 0; 0, 0, 1', accel_mount_matrix='1, 0, 0; 0, 1, 0; 0, 0, 1',
        gyro_mount_matrix='-1, 0, 0; 0, -1, 0; 0, 0, 1'),
}


@pytest.mark.parametrize('variant', list(VARIANTS))
@pytest.mark.parametrize('motion', ['tilt-x', 'turn-y'])
def test_device_variants_keep_signs(start_daemon, testbed, variant, motion):
    devices, acc, gyr = VARIANTS[variant]()
    daemon = start_daemon(*devices)
    c = daemon.connect()
    subscribe_ready(c)
    if motion == 'tilt-x':
        tilt_x(testbed, acc, gyr, 15.0)
        f = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
        assert abs(f['x']) < CROSS_AXIS_LIMIT, describe(c)
    else:
        turn_y(testbed, acc, gyr, 1)
        f = expect_offset(c, lambda x, y: x > TURN_THRESHOLD, 'x > %.2f' % TURN_THRESHOLD)
        assert abs(f['y']) < CROSS_AXIS_LIMIT, describe(c)
        c.pump(0.5)
        assert max(o['x'] for o in c.offsets()) < TURN_PEAK_LIMIT, 'gyro scale/offset misread; ' + describe(c)


# --- accelerometer only -------------------------------------------------------------------------

def accel_only(**kw):
    # MMA8452-like: 12-bit, ±2 g
    kw.setdefault('accel_scale', 0.009576)
    return plx.IIODevice('mma8452', 0, gyro=False, raw_bits=12, **kw)


@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_accelerometer_only_device(start_daemon, testbed, sign):
    dev = accel_only()
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    # 30°: without a gyroscope the attitude comes from gravity alone, give it time and margin.
    tilt_x(testbed, dev, None, sign * 30.0, seconds=0.5)
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD),
                      timeout=5.0)
    assert abs(f['x']) < CROSS_AXIS_LIMIT, describe(c)


def test_udev_mount_matrix_wins_over_sysfs(start_daemon, testbed):
    # ACCEL_MOUNT_MATRIX (udev) comes first in the lookup order; the sysfs matrix says identity.
    # A daemon using the sysfs one would see the device on its side and move x instead of y.
    dev = accel_only(udev_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1', accel_mount_matrix='1, 0, 0; 0, 1, 0; 0, 0, 1')
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, None, 30.0, seconds=0.5)
    f = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD, timeout=5.0)
    assert abs(f['x']) < CROSS_AXIS_LIMIT, describe(c)


def test_recenter_brings_the_offset_back(imu_daemon, testbed):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 20.0)
    expect_offset(c, lambda x, y: y > 0.12, 'y > 0.12')
    reply = c.request({'cmd': 'recenter', 'id': 1}, 'ok')
    assert reply is not None and reply['type'] == 'ok' and reply.get('id') == 1, reply
    expect_offset(c, lambda x, y: abs(x) < 0.03 and abs(y) < 0.03, 'a centred offset after recenter', timeout=1.5)


def test_reduce_motion_sends_zero_then_silence(imu_daemon, testbed):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 20.0)
    expect_offset(c, lambda x, y: y > 0.12, 'y > 0.12')
    mark = c.mark()
    reply = c.request({'cmd': 'set', 'reduce_motion': True}, 'ok')
    assert reply is not None and reply['type'] == 'ok', reply
    assert c.wait_for(lambda o: o.get('type') == 'state' and o.get('reduce_motion') is True, 2.0, since=mark), describe(c)
    zero = c.wait_for(lambda o: o.get('type') == 'offset' and o['x'] == 0 and o['y'] == 0, 2.0, since=mark)
    assert zero is not None, 'no (0, 0) frame on reduce motion; ' + describe(c)
    # The zero frame must be the last one: nothing after it, even with motion.
    tilt_x(testbed, dev, dev, -20.0)
    c.pump(1.0)
    assert c.latest is zero, 'frames after reduce motion; ' + describe(c)
    assert c.request({'cmd': 'set', 'reduce_motion': False}, 'ok')['type'] == 'ok'
    assert c.wait_for(lambda o: o.get('type') == 'state' and o.get('reduce_motion') is False, 2.0), describe(c)
    # Sensors reopen now; let the start-up transient pass before moving again.
    assert c.settle(quiet=1.0), describe(c)
    tilt_x(testbed, dev, dev, 20.0)
    expect_offset(c, lambda x, y: math.hypot(x, y) > SIGN_THRESHOLD, 'motion again after reduce motion off',
                  timeout=5.0)


@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_tilt_seen_by_the_accelerometer_alone(imu_daemon, testbed, sign):
    # The accelerometer jumps to the tilted pose while the gyroscope reads nothing (as after a
    # slow tilt under the gyro's noise floor): the fused attitude must still follow gravity.
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    testbed.set_accel(dev, plx.gravity_after_rotation(plx.UPRIGHT, 'x', sign * 15.0))
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    assert abs(f['x']) < CROSS_AXIS_LIMIT, 'a tilt about X moved x; ' + describe(c)
