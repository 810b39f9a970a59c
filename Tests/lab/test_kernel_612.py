"""The backports kernel (6.12, docs/lab.md): a smoke run of the HID-hub tests on its drivers, and
the I2C IMUs through i2c-stub with their real drivers (bmi160, st_lsm6dsx, inv_mpu6050, mxc4005,
bmc150_accel),
moved by guest/i2cimu.py, captured by parallaxd the way each can be (docs/sensors.md "Triggers")."""
import time

import pytest

from labkit import IIO, offsets
# Collected again here, on this kernel: the same hub, the same assertions.
from test_kernel_drivers import test_hub_becomes_accel_3d_and_gyro_3d_each_with_its_own_trigger  # noqa: F401
from test_parallaxd import KEEP, moves, test_tilt_sign_and_back  # noqa: F401


@pytest.fixture(scope='module')
def lab(lab_backports):
    return lab_backports


# chip → (what drives its buffer in `status`, has a gyroscope). The mpu6050 without an IRQ has no
# buffer at all (polled); bmc150 has one but accepts only its own triggers (its validate_trigger
# refuses an hrtimer one with EINVAL), which it has only with an IRQ (polled); the others have a
# buffer and no trigger of their own without one.
CHIPS = {
    'bmi160': ('hrtimer', True),
    'lsm6dso': ('hrtimer', True),
    'mpu6050': ('polled', True),
    'mxc4005': ('hrtimer', False),
    'bmc150_accel': ('polled', False),
}
RESULTS = {}


def await_status(d, predicate, seconds):
    deadline = time.monotonic() + seconds
    while True:
        st = d.status()
        if predicate(st) or time.monotonic() > deadline:
            return st
        time.sleep(0.25)


@pytest.mark.parametrize('chip', sorted(CHIPS))
def test_i2c_imu_path_signs_rest_and_onset(lab, make_imu, daemons, chip):
    path, has_gyro = CHIPS[chip]
    imu = make_imu(chip)
    # The kernel's mount matrix: i2c-stub devices have no firmware node, so the drivers read
    # none and offer the identity (a matrix cannot be injected this way: docs/lab.md).
    for dev in imu.info['iio'].values():
        for attr in ('mount_matrix', 'in_accel_mount_matrix', 'in_anglvel_mount_matrix'):
            r = lab.run(['cat', f'{IIO}/{dev}/{attr}'])
            if r.rc == 0:
                assert r.stdout.split() == ['1,', '0,', '0;', '0,', '1,', '0;', '0,', '0,', '1'], (dev, attr, r.stdout)
    d = daemons.start(KEEP + ['Sensor.RestAfter=2'])
    st = await_status(d, lambda s: s.get('sensors'), 20)
    sensors = {s['kind']: s for s in st['sensors']}
    assert set(sensors) == ({'accel', 'gyro'} if has_gyro else {'accel'}), st
    for s in sensors.values():
        if path == 'polled':
            assert s['capture'].startswith('polled'), s
        else:
            assert s['capture'] == 'buffered' and s.get('trigger', '').startswith('hrtimer: parallaxd-'), s
    # A driver that offers a matrix (the identity here) is the kernel source: A = −K, G = K.
    assert st['frame']['source'] in ('kernel', 'identity'), st['frame']
    triggers = lab.check('ls /sys/kernel/config/iio/triggers/hrtimer 2>/dev/null || true').split()

    # Tilt: top edge away, 20°: y < 0 (docs/frames.md), never the other way.
    frames, t0 = moves(d, imu, 'y < -0.15', x=-20, seconds=1)
    assert frames[-1]['y'] < -0.15, frames[-5:]
    moving = [f for f in frames if abs(f['y']) > 0.02]
    assert moving and all(f['y'] < 0 for f in moving), moving[:5]
    onset = (moving[0]['t'] - t0) / 1e9
    tilt_peak = min(f['y'] for f in frames)
    back, _ = moves(d, imu, 'abs(y) < 0.03', x=0, seconds=1)
    assert abs(back[-1]['y']) < 0.03, back[-3:]
    turn_peak = None
    if has_gyro:
        # Turn: right edge away about +Y: x > 0, the first frames from the gyroscope.
        turned, t_turn = moves(d, imu, 'x > 0.15', y=20, seconds=1)
        early = [f for f in turned if t_turn < f['t'] < t_turn + 400_000_000 and abs(f['x']) > 0.01]
        assert early and all(f['x'] > 0 for f in early), turned[:8]
        turn_peak = max(f['x'] for f in turned)
        moves(d, imu, 'abs(x) < 0.03', y=0, seconds=1)
    # Rest: still for RestAfter=2 s, the daemon says it rests; a tilt wakes it with the right sign.
    rested = await_status(d, lambda s: s.get('resting'), 20)
    assert rested.get('resting') is True, rested
    woke, t_wake = moves(d, imu, 'y < -0.1', x=-15, seconds=0.5)
    assert woke[-1]['y'] < -0.1 and all(f['y'] < 0.02 for f in woke), woke[-5:]
    wake_onset = (next(f for f in woke if f['y'] < -0.02)['t'] - t_wake) / 1e9
    RESULTS[chip] = dict(capture=sensors['accel']['capture'], trigger=sensors['accel'].get('trigger', ''),
                         tilt_peak_y=round(tilt_peak, 3), turn_peak_x=turn_peak and round(turn_peak, 3),
                         frame=st['frame']['source'], onset_s=round(onset, 2), wake_onset_s=round(wake_onset, 2), configfs=triggers)
    print(f'\n{chip}: {RESULTS[chip]}')
    d.stop()
    # Its trigger is gone with it.
    left = lab.check('ls /sys/kernel/config/iio/triggers/hrtimer 2>/dev/null || true').split()
    assert not [t for t in left if t.startswith('parallaxd-')], left
