"""Buffered capture of split devices (docs/sensors.md "Split devices"): a HID sensor hub's
`accel_3d` and `gyro_3d`, two IIO devices each with its own trigger, buffer and clock, merged in
time order; and the hub's own rest (docs/power.md "Rest at the hub").

The devices are emulated as Linux 6.1's hid-sensor-accel-3d / hid-sensor-gyro-3d show them
(plx.buffered_hid_accel_3d / buffered_hid_gyro_3d): triggers `accel_3d-dev0` and `gyro_3d-dev1`,
`le:s16/32>>0` scans whose upper 16 bits hold junk, a realtime timestamp clock, a per-type report
rate with no list of offered rates, and a change sensitivity (`in_*_hysteresis`). Their feeders
act as the hub: a scan per report interval only when a value changed by more than the
sensitivity, stamped on the device's clock. `in_*_raw` hold no number (sysfs_raw=False) and are
checked unread: values that come out right came from the scans.

umockdev cannot emulate the kernel's refusals (EINVAL without a trigger, no data from another
device's trigger, EBUSY on the clock while enabled): the daemon's choices are checked, not the
kernel's reactions; those await the real-kernel lab."""
import os
import subprocess
import threading
import time

import plx
from helpers import (CROSS_AXIS_LIMIT, SIGN_THRESHOLD, TURN_THRESHOLD, context_switches, describe, expect_offset, subscribe_ready,
                     sleeps_under_typical_load, thread_sleeps, tilt_x, turn_y, wait_log, wait_resting)
import pytest

# The report rate the daemon asks of each hub sensor ([Sensor] Rate=, default 100 Hz).
FULL_RATE = 100.0
# A still sensor's noise in raw steps: 0.01 m/s² and 0.001 rad/s, under the rest sensitivity.
NOISE_LSB = 1
# The rest sensitivities the daemon chooses (HubRest: Stillness's tolerances in the hub's unit,
# here m/s² and rad/s: the emulated scales 0.01 and 0.001 are plain powers of ten).
REST_ACCEL_HYSTERESIS = 0.15
REST_GYRO_HYSTERESIS = 0.05
# How long the daemon is watched at rest (s), from the status that said it rests, and the
# wake-ups it may make meanwhile: the end of that status request, the one drain of the samples
# kept while coming to rest (2 s after the rest began), and one spare (seen once in a full
# integration run, under load; 1–2 are usual). A timer or poll slice of any period under 3 s
# would add at least two.
QUIET_SECONDS = 6.0
QUIET_WAKEUPS = 3
# The onset budget (docs/power.md): from the first moving report to a frame.
ONSET_BUDGET = 0.1


def raw_paths(testbed, *devices):
    return [testbed.attr_path(d, 'in_%s_raw' % ch) for d in devices for kind in (plx.ACCEL, plx.GYRO)
            for ch in d.channels(kind)]


def watch_reads(paths):
    """Sets each file's access time to 0 (before its modification time, so that any read updates
    it even under relatime); returns whether this filesystem records reads at all."""
    probe = paths[0]
    mtime = os.stat(probe).st_mtime_ns
    os.utime(probe, ns=(0, mtime))
    with open(probe, 'rb') as f:
        f.read()
    records = os.stat(probe).st_atime_ns != 0
    for p in paths:
        os.utime(p, ns=(0, os.stat(p).st_mtime_ns))
    return records


def read_since_watched(paths):
    return [os.path.basename(p) for p in paths if os.stat(p).st_atime_ns != 0]


def start_split(start_daemon, testbed, feeders, accel_kw=None, gyro_kw=None, gyro=True, daemon_kw=None, noise_lsb=0):
    """A HID accel_3d (iio:device0) and gyro_3d (iio:device1) whose raw attributes hold no
    number, their hub feeders and a daemon that chose buffered capture; returns
    (daemon, accel, gyro, feeders, raw files watched or None when reads are not recorded)."""
    accel = plx.buffered_hid_accel_3d(0, sysfs_raw=False, **(accel_kw or {}))
    devices = [accel]
    if gyro:
        devices.append(plx.buffered_hid_gyro_3d(1, sysfs_raw=False, **(gyro_kw or {})))
    started = []
    for d in devices:
        testbed.add(d)
        f = plx.ScanFeeder(testbed, d, rate_hz=FULL_RATE, hub=True, noise_lsb=noise_lsb).start()
        feeders.append(f)
        started.append(f)
    paths = raw_paths(testbed, *devices)
    watched = paths if watch_reads(paths) else None
    daemon = start_daemon(**(daemon_kw or {}))
    assert wait_log(daemon, 'capture: buffered'), daemon.stderr_tail()
    return daemon, accel, devices[1] if gyro else None, started, watched


def check_no_raw_reads(daemon, watched):
    assert plx.UNREADABLE_RAW not in daemon.stderr_text()
    assert 'unparseable sysfs value' not in daemon.stderr_text()
    if watched is not None:
        assert read_since_watched(watched) == [], 'the daemon read raw attributes while buffered'


def test_split_devices_are_captured_buffered_each_with_its_own_trigger(start_daemon, testbed, feeders):
    daemon, accel, gyro, (fa, fg), watched = start_split(start_daemon, testbed, feeders)
    log = daemon.stderr_text()
    assert 'capture: buffered (accel iio:device0, gyro iio:device1)' in log, daemon.stderr_tail()
    assert 'polling instead' not in log
    # Each its own data-ready trigger, never the other's.
    assert testbed.get_raw(accel, 'trigger/current_trigger') == 'accel_3d-dev0'
    assert testbed.get_raw(gyro, 'trigger/current_trigger') == 'gyro_3d-dev1'
    for d in (accel, gyro):
        # A queue to sleep through (a hub's is 2 scans), a wake-up per scan.
        assert testbed.get_raw(d, 'buffer/length') == '256'
        assert testbed.get_raw(d, 'buffer/watermark') == '1'
        # Both on the daemon's clock, set before the buffer was first seen enabled.
        assert testbed.get_raw(d, 'current_timestamp_clock') == 'monotonic'
    for f in (fa, fg):
        assert f.clocks_at_enable and set(f.clocks_at_enable) == {'monotonic'}, f.clocks_at_enable
    # The report interval raised to the rate the motion needs.
    assert float(testbed.get_raw(accel, 'in_accel_sampling_frequency')) == FULL_RATE
    assert float(testbed.get_raw(gyro, 'in_anglvel_sampling_frequency')) == FULL_RATE
    c = daemon.connect()
    subscribe_ready(c)
    status = c.status()
    assert fa.scans > 0 and fg.scans > 0
    check_no_raw_reads(daemon, watched)
    assert status.get('sensor', 'ok') == 'ok', status


@pytest.mark.parametrize('sign', [1, -1], ids=['tip-down', 'tip-up'])
def test_split_devices_tilt_keeps_signs(start_daemon, testbed, feeders, sign):
    daemon, accel, gyro, _, watched = start_split(start_daemon, testbed, feeders)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, accel, gyro, sign * 15.0)
    f = expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    assert abs(f['x']) < CROSS_AXIS_LIMIT, 'a tilt about X moved x; ' + describe(c)
    check_no_raw_reads(daemon, watched)


@pytest.mark.parametrize('sign', [1, -1], ids=['turn-right', 'turn-left'])
def test_split_devices_turn_keeps_signs(start_daemon, testbed, feeders, sign):
    # A turn about Y with gravity unchanged: only the gyro_3d device's scans can show it.
    daemon, accel, gyro, _, watched = start_split(start_daemon, testbed, feeders)
    c = daemon.connect()
    subscribe_ready(c)
    turn_y(testbed, accel, gyro, sign)
    f = expect_offset(c, lambda x, y: sign * x > TURN_THRESHOLD, 'x %s %.2f' % ('>' if sign > 0 else '< -', TURN_THRESHOLD))
    assert abs(f['y']) < CROSS_AXIS_LIMIT, 'a turn about Y moved y; ' + describe(c)
    check_no_raw_reads(daemon, watched)


def test_junk_in_the_upper_bits_is_masked(start_daemon, testbed, feeders):
    # The emulation's own check: the junk does reach the scans (a decoder that kept 32 bits
    # would read 0xA55A0000 + value, and the tilt below would be nonsense).
    assert plx.encode_scan_value(-5, plx.HID_SCAN_TYPE, plx.HID_UPPER_JUNK) != plx.encode_scan_value(-5, plx.HID_SCAN_TYPE)
    daemon, accel, gyro, _, _ = start_split(start_daemon, testbed, feeders)
    c = daemon.connect()
    subscribe_ready(c)
    testbed.set_accel(accel, plx.gravity_after_rotation(plx.UPRIGHT, 'x', 15.0))
    f = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    assert abs(f['x']) < CROSS_AXIS_LIMIT, describe(c)
    assert abs(f['y']) < 1.0, describe(c)


def test_merged_frames_carry_kernel_timestamps_of_either_device(start_daemon, testbed, feeders):
    daemon, accel, gyro, (fa, fg), _ = start_split(start_daemon, testbed, feeders)
    c = daemon.connect()
    subscribe_ready(c)
    # The tilt runs beside the client, so that arrival times are when frames came.
    tilting = threading.Thread(target=tilt_x, args=(testbed, accel, gyro, 15.0))
    tilting.start()
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    tilting.join()
    written = set(fa.written) | set(fg.written)
    times = [o['t'] for o in c.offsets()]
    assert times and all(t in written for t in times), 'frame times are not monotonic kernel timestamps'
    assert times == sorted(times), 'frames out of time order'
    # How long after its sample each frame reached the client (merge, pacing and the client's
    # own reading together; both devices report every 10 ms).
    delays = sorted(arrival - o['t'] / 1e9 for arrival, o in c.frames if o.get('type') == 'offset' and o['t'] in written)
    print('sample → frame at the client: median %.1f ms, worst %.1f ms over %d frames'
          % (delays[len(delays) // 2] * 1000, delays[-1] * 1000, len(delays)))


# Wake-ups a second the daemon may make, all threads together, with two devices at 200 Hz and
# four 60 Hz subscribers: as test_buffered.py's for one device (one per frame, plus one when a
# scan comes later than forecast), never one per scan (400).
PACED_WAKEUPS = 150


def test_split_devices_are_read_per_frame_not_per_scan(workdir, start_daemon, testbed, feeders):
    # Rate=200: at 100 Hz (one device, or two merged in phase) a 60 Hz subscriber gets ≈ 40
    # frames a second, whatever the capture: a frame goes out up to a sample period after its
    # due time, and a due time closer than half an interval to the last frame is skipped
    # (ClientConnection.dueAfter). Measured with one buffered bmi160 at 100 Hz too.
    conf = workdir + '/paced.conf'
    with open(conf, 'w') as f:
        f.write('[Sensor]\nRate=200\n[Motion]\nMinimumChange=0\n')   # every scan makes a frame
    daemon, _, _, started, _ = start_split(start_daemon, testbed, feeders, daemon_kw={'config': conf})
    before = [f.scans for f in started]
    t0 = time.monotonic()
    # What the feeders really wrote bounds the frames (on a loaded machine they fall behind).
    rates = sleeps_under_typical_load(daemon, ('*',), source_stamps=lambda: [list(f.written) for f in started])
    print('scans a second the feeders wrote: %s' % ['%.0f' % ((f.scans - b) / (time.monotonic() - t0)) for f, b in zip(started, before)])
    print('wake-ups a second, all threads, 2 × 200 Hz devices, 4 × 60 Hz subscribers: %.0f' % rates['*'])
    assert rates['*'] < PACED_WAKEUPS, 'the daemon woke %.0f times a second' % rates['*']


def test_accelerometer_alone_is_captured_buffered(start_daemon, testbed, feeders):
    # Most cheap convertibles: an accel_3d and no gyroscope.
    daemon, accel, _, (fa,), watched = start_split(start_daemon, testbed, feeders, gyro=False)
    assert 'capture: buffered (accel iio:device0)' in daemon.stderr_text(), daemon.stderr_tail()
    assert testbed.get_raw(accel, 'trigger/current_trigger') == 'accel_3d-dev0'
    c = daemon.connect()
    subscribe_ready(c)
    for sign in (1, -1):
        testbed.set_accel(accel, plx.gravity_after_rotation(plx.UPRIGHT, 'x', sign * 15.0))
        expect_offset(c, lambda x, y: sign * y > SIGN_THRESHOLD, 'y %s %.2f' % ('>' if sign > 0 else '< -', SIGN_THRESHOLD))
    check_no_raw_reads(daemon, watched)


def test_another_devices_trigger_is_never_assigned(start_daemon, testbed):
    # accel_3d without a trigger of its own, gyro_3d with one: enabling accel_3d on gyro_3d-dev1
    # would succeed on Linux 6.1 and deliver nothing. The daemon refuses and polls instead.
    accel = plx.buffered_hid_accel_3d(0, trigger_name=None)
    gyro = plx.buffered_hid_gyro_3d(1)
    daemon = start_daemon(accel, gyro)
    assert wait_log(daemon, "only other devices' data-ready triggers: gyro_3d-dev1"), daemon.stderr_tail()
    assert wait_log(daemon, 'polling instead'), daemon.stderr_tail()
    assert testbed.get_raw(accel, 'trigger/current_trigger') == ''


@pytest.mark.parametrize('with_gyro', [True, False], ids=['accel+gyro', 'accel-only'])
def test_hub_rests_silent_and_the_daemon_sleeps_until_the_first_motion(start_daemon, testbed, feeders, with_gyro):
    # Lying face-up on a desk from the start, with a still sensor's noise.
    daemon, accel, gyro, started, _ = start_split(start_daemon, testbed, feeders, noise_lsb=NOISE_LSB, gyro=with_gyro,
                                                  accel_kw={'initial_accel': plx.FACE_UP})
    hub = list(zip([accel, gyro], started))
    kinds = [(d, plx.ACCEL if d is accel else plx.GYRO) for d, _ in hub]
    # The open itself enables each buffer, and may briefly disable it to set its queue (a feeder
    # looking every 5 ms may see that as a second enable): count from here.
    enabled_at_open = [len(f.clocks_at_enable) for _, f in hub]
    rest_sensitivity = {plx.ACCEL: REST_ACCEL_HYSTERESIS, plx.GYRO: REST_GYRO_HYSTERESIS}
    client = daemon.connect()
    client.subscribe(rate=60)
    status = wait_resting(client)
    assert status.get('resting') is True, 'never came to rest: %s' % status
    # Each sensor's sensitivity raised, its interval kept (the first change beyond the
    # sensitivity is reported within one full-rate interval), its buffer left running.
    for d, kind in kinds:
        assert abs(float(testbed.get_raw(d, 'in_%s_hysteresis' % kind)) - rest_sensitivity[kind]) < 1e-5
        assert float(testbed.get_raw(d, 'in_%s_sampling_frequency' % kind)) == FULL_RATE
        assert testbed.get_raw(d, 'buffer/enable') == '1'
    assert 'at rest at the hub' in daemon.stderr_text()

    # The buffers are read on the event loop (LoopCapture.swift): no capture thread.
    assert context_switches(daemon.pid, 'plx-capture') is None, 'buffered devices have a capture thread'
    # Nothing wakes the daemon while the hub sends nothing but the one drain of the samples kept
    # while coming to rest: no poll slices, no stall timer, no other drain.
    scans = sum(f.scans for _, f in hub)
    # Counted per half second, so that a failure says when.
    counts = [thread_sleeps(daemon.pid, '*')]
    for _ in range(int(QUIET_SECONDS * 2)):
        time.sleep(0.5)
        counts.append(thread_sleeps(daemon.pid, '*'))
    slots = [b - a for a, b in zip(counts, counts[1:])]
    wakeups = counts[-1] - counts[0]
    assert sum(f.scans for _, f in hub) == scans, 'the emulated hub sent scans at rest (noise above its sensitivity?)'
    assert all(f.suppressed > 0 for _, f in hub)
    print('daemon wake-ups in %.0f s at rest: %d (per half second: %s)' % (QUIET_SECONDS, wakeups, slots))
    assert wakeups <= QUIET_WAKEUPS, 'the daemon woke %d times in %.0f s at rest (per half second: %s)\n%s' % (
        wakeups, QUIET_SECONDS, slots, daemon.stderr_tail())
    status = client.status()
    assert status['resting'] is True and status.get('sensor', 'ok') == 'ok', status
    assert 'the buffer delivered nothing' not in daemon.stderr_text()

    # The first motion: the hub reports it, the daemon takes full rate and sensitivity back.
    mark = len(client.frames)
    for _, f in hub:
        f.keep_log = True
    # The turn runs beside the client, which must be reading when the first frame comes.
    turning = threading.Thread(target=plx.turn, args=(testbed, accel, gyro, 'x', 20.0), kwargs={'seconds': 0.3})
    turning.start()
    got = client.wait_offset(lambda x, y: abs(y) > SIGN_THRESHOLD, 5.0)
    turning.join()
    assert got is not None, describe(client)
    for d, kind in kinds:
        assert float(testbed.get_raw(d, 'in_%s_sampling_frequency' % kind)) == FULL_RATE
        assert float(testbed.get_raw(d, 'in_%s_hysteresis' % kind)) == 0.0
    # Neither entering nor leaving the rest disabled a hub's buffer (a real hub would power its
    # sensor down and up): no feeder saw the buffer enabled again since the open.
    assert [len(f.clocks_at_enable) for _, f in hub] == enabled_at_open, [f.clocks_at_enable for _, f in hub]
    # Onset, from the first scan the hub sent after the motion began: to the full report rate
    # (the feeder sees it within its 5 ms look), and with a gyroscope to the first frame (an
    # accelerometer alone moves the offset only as fast as the filter follows gravity).
    logs = [f.log_written[0] for _, f in hub if f.log_written]
    assert logs, describe(client)
    first_report = min(logs)
    # Awake: every sensitivity back to 0 (the report interval never changed).
    awake = max(min(at for at, values in f.sensitivities if at >= first_report and not any(values.values()))
                for _, f in hub)
    print('onset from the first moving report to the full rate: %.1f ms' % ((awake - first_report) / 1e6))
    assert awake - first_report <= ONSET_BUDGET * 1e9
    if with_gyro:
        first_frame = next((at for at, o in client.frames[mark:] if o.get('type') == 'offset'), None)
        assert first_frame is not None, describe(client)
        onset = first_frame - first_report / 1e9
        print('onset from the first moving report to a frame: %.1f ms' % (onset * 1000))
        assert onset <= ONSET_BUDGET, 'first frame %.0f ms after the first moving report' % (onset * 1000)
    assert client.status()['resting'] is False


def write_config(workdir, text):
    path = os.path.join(workdir, 'capture.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path


def test_capture_polled_reads_sysfs_even_where_buffers_deliver(start_daemon, testbed, feeders, workdir):
    # Capture=polled: the buffers are never enabled, the tilt still comes through sysfs.
    accel = plx.buffered_hid_accel_3d(0)
    gyro = plx.buffered_hid_gyro_3d(1)
    for d in (accel, gyro):
        testbed.add(d)
    daemon = start_daemon(config=write_config(workdir, '[Sensor]\nCapture=polled\n'))
    assert wait_log(daemon, 'capture: polled (Capture=polled)'), daemon.stderr_tail()
    c = daemon.connect()
    subscribe_ready(c)
    testbed.set_accel(accel, plx.gravity_after_rotation(plx.UPRIGHT, 'x', 15.0))
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    assert 'capture: buffered' not in daemon.stderr_text()
    assert testbed.get_raw(accel, 'buffer/enable') in ('', '0')


def test_capture_buffered_refuses_to_poll(start_daemon, testbed, workdir):
    # Capture=buffered with a device that cannot be buffered (no trigger of its own): an error
    # naming the reason and the setting, no frames from sysfs, and the daemon keeps serving.
    accel = plx.buffered_hid_accel_3d(0, trigger_name=None)
    gyro = plx.buffered_hid_gyro_3d(1)
    daemon = start_daemon(accel, gyro, config=write_config(workdir, '[Sensor]\nCapture=buffered\n'))
    assert wait_log(daemon, 'Capture=buffered: not polling instead'), daemon.stderr_tail()
    assert 'polling instead' not in daemon.stderr_text().replace('not polling instead', '')
    status = daemon.connect().status()
    assert status['sensor'] in ('none', 'lost'), status


# How long a test waits for the daemon to change how it captures (s).
LOG_WAIT = 10.0

# iio-sensor-proxy's udev mark on accel_3d, as its rule sets it on Debian (80-iio-sensor-proxy.rules).
SENSOR_PROXY_MARK = {'IIO_SENSOR_PROXY_TYPE': 'iio-poll-accel iio-buffer-accel'}


def start_beside_sensor_proxy(start_daemon, testbed, feeders, bus, running=True, **daemon_kw):
    """accel_3d marked by iio-sensor-proxy (readable through sysfs; its buffer fed only if
    someone enables it) and gyro_3d fed as a hub; iio-sensor-proxy on the private system `bus`
    (`running`) and a daemon on that bus; returns (daemon, accel, gyro, accel's feeder)."""
    accel = plx.buffered_hid_accel_3d(0, extra_properties=SENSOR_PROXY_MARK)
    gyro = plx.buffered_hid_gyro_3d(1, sysfs_raw=False)
    testbed.add(accel)
    testbed.add(gyro)
    accel_feeder = plx.ScanFeeder(testbed, accel, rate_hz=FULL_RATE, hub=True).start()
    feeders.append(plx.ScanFeeder(testbed, gyro, rate_hz=FULL_RATE, hub=True).start())
    feeders.append(accel_feeder)
    if running:
        bus.own()
    daemon = start_daemon(env=bus.env, **daemon_kw)
    return daemon, accel, gyro, accel_feeder


def wait_capture(client, kind, pred, timeout=LOG_WAIT):
    """Polls `status` until the capture of `kind` satisfies pred; that capture."""
    deadline = time.monotonic() + timeout
    while True:
        capture = next((s.get('capture', '') for s in client.status()['sensors'] if s['kind'] == kind), '')
        if pred(capture) or time.monotonic() > deadline:
            return capture
        time.sleep(0.05)


def test_beside_sensor_proxy_the_gyroscope_is_buffered_and_the_accelerometer_read_slowly(start_daemon, testbed, feeders,
                                                                                          sensor_proxy_bus):
    daemon, accel, gyro, _ = start_beside_sensor_proxy(start_daemon, testbed, feeders, sensor_proxy_bus)
    assert wait_log(daemon, 'capture: accel iio:device0 polled at'), daemon.stderr_tail()
    c = daemon.connect()
    subscribe_ready(c)
    status = c.status()
    by_kind = {s['kind']: s for s in status['sensors']}
    # The gyroscope's own buffer and trigger; the accelerometer's buffer never touched, read
    # through sysfs at 25 Hz (IIOSettings.defaultPolledAccelerometerRate: 75 GET_REPORTs a second
    # on a hub), not the gyroscope's 100.
    assert by_kind['gyro']['capture'] == 'buffered', status
    assert by_kind['accel']['capture'].startswith('polled at 25 Hz') and 'left to iio-sensor-proxy' in by_kind['accel']['capture'], status
    assert by_kind['accel']['rate'] == 25, status
    assert testbed.get_raw(gyro, 'buffer/enable') == '1' and testbed.get_raw(gyro, 'trigger/current_trigger') == 'gyro_3d-dev1'
    assert testbed.get_raw(accel, 'buffer/enable') == '0' and testbed.get_raw(accel, 'trigger/current_trigger') == ''
    # The gyroscope's kernel times are merged with the accelerometer's read times: one clock.
    assert testbed.get_raw(gyro, 'current_timestamp_clock') == 'monotonic'
    # Signs as everywhere: a tip about X (gravity and rotation), a turn about Y (rotation only).
    tilt_x(testbed, accel, gyro, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    tilt_x(testbed, accel, gyro, -15.0)
    turn_y(testbed, None, gyro)
    f = expect_offset(c, lambda x, y: x > TURN_THRESHOLD, 'x > %.2f' % TURN_THRESHOLD)
    assert abs(f['y']) < 0.1, describe(c)
    # parallaxctl status: one capture line per sensor, as they differ.
    text = subprocess.run([plx.find_binary('parallaxctl'), '--socket', daemon.socket_path, 'status'],
                          capture_output=True, text=True, timeout=30).stdout
    captures = [line for line in text.splitlines() if line.startswith('capture')]
    assert len(captures) == 2 and any('gyro: buffered' in l for l in captures), text


def test_beside_sensor_proxy_a_still_device_rests(start_daemon, testbed, feeders, sensor_proxy_bus):
    daemon, accel, gyro, _ = start_beside_sensor_proxy(start_daemon, testbed, feeders, sensor_proxy_bus)
    assert wait_log(daemon, 'capture: accel iio:device0 polled at'), daemon.stderr_tail()
    c = daemon.connect()
    c.subscribe(rate=60)
    status = wait_resting(c)
    assert status.get('resting') is True, 'never came to rest: %s' % status
    # The gyroscope rests at the hub; the accelerometer is read at its rest rate.
    assert abs(float(testbed.get_raw(gyro, 'in_anglvel_hysteresis')) - REST_GYRO_HYSTERESIS) < 1e-5
    assert 'at rest at the hub' in daemon.stderr_text()
    # A tilt wakes it (the gyroscope reports the turn) and the offset follows.
    tilt_x(testbed, accel, gyro, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    assert wait_resting(c, want=False).get('resting') is False


# iio-sensor-proxy stopping or starting while parallaxd runs: the buffer changes hands within
# this long (s), without a restart of either.
HANDOVER_SECONDS = 2.0


def test_a_buffer_iio_sensor_proxy_leaves_is_taken_and_given_back(start_daemon, testbed, feeders, sensor_proxy_bus):
    daemon, accel, gyro, accel_feeder = start_beside_sensor_proxy(start_daemon, testbed, feeders, sensor_proxy_bus)
    c = daemon.connect()
    subscribe_ready(c)
    assert wait_capture(c, 'accel', lambda cap: cap.startswith('polled at ')).startswith('polled at '), daemon.stderr_tail()
    pid = daemon.proc.pid
    # It stops (systemctl stop, masked): the mark stays, its buffer is left enabled (as the real
    # one leaves it), free, and taken.
    testbed.set_raw(accel, 'buffer/enable', '1')
    sensor_proxy_bus.release()
    t0 = time.monotonic()
    capture = wait_capture(c, 'accel', lambda cap: cap == 'buffered', timeout=HANDOVER_SECONDS)
    taken = time.monotonic() - t0
    assert capture == 'buffered', daemon.stderr_tail()
    assert testbed.get_raw(accel, 'buffer/enable') == '1'
    assert 'iio-sensor-proxy stopped: taking its buffer, reopening the sensors' in daemon.stderr_text()
    subscribe_ready(daemon.connect())
    assert accel_feeder.scans > 0, 'nothing read from the buffer taken over'
    # It starts again: the buffer goes back to it.
    sensor_proxy_bus.own()
    t0 = time.monotonic()
    capture = wait_capture(c, 'accel', lambda cap: cap.startswith('polled at '), timeout=HANDOVER_SECONDS)
    given = time.monotonic() - t0
    assert capture.startswith('polled at '), daemon.stderr_tail()
    # Handed back disabled: iio-sensor-proxy sets it up itself once it starts, after parallaxd let
    # go (its unit's drop-in waits for that), and a running buffer would make its set-up fail.
    assert testbed.get_raw(accel, 'buffer/enable') == '0'
    assert daemon.proc.pid == pid and daemon.alive()
    print('buffer taken %.2f s after iio-sensor-proxy stopped, given back %.2f s after it started' % (taken, given))
    # Frames flow on through both hand-overs.
    tilt_x(testbed, accel, gyro, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)


def test_a_mark_without_a_running_iio_sensor_proxy_claims_nothing(start_daemon, testbed, feeders, sensor_proxy_bus):
    # Installed (its rule marks the device), but stopped or masked: the buffer is parallaxd's.
    daemon, _, _, _ = start_beside_sensor_proxy(start_daemon, testbed, feeders, sensor_proxy_bus, running=False)
    assert wait_log(daemon, 'capture: buffered (accel iio:device0, gyro iio:device1)'), daemon.stderr_tail()
