"""Power at rest (docs/power.md): a still device with subscribers slows its sensor down and wakes
the daemon a few times a second; the first motion brings the full rate back, and what the daemon
publishes after it is what a daemon that never rested computes from the same samples.

The device is an emulated buffered BMI160 (umockdev) whose feeder follows what the daemon sets:
scans come at its `sampling_frequency` and reach the daemon a `buffer/watermark` at a time
(plx.ScanFeeder, follow_device), with a few LSB of noise as a real sensor lying still. The
numbers the issue asks for (wake-ups, CPU, onset delay) are measured by
scripts/bench/power-at-rest.py and kept in BENCHMARKS.md; these tests check the behaviour."""
import os
import subprocess
import time

import plx
from helpers import SIGN_THRESHOLD, context_switches, describe, tilt_x, wait_resting

# The rates a BMI160's accelerometer offers (Hz), and the one it runs at here.
BMI160_RATES = '0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600'
ACTIVE_RATE = 200.0
# What the daemon chooses at rest from those (docs/power.md): 6.25 Hz, one scan per wake-up.
REST_RATE = 6.25
# Raw steps of noise on every channel of every scan (a still sensor).
NOISE_LSB = 3
# Wake-ups per second of all the daemon's threads at rest that this test accepts: the benchmark
# measures ≈ 7; at full rate the same load costs 60 or more, so 20 tells the two apart on a
# loaded machine.
REST_WAKEUPS_LIMIT = 20.0
# Offset units: a published offset and the never-resting engine's for the same sample (issue 15).
SAME_OFFSET = 0.01


def start_resting_imu(start_daemon, testbed, feeders, **daemon_kw):
    """A buffered BMI160 at 200 Hz lying flat with noise, its device-following feeder (logging
    every scan it hands over) and a daemon; returns (daemon, device, feeder)."""
    dev = plx.buffered_bmi160(0, sampling_frequency=ACTIVE_RATE, sampling_frequency_available=BMI160_RATES)
    testbed.add(dev)
    testbed.set_accel(dev, (0.0, 0.0, -9.80665))
    testbed.set_gyro(dev, (0.0, 0.0, 0.0))
    feeder = plx.ScanFeeder(testbed, dev, rate_hz=ACTIVE_RATE, follow_device=True, noise_lsb=NOISE_LSB)
    feeder.keep_log = True
    feeder.start()
    feeders.append(feeder)
    return start_daemon(**daemon_kw), dev, feeder


def rate_of(testbed, dev):
    return float(testbed.get_raw(dev, 'sampling_frequency'))


def test_a_still_device_slows_down_and_the_daemon_sleeps(start_daemon, testbed, feeders):
    daemon, dev, feeder = start_resting_imu(start_daemon, testbed, feeders)
    clients = [daemon.connect() for _ in range(4)]
    for c in clients:
        c.subscribe(rate=60)
    status = wait_resting(clients[0])
    assert status.get('resting') is True, 'never came to rest: %s' % status
    assert rate_of(testbed, dev) == REST_RATE
    assert testbed.get_raw(dev, 'buffer/watermark') == '1'
    assert 'at rest: 6.25 Hz' in daemon.stderr_text()
    # The feeder follows (it looks at the device every few ms, on its own thread): scans now
    # come 160 ms apart.
    deadline = time.monotonic() + 2.0
    while not (feeder.rates and feeder.rates[-1][1] == REST_RATE) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert feeder.rates and feeder.rates[-1][1] == REST_RATE, feeder.rates

    # Three seconds at rest: few wake-ups, no frames, and the samples still reach the engine.
    marks = [len(c.frames) for c in clients]
    before = context_switches(daemon.pid)
    t0 = time.monotonic()
    time.sleep(3.0)
    wakeups = (context_switches(daemon.pid) - before) / (time.monotonic() - t0)
    assert wakeups <= REST_WAKEUPS_LIMIT, '%.1f wake-ups/s at rest' % wakeups
    status = clients[0].status()
    assert status['resting'] is True
    assert 3.0 < status['rates']['input'] < 10.0, status['rates']
    for c, mark in zip(clients, marks):
        assert len([o for _, o in c.frames[mark:] if o.get('type') == 'offset']) == 0, describe(c)


def test_motion_after_rest_is_published_as_a_daemon_that_never_rested_computes_it(
        start_daemon, testbed, feeders, parallaxctl_bin, workdir):
    daemon, dev, feeder = start_resting_imu(start_daemon, testbed, feeders)
    client = daemon.connect()
    client.subscribe(rate=60)
    assert wait_resting(client).get('resting') is True
    mark = len(client.frames)

    # Tilt 25° about +X (top away: y goes positive) at rest; the first scan after this is moving.
    moved_at = time.monotonic_ns()
    plx.turn(testbed, dev, dev, 'x', 25.0, seconds=0.3)
    got = client.wait_offset(lambda x, y: y > SIGN_THRESHOLD, 5.0)
    assert got is not None, describe(client)
    assert rate_of(testbed, dev) == ACTIVE_RATE, 'the device was not raised to its full rate'
    assert client.status()['resting'] is False
    # Hold the tilt while re-centring runs for a while, then stop feeding.
    client.settle(quiet=0.3, timeout=3.0)
    feeder.stop()
    frames = [o for _, o in client.frames[mark:] if o.get('type') == 'offset' and o['t'] >= moved_at]
    assert len(frames) >= 5, describe(client)
    assert daemon.stderr_text().count('opening sensors') == 1, 'the sensors were reopened: the engine restarted'

    # The same samples, every one the daemon read, through the engine without a daemon.
    trace = os.path.join(workdir, 'rested.csv')
    plx.write_trace(trace, feeder.trace_rows())
    out = subprocess.run([parallaxctl_bin, 'simulate', trace], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    import json
    offline = {}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        offline[row['t']] = (row['x'], row['y'])
    worst = 0.0
    for f in frames:
        assert f['t'] in offline, 'frame t=%d is no sample the feeder wrote' % f['t']
        x, y = offline[f['t']]
        worst = max(worst, abs(f['x'] - x), abs(f['y'] - y))
    assert worst <= SAME_OFFSET, 'published offsets differ from the never-resting engine by %.4f' % worst


def test_rest_after_zero_never_slows_down(start_daemon, testbed, feeders, workdir):
    config = os.path.join(workdir, 'norest.conf')
    with open(config, 'w') as f:
        f.write('[Sensor]\nRestAfter=0\n')
    dev = plx.buffered_bmi160(0, sampling_frequency=ACTIVE_RATE, sampling_frequency_available=BMI160_RATES)
    testbed.add(dev)
    feeder = plx.ScanFeeder(testbed, dev, rate_hz=ACTIVE_RATE, follow_device=True, noise_lsb=NOISE_LSB).start()
    feeders.append(feeder)
    daemon = start_daemon(config=config)
    client = daemon.connect()
    client.subscribe(rate=60)
    # Longer than RestAfter's default with the device still: no rest.
    time.sleep(4.0)
    assert client.status()['resting'] is False
    assert rate_of(testbed, dev) == ACTIVE_RATE


def test_recenter_at_rest_shows_at_once(start_daemon, testbed, feeders, workdir):
    """Without re-centring a tilted device keeps its offset at rest; `recenter` brings it to the
    centre at the next sample at full rate, not at the next drain of the rest (2 s)."""
    config = os.path.join(workdir, 'hold.conf')
    with open(config, 'w') as f:
        f.write('[Motion]\nRecenter=no\n')
    daemon, dev, feeder = start_resting_imu(start_daemon, testbed, feeders, config=config)
    client = daemon.connect()
    client.subscribe(rate=60)
    plx.turn(testbed, dev, dev, 'x', 20.0, seconds=0.3)
    assert client.wait_offset(lambda x, y: y > SIGN_THRESHOLD, 5.0) is not None, describe(client)
    assert wait_resting(client).get('resting') is True
    held = client.latest
    assert held['y'] > SIGN_THRESHOLD, held
    reply = client.request({'cmd': 'recenter'}, 'ok')
    assert reply.get('type') == 'ok', reply
    centred = client.wait_offset(lambda x, y: abs(y) < 0.05, RECENTER_SHOWS_WITHIN)
    assert centred is not None, describe(client)
    assert 'rest withdrawn' in daemon.stderr_text()


# Seconds within which a recenter at rest must show: well under the rest's 2 s drain interval.
RECENTER_SHOWS_WITHIN = 1.0


def test_a_polled_device_is_read_slowly_at_rest_and_follows_the_first_motion(start_daemon, testbed):
    """Polled sysfs (a device without a buffer): at rest it is read RestRate= times a second
    instead of Rate=; a tilt brings the full rate back and shows."""
    dev = plx.bmi160(0)
    daemon = start_daemon(dev)
    client = daemon.connect()
    client.subscribe(rate=60)
    assert wait_resting(client).get('resting') is True
    # The input rate counts the last second's samples: let the full-rate ones age out.
    time.sleep(1.2)
    status = client.status()
    assert status['resting'] is True
    assert status['rates']['input'] < 10.0, status['rates']
    tilt_x(testbed, dev, dev)
    assert client.wait_offset(lambda x, y: y > SIGN_THRESHOLD, 5.0) is not None, describe(client)
    assert client.status()['resting'] is False
    # A second later the input rate is the full rate's (re-centring keeps the daemon awake).
    time.sleep(1.2)
    status = client.status()
    assert status['rates']['input'] > 50.0, status


def test_a_replay_rests_through_its_still_part_and_shows_the_motion_after_it(start_daemon, testbed, workdir):
    """A recording that lies still for 6 s, then rocks: the daemon rests in the still part
    (taking rows in batches) and publishes the rocking."""
    import math
    rows = []
    rate = 100.0
    for i in range(int(10 * rate)):
        t = i / rate
        angle = 0.0 if t < 6.0 else 20.0 * math.sin(math.pi * (t - 6.0))
        w = 0.0 if t < 6.0 else math.radians(20.0) * math.pi * math.cos(math.pi * (t - 6.0))
        rows.append(plx.Row(int(t * 1e9), plx.gravity_after_rotation((0.0, -9.80665, 0.0), 'x', angle), (w, 0.0, 0.0)))
    path = os.path.join(workdir, 'still-then-rocking.csv')
    plx.write_trace(path, rows, ['still 6 s, then rocking about +X'])
    daemon = start_daemon(source='replay:' + path)
    client = daemon.connect()
    client.subscribe(rate=60)
    assert wait_resting(client, timeout=5.5).get('resting') is True
    assert client.wait_offset(lambda x, y: abs(y) > SIGN_THRESHOLD, 8.0) is not None, describe(client)
    assert 'moving: sensors back to full rate' in daemon.stderr_text()


def test_rates_set_per_sensor_type_slow_down_both(start_daemon, testbed, feeders):
    """A BMI160 as its driver really is: `in_accel_sampling_frequency` (0.78–1600 Hz) and
    `in_anglvel_sampling_frequency` (25–3200 Hz), no device-wide rate. At rest each goes to its
    slowest rate at or above 6.25 Hz; the buffer then scans at 25 Hz (the gyroscope's), 3 scans
    per wake-up (within the 80 ms onset budget); a tilt brings both back."""
    gyro_rates = '25 50 100 200 400 800 1600 3200'
    dev = plx.buffered_bmi160(0, sampling_frequency=ACTIVE_RATE, sampling_frequency_available=BMI160_RATES,
                              sampling_frequency_attr='in_accel_sampling_frequency',
                              extra_attrs={'in_anglvel_sampling_frequency': '%f' % ACTIVE_RATE,
                                           'in_anglvel_sampling_frequency_available': gyro_rates})
    testbed.add(dev)
    feeder = plx.ScanFeeder(testbed, dev, rate_hz=ACTIVE_RATE, follow_device=True, noise_lsb=NOISE_LSB).start()
    feeders.append(feeder)
    daemon = start_daemon()
    client = daemon.connect()
    client.subscribe(rate=60)
    assert wait_resting(client).get('resting') is True
    assert float(testbed.get_raw(dev, 'in_accel_sampling_frequency')) == REST_RATE
    assert float(testbed.get_raw(dev, 'in_anglvel_sampling_frequency')) == 25.0
    assert testbed.get_raw(dev, 'buffer/watermark') == '3'
    tilt_x(testbed, dev, dev)
    assert client.wait_offset(lambda x, y: y > SIGN_THRESHOLD, 5.0) is not None, describe(client)
    assert float(testbed.get_raw(dev, 'in_accel_sampling_frequency')) == ACTIVE_RATE
    assert float(testbed.get_raw(dev, 'in_anglvel_sampling_frequency')) == ACTIVE_RATE
