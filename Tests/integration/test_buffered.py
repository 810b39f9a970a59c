"""Buffered capture (docs/sensors.md): scans from /dev/iio:deviceN instead of sysfs polling.

An emulated bmi160 with scan elements, a trigger and a PTY node; plx.ScanFeeder writes packed scans
of the device's current values at 200 Hz once the daemon has enabled the buffer, so the usual
tilts and turns (plx.turn) move what the daemon reads. Each test checks from the daemon's log
which capture it chose, and offsets' signs through the socket."""
import pytest

import plx
from helpers import (CROSS_AXIS_LIMIT, SIGN_THRESHOLD, TURN_THRESHOLD, describe, expect_offset,
                     sleeps_under_typical_load, subscribe_ready, tilt_x, turn_y, wait_log)

# Rate the emulated trigger fires at (Hz): above the default 100 Hz poll rate, as BMI160s run.
SCAN_RATE = 200.0
BUFFERED_LOG = 'capture: buffered'
POLLED_LOG = 'polling instead'


def start_buffered(start_daemon, testbed, feeders, device, daemon_kw=None, **feeder_kw):
    """Adds the device, starts its feeder, then the daemon (with `daemon_kw`), and checks from the
    log that it chose buffered capture; returns (daemon, feeder)."""
    testbed.add(device)
    feeder = plx.ScanFeeder(testbed, device, rate_hz=SCAN_RATE, **feeder_kw).start()
    feeders.append(feeder)
    daemon = start_daemon(**(daemon_kw or {}))
    assert wait_log(daemon, BUFFERED_LOG), daemon.stderr_tail()
    return daemon, feeder


SCAN_FORMATS = [
    ('le:s16/16>>0', 'le:s16/16>>0', None),
    ('be:s16/16>>0', 'be:s16/16>>0', None),
    ('be:s12/16>>4', 'le:s32/32>>0', None),
    ('le:u16/16>>0', 'be:u16/16>>0', 32768),
    ('le:u14/16>>2', 'le:u24/32>>8', 8192),
]
SCAN_FORMAT_IDS = ['le-s16', 'be-s16', 'be-s12-shift4', 'unsigned-16', 'unsigned-shifted']


def device_with_format(accel_type, gyro_type, bias):
    kw = {}
    if accel_type.startswith(('le:s12', 'be:s12', 'le:u14')):
        # 12/14-bit accelerometers: ±2 g needs a coarser scale to fit.
        kw['accel_scale'] = 0.0096 if '12' in accel_type else 0.0024
    return plx.buffered_bmi160(0, accel_type=accel_type, gyro_type=gyro_type, unsigned_bias=bias, **kw)


@pytest.mark.parametrize('accel_type,gyro_type,bias', SCAN_FORMATS, ids=SCAN_FORMAT_IDS)
@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_buffered_tilt_keeps_signs(start_daemon, testbed, feeders, accel_type, gyro_type, bias, sign):
    dev = device_with_format(accel_type, gyro_type, bias)
    daemon, feeder = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, sign * 15.0)
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    assert abs(f['x']) < CROSS_AXIS_LIMIT, 'a tilt about X moved x; ' + describe(c)
    assert feeder.scans > 0
    assert POLLED_LOG not in daemon.stderr_text()


@pytest.mark.parametrize('accel_type,gyro_type,bias', SCAN_FORMATS, ids=SCAN_FORMAT_IDS)
def test_buffered_accelerometer_alone_keeps_signs(start_daemon, testbed, feeders, accel_type, gyro_type, bias):
    # The accelerometer jumps to a tilted pose while the gyroscope reads nothing: the offset
    # follows gravity only if the accelerometer's scans decode right (the gyro cannot cover up).
    dev = device_with_format(accel_type, gyro_type, bias)
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    testbed.set_accel(dev, plx.gravity_after_rotation(plx.UPRIGHT, 'x', -15.0))
    f = expect_offset(c, lambda x, y: y < -SIGN_THRESHOLD, 'y < -%.2f' % SIGN_THRESHOLD)
    assert abs(f['x']) < CROSS_AXIS_LIMIT, 'a tilt about X moved x; ' + describe(c)


@pytest.mark.parametrize('sign', [1, -1], ids=['turn-right', 'turn-left'])
def test_buffered_turn_keeps_signs(start_daemon, testbed, feeders, sign):
    dev = plx.buffered_bmi160(0)
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    turn_y(testbed, dev, dev, sign)
    f = expect_offset(c, lambda x, y: sign * x > TURN_THRESHOLD, 'x %s %.2f' % ('>' if sign > 0 else '< -', TURN_THRESHOLD))
    assert abs(f['y']) < CROSS_AXIS_LIMIT, 'a turn about Y moved y; ' + describe(c)


def test_frame_time_is_the_kernel_timestamp(start_daemon, testbed, feeders):
    # A monotonic timestamp clock: each frame's t is the timestamp of a scan the feeder wrote
    # (not the daemon's read time, which comes later and would match none).
    dev = plx.buffered_bmi160(0)
    daemon, feeder = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    written = set(feeder.written)
    times = [o['t'] for o in c.offsets()]
    assert times and all(t in written for t in times), \
        'frame times %s are not kernel timestamps written (last written %s)' % (times[-5:], sorted(written)[-5:])


# Wake-ups a second the daemon may make, all threads together, with 200 Hz scans and 60 Hz
# subscribers: one per frame, plus a second one when a scan comes later than forecast (the
# Python feeder's timing jitters), never one per scan (200).
PACED_WAKEUPS = 150


def test_kernel_queue_reports_every_scan_and_is_read_per_frame(workdir, start_daemon, testbed, feeders):
    # libiio sets buffer/watermark to its refill size (16): a kernel then reports the buffer
    # readable only once 16 scans wait (80 ms at 200 Hz). The daemon lowers it to 1 and deepens
    # the queue, so that the daemon can leave it alone from frame to frame instead of per scan.
    dev = plx.buffered_bmi160(0)
    conf = workdir + '/paced.conf'
    with open(conf, 'w') as f:
        f.write('[Motion]\nMinimumChange=0\n')   # every scan makes a frame: subscribers stay due
    daemon, feeder = start_buffered(start_daemon, testbed, feeders, dev, daemon_kw={'config': conf})
    assert testbed.get_raw(dev, 'buffer/watermark') == '1'
    assert testbed.get_raw(dev, 'buffer/length') == '256'
    rates = sleeps_under_typical_load(daemon, ('*',), source_stamps=lambda: list(feeder.written))
    assert rates['*'] < PACED_WAKEUPS, 'the daemon woke %.0f times a second' % rates['*']


def test_non_monotonic_timestamp_clock_uses_read_time(start_daemon, testbed, feeders):
    # CLOCK_REALTIME stamps are ~decades ahead of CLOCK_MONOTONIC: the daemon must not use them
    # as sample times, only their spacing; motion still works.
    import time
    dev = plx.buffered_bmi160(0, timestamp_clock='realtime')
    daemon, feeder = start_buffered(start_daemon, testbed, feeders, dev,
                                    timestamp_of=lambda t_ns: time.time_ns())
    assert 'clock realtime is not monotonic' in daemon.stderr_text()
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    now = time.monotonic_ns()
    assert all(abs(o['t'] - now) < 30e9 for o in c.offsets()), 'frame times are not CLOCK_MONOTONIC'


def test_unfed_buffer_falls_back_to_polling(start_daemon, testbed):
    # Scan elements but a trigger that never fires: no data within 500 ms → polled, logged.
    dev = plx.buffered_bmi160(0)
    testbed.add(dev)
    daemon = start_daemon()
    assert wait_log(daemon, POLLED_LOG), daemon.stderr_tail()
    assert 'no buffered data within 500 ms' in daemon.stderr_text()
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f (polled)' % SIGN_THRESHOLD)


def test_buffer_that_cannot_be_enabled_falls_back_to_polling(start_daemon, testbed):
    # No /dev/iio:device0 (the buffer cannot be opened): polled, with the reason in the log.
    dev = plx.buffered_bmi160(0, dev_node=False)
    testbed.add(dev)
    daemon = start_daemon()
    assert wait_log(daemon, 'cannot enable the buffer of iio:device0'), daemon.stderr_tail()
    assert POLLED_LOG in daemon.stderr_text()
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, -15.0)
    expect_offset(c, lambda x, y: y < -SIGN_THRESHOLD, 'y < -%.2f (polled)' % SIGN_THRESHOLD)


def test_missing_trigger_is_assigned(start_daemon, testbed, feeders):
    dev = plx.buffered_bmi160(0)
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    assert testbed.get_raw(dev, 'trigger/current_trigger') == 'bmi160-dev0'
    assert 'assigned trigger bmi160-dev0' in daemon.stderr_text()


def test_other_trigger_is_used_when_the_own_one_is_missing(start_daemon, testbed, feeders):
    # Only a sysfs trigger exists (as with iio-trig-sysfs): the device gets that one.
    dev = plx.buffered_bmi160(0, trigger_name='sysfstrig0')
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    assert testbed.get_raw(dev, 'trigger/current_trigger') == 'sysfstrig0'


def test_current_trigger_is_kept(start_daemon, testbed, feeders):
    dev = plx.buffered_bmi160(0, current_trigger='bmi160-dev0')
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    assert 'using its current trigger bmi160-dev0' in daemon.stderr_text()
    assert 'assigned trigger' not in daemon.stderr_text()


def test_no_trigger_at_all_polls(start_daemon, testbed):
    dev = plx.buffered_bmi160(0, trigger_name=None)
    testbed.add(dev)
    daemon = start_daemon()
    # No hrtimer either: /sys is emulated here, so the daemon neither mounts configfs nor loads
    # modules, and says so; the lab makes hrtimer triggers on the real kernel (test_i2c_imus.py).
    assert wait_log(daemon, "has no trigger and none exists to assign; no hrtimer trigger: /sys is not the kernel's sysfs"), daemon.stderr_tail()
    assert wait_log(daemon, POLLED_LOG), daemon.stderr_tail()


def test_buffer_going_silent_is_lost_then_polled(start_daemon, testbed, feeders):
    # The trigger stops firing mid-stream: after the stall limit the sensors count as lost, the
    # supervisor reopens them, the buffer stays silent for 500 ms and the daemon polls instead.
    dev = plx.buffered_bmi160(0)
    daemon, feeder = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    feeder.stop()
    lost = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'lost', 10.0)
    assert lost is not None, describe(c)
    state = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'ok', 10.0)
    assert state is not None, describe(c)
    assert 'the buffer delivered nothing' in daemon.stderr_text()
    assert wait_log(daemon, 'no buffered data within 500 ms'), daemon.stderr_tail()
    # The engine re-anchors to the pose it finds on reopening; move only after polling started.
    assert wait_log(daemon, 'polled at'), daemon.stderr_tail()
    assert c.settle(quiet=0.5, timeout=8.0), describe(c)
    testbed.set_accel(dev, plx.gravity_after_rotation(plx.UPRIGHT, 'x', 15.0))
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f (polled)' % SIGN_THRESHOLD)


def test_split_devices_without_scan_elements_are_polled(start_daemon, testbed):
    # Split devices are captured buffered (test_split_devices.py) when they can be; without
    # scan elements they are polled, with the reason logged.
    accel = plx.hid_accel_3d(0)
    gyro = plx.hid_gyro_3d(1)
    daemon = start_daemon(accel, gyro)
    assert wait_log(daemon, 'has no scan elements for its motion channels: ' + POLLED_LOG), daemon.stderr_tail()


# Device preference: iio-sensor-proxy's convention for convertibles (display accelerometer in the
# lid, another in the base). Each hint alone must make the display one win, whichever index it has.
PREFERENCE_HINTS = {
    'udev-ACCEL_LOCATION': (dict(extra_properties={'ACCEL_LOCATION': 'base'}),
                            dict(extra_properties={'ACCEL_LOCATION': 'display'})),
    'label': (dict(extra_attrs={'label': 'accel-base'}), dict(extra_attrs={'label': 'accel-display'})),
    'location-attr': (dict(extra_attrs={'location': 'base'}), dict(extra_attrs={'location': 'lid'})),
}


@pytest.mark.parametrize('display_first', [False, True], ids=['display-second', 'display-first'])
@pytest.mark.parametrize('hint', sorted(PREFERENCE_HINTS))
def test_display_accelerometer_preferred_over_base(start_daemon, testbed, hint, display_first):
    base_kw, display_kw = PREFERENCE_HINTS[hint]
    display_index, base_index = (0, 1) if display_first else (1, 0)
    base = plx.IIODevice('bmi160', base_index, gyro=False, **base_kw)
    display = plx.IIODevice('bmi160', display_index, gyro=False, **display_kw)
    daemon = start_daemon(base, display)
    c = daemon.connect()
    subscribe_ready(c)
    assert 'accelerometer: %s' % display.node in daemon.stderr_text(), daemon.stderr_tail()
    # status names the choice: the display's accelerometer over the base's, each with its hint.
    accel = [s for s in daemon.connect().status()['sensors'] if s['kind'] == 'accel'][0]
    chosen, _, ignored = accel.get('choice', '').partition(' over ')
    assert chosen.startswith(display.node + ' (') and 'display)' in chosen, accel
    assert ignored.startswith(base.node + ' (') and 'base)' in ignored, accel
    if hint == 'label':
        assert 'accel-display, display' in chosen and 'accel-base, base' in ignored, accel
    # The base tilting alone (the keyboard half moving) must not move the offset…
    testbed.set_accel(base, plx.gravity_after_rotation(plx.UPRIGHT, 'x', 30.0))
    c.pump(0.5)
    assert all(abs(o['y']) < CROSS_AXIS_LIMIT for o in c.offsets()), 'the base accelerometer moved it; ' + describe(c)
    # …the display tilting does.
    testbed.set_accel(display, plx.gravity_after_rotation(plx.UPRIGHT, 'x', 30.0))
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD, timeout=5.0)


def test_device_without_trigger_directory_needs_none(start_daemon, testbed, feeders):
    # Devices with their own FIFO (and HID hubs) have no trigger/ directory: buffered as they are.
    dev = plx.buffered_bmi160(0, trigger_dir=False, trigger_name=None)
    daemon, _ = start_buffered(start_daemon, testbed, feeders, dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
