"""Real devices' mount matrices (docs/sensors.md "Mount matrices and the fusion frame"): one
proper frame for accelerometer and gyroscope whatever hwdb's z row says, and the online check.

Every device here is described PHYSICALLY (plx.IIODevice(chip_rotation=R)): a right-handed chip
turned by R that reports specific force (raw = Rᵀ·(−direction of gravity)) and its own rate
(raw = Rᵀ·ω), the way MEMS chips and the IIO ABI do. Its hwdb entry, given as the udev property
ACCEL_MOUNT_MATRIX, says only what hwdb checks: the x and y rows are −R's; the z row is the
common form under test. The raw values therefore do not depend on the daemon's rules; only
the offsets' signs tell whether it derived the right frame. Emulated devices only (umockdev):
no real tablet was at hand."""
import math

import pytest

import plx
from helpers import (CROSS_AXIS_LIMIT, SIGN_THRESHOLD, TURN_PEAK_LIMIT, TURN_THRESHOLD, describe,
                     expect_offset, subscribe_ready, tilt_x, turn_y)

# The three hwdb forms of the issue and the chip rotation R each one's x and y rows describe
# (R's rows x, y = −M's; R's z = x × y), worked out by hand.
FORMS = {
    # det −1: the most common hwdb form (42 entries in Debian 12), consistent with a specific-force chip.
    'det-1': ('0, -1, 0; -1, 0, 0; 0, 0, 1', ((0, 1, 0), (1, 0, 0), (0, 0, -1))),
    # det +1: its z row contradicts its x and y rows (8 entries).
    'det+1-inconsistent-z': ('0, 1, 0; -1, 0, 0; 0, 0, 1', ((0, -1, 0), (1, 0, 0), (0, 0, 1))),
    # singular: the Bush Windows tablet's entry.
    'singular': ('1, 0, 0; 0, -1, 0; 1, 0, 0', ((-1, 0, 0), (0, 1, 0), (0, 0, -1))),
}
# Any offset against the expected direction beyond this counts as "moved the wrong way" (≈ 1°).
WRONG_WAY = 0.01


def chip(form, **kw):
    matrix, rotation = FORMS[form]
    return plx.bmi160(0, udev_mount_matrix=matrix, chip_rotation=rotation, **kw)


def never_wrong_way(client, axis, sign, what):
    bad = [o for o in client.offsets() if sign * o[axis] < -WRONG_WAY]
    assert not bad, '%s moved %s the wrong way first (%s = %.3f); %s' % (what, axis, axis, bad[0][axis], describe(client))


def rock(testbed, dev, axis, degrees, period, cycles=1):
    """Rock about `axis`: +degrees, −degrees, back to the start, as constant-rate turns."""
    for _ in range(cycles):
        plx.turn(testbed, dev, dev, axis, degrees, period / 4)
        plx.turn(testbed, dev, dev, axis, -2 * degrees, period / 2)
        plx.turn(testbed, dev, dev, axis, degrees, period / 4)


def frame_status(client):
    status = client.status()
    assert status is not None and status.get('type') == 'status', status
    return status.get('frame')


@pytest.mark.parametrize('form', list(FORMS))
@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_tilt_signs(start_daemon, testbed, form, sign):
    dev = chip(form)
    c = start_daemon(dev).connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, sign * 20.0)
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    assert abs(f['x']) < CROSS_AXIS_LIMIT, describe(c)
    never_wrong_way(c, 'y', sign, 'a %+g° tip' % (sign * 20))


@pytest.mark.parametrize('form', list(FORMS))
def test_gyro_only_turn_moves_x_right_at_once(start_daemon, testbed, form):
    """+Y at 1 rad/s for 0.3 s while upright: gravity does not change, only the gyroscope sees it."""
    dev = chip(form)
    c = start_daemon(dev).connect()
    subscribe_ready(c)
    turn_y(testbed, dev, dev, 1)
    expect_offset(c, lambda x, y: x > TURN_THRESHOLD, 'x > %.2f' % TURN_THRESHOLD)
    never_wrong_way(c, 'x', 1, 'a +Y turn')
    c.pump(0.3)
    assert max(o['x'] for o in c.offsets()) < TURN_PEAK_LIMIT, describe(c)


@pytest.mark.parametrize('form', list(FORMS))
@pytest.mark.parametrize('axis', ['x', 'y'])
def test_fast_rock_moves_the_right_way(start_daemon, testbed, form, axis):
    """±20° in 0.5 s (2.5 rad/s): the gyroscope leads; right first, then left (or down, then up)."""
    dev = chip(form)
    c = start_daemon(dev).connect()
    subscribe_ready(c)
    start = len(c.offsets())
    rock(testbed, dev, axis, 20.0, 0.5)
    c.pump(0.2)
    # About +Y the screen turns right (x > 0); about +X it tips down (y > 0).
    key = 'x' if axis == 'y' else 'y'
    values = [o[key] for o in c.offsets()[start:]]
    assert values, 'no frames during the rock; ' + describe(c)
    high, low = max(values), min(values)
    assert high > SIGN_THRESHOLD and low < -SIGN_THRESHOLD, 'rock too small: %.3f…%.3f; %s' % (low, high, describe(c))
    assert values.index(high) < values.index(low), 'the rock went the other way first; ' + describe(c)
    first = next(v for v in values if abs(v) > WRONG_WAY)
    assert first > 0, 'first move %.3f; %s' % (first, describe(c))


@pytest.mark.parametrize('form', list(FORMS))
def test_status_names_the_frame_and_its_repairs(start_daemon, testbed, form):
    matrix, rotation = FORMS[form]
    c = start_daemon(chip(form)).connect()
    subscribe_ready(c)
    frame = frame_status(c)
    assert frame is not None, 'status has no frame'
    assert frame['source'] == 'hwdb'
    assert plx.parse_mount_matrix(frame['given']) == plx.parse_mount_matrix(matrix)
    expected_accel = plx.mat_scaled(rotation, -1)
    assert plx.parse_mount_matrix(frame['accel']) == expected_accel, frame
    assert plx.parse_mount_matrix(frame['gyro']) == tuple(tuple(float(x) for x in r) for r in rotation), frame
    # Only the entries whose z row does not fit are repaired, and the repair says why.
    assert bool(frame['repairs']) == (form != 'det-1'), frame
    if form == 'singular':
        assert 'singular' in frame['repairs'][0]
    assert frame['check'] in ('pending', 'consistent'), frame


def test_online_check_flags_a_mirrored_gyroscope_override(start_daemon, testbed, workdir):
    """The config gives the gyroscope the hwdb matrix itself (det −1), as parallaxd used to: every
    rate comes out negated. Moving in a tilted pose, the gyroscope's turns contradict the gravity
    the accelerometer sees on all three axes: the check says so once and corrects it."""
    matrix, _ = FORMS['det-1']
    conf = '%s/parallaxd.conf' % workdir
    with open(conf, 'w') as f:
        f.write('[Sensor]\nGyroMountMatrix=%s\n' % matrix)
    dev = chip('det-1')
    daemon = start_daemon(dev, config=conf)
    c = daemon.connect()
    subscribe_ready(c)
    frame = frame_status(c)
    assert frame['source'] == 'hwdb' and frame['check'] == 'pending', frame
    assert any('online check' in r for r in frame['repairs']), frame
    # Tilted back 45° gravity is oblique to every axis, so turns about each of them move it.
    tilt_x(testbed, dev, dev, -45.0, seconds=0.5)
    for _ in range(3):
        for axis in ('x', 'y', 'z'):
            rock(testbed, dev, axis, 15.0, 0.6, cycles=2)
        frame = frame_status(c)
        if frame['check'] == 'corrected':
            break
    assert frame['check'] == 'corrected', frame
    assert 'x, y, z negated' in frame['check_detail'], frame
    # The gyroscope now turns the right way: the matrix in use is the physically right one.
    assert plx.parse_mount_matrix(frame['gyro']) == tuple(tuple(float(x) for x in r) for r in FORMS['det-1'][1]), frame
    # Reported once per finding: the disagreement when first clear, the correction when made.
    lines = [l for l in daemon.stderr_text().splitlines() if 'frame check:' in l]
    assert len(lines) <= 2 and sum('negated' in l for l in lines) == 1, lines
    assert 'GyroMountMatrix=' in lines[-1], lines


def test_online_check_confirms_a_right_frame(start_daemon, testbed):
    dev = chip('det+1-inconsistent-z')
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, -45.0, seconds=0.5)
    for axis in ('x', 'y', 'z'):
        rock(testbed, dev, axis, 15.0, 0.6, cycles=2)
    frame = frame_status(c)
    assert frame['check'] == 'consistent', frame
    assert 'frame check: gyroscope and accelerometer agree' in daemon.stderr_text()


def _pose_session_rows(rotation):
    """Raw chip rows (trace form) of a device held upright, turned onto its right edge, then laid
    face up, 1.5 s still in each pose: specific force and rate in the chip's own axes."""
    phases = [('hold', None, 0), ('turn', 'z', -90), ('hold', None, 0), ('turn', 'y', -90), ('hold', None, 0)]
    rt = tuple(zip(*rotation))  # Rᵀ
    accel, t0, rows = plx.UPRIGHT, 0, []
    for kind, axis, degrees in phases:
        if kind == 'hold':
            part = [plx.Row(int(i * 5e6), accel, (0.0, 0.0, 0.0)) for i in range(300)]
        else:
            part, accel = plx.rotation_rows(accel, axis, degrees, 0.5)
        for r in part:
            raw_a = plx.mat_vec(rt, tuple(-x for x in r.accel))
            raw_w = plx.mat_vec(rt, r.gyro)
            rows.append(plx.Row(t0 + r.t_ns, raw_a, raw_w))
        t0 = rows[-1].t_ns + 5_000_000
    return rows


@pytest.mark.parametrize('form', list(FORMS))
def test_parallaxctl_frame_finds_the_chips_matrix_from_a_scripted_session(parallaxctl_bin, workdir, form):
    """`parallaxctl frame` on a trace of raw chip axes (replay: reads it as the chip): the printed
    hwdb line and config matrices are the chip's frame (−R, R), whatever hwdb said before."""
    import subprocess
    _, rotation = FORMS[form]
    path = '%s/poses.csv' % workdir
    plx.write_trace(path, _pose_session_rows(rotation), ['raw chip axes, three poses'])
    out = subprocess.run([parallaxctl_bin, 'frame', '--source', 'replay:' + path, '--speed', '10', '--timeout', '30'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for prompt in ('upright', 'right edge', 'flat on a table'):
        assert prompt in out.stderr, out.stderr
    lines = dict(l.split('=', 1) for l in out.stdout.splitlines() if '=' in l and not l.startswith('#'))
    accel = plx.mat_scaled(rotation, -1)
    assert plx.parse_mount_matrix(lines[' ACCEL_MOUNT_MATRIX']) == accel, out.stdout
    assert plx.parse_mount_matrix(lines['AccelMountMatrix']) == accel, out.stdout
    assert plx.parse_mount_matrix(lines['GyroMountMatrix']) == tuple(tuple(float(x) for x in r) for r in rotation), out.stdout
    assert 'gyroscope check: consistent' in out.stdout, out.stdout


def test_parallaxctl_frame_without_poses_fails_clearly(parallaxctl_bin, workdir):
    import subprocess
    path = '%s/still.csv' % workdir
    plx.write_trace(path, [plx.Row(int(i * 5e6), plx.UPRIGHT, (0.0, 0.0, 0.0)) for i in range(400)])
    out = subprocess.run([parallaxctl_bin, 'frame', '--source', 'replay:' + path, '--speed', '10'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and 'still waiting for rightEdgeDown' in out.stderr, (out.returncode, out.stderr)


def test_parallaxctl_status_shows_the_frame(start_daemon, parallaxctl_bin):
    import subprocess
    daemon = start_daemon(chip('singular'))
    c = daemon.connect()
    subscribe_ready(c)  # sensors open: the frame is known
    out = subprocess.run([parallaxctl_bin, '--socket', daemon.socket_path, 'status'], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    rows = {l[:15].strip(): l[15:] for l in out.stdout.splitlines()}
    assert rows['frame'] == 'hwdb, repaired', out.stdout
    assert rows['given'] == '1, 0, 0; 0, -1, 0; 1, 0, 0' and rows['accel'] == '1, 0, 0; 0, -1, 0; 0, 0, 1', out.stdout
    assert rows['gyro'] == '-1, 0, 0; 0, 1, 0; 0, 0, -1', out.stdout
    assert 'singular' in rows['repair'] and rows['check'].startswith('pending'), out.stdout
