"""What Debian 12's real HID sensor-hub drivers make of our hub (no parallaxd involved)."""
import statistics

from labkit import device, iio_buffer, read_attr, write_attr


def test_hub_becomes_accel_3d_and_gyro_3d_each_with_its_own_trigger(lab, hub):
    accel, gyro = device(lab, 'accel_3d'), device(lab, 'gyro_3d')
    triggers = lab.check('for t in /sys/bus/iio/devices/trigger*; do cat $t/name; done').split()
    for path, name in ((accel, 'accel_3d'), (gyro, 'gyro_3d')):
        n = path.rsplit('iio:device', 1)[1]
        assert f'{name}-dev{n}' in triggers, (name, triggers)
    # Face-up on a table: the direction of gravity, (0, 0, −1) g, through the kernel's scale.
    scale = float(read_attr(lab, f'{accel}/in_accel_scale'))
    z = int(read_attr(lab, f'{accel}/in_accel_z_raw')) * scale
    x = int(read_attr(lab, f'{accel}/in_accel_x_raw')) * scale
    assert abs(z + 9.80665) < 0.05 and abs(x) < 0.05, (x, z, scale)
    assert int(read_attr(lab, f'{gyro}/in_anglvel_y_raw')) == 0
    # Each raw read was a synchronous GET_REPORT of an input report.
    s = hub.status()['sensors']
    assert s['accel']['get_input'] >= 2 and s['gyro']['get_input'] >= 1, s


def test_accelerometer_only_hub_gives_only_accel_3d(lab, make_hub):
    make_hub(accel_only=True)
    names = lab.check('cat /sys/bus/iio/devices/*/name').split()
    assert 'accel_3d' in names and 'gyro_3d' not in names, names
    # Definitive: hid-sensor-hub made no gyrometer cell (0x200076) at all.
    cells = lab.check('ls /sys/bus/platform/devices').split()
    assert any(c.startswith('HID-SENSOR-200073') for c in cells), cells
    assert not any(c.startswith('HID-SENSOR-200076') for c in cells), cells


def test_hub_timestamps_become_the_iio_timestamps(lab, make_hub):
    hub = make_hub(timestamps=True)
    got = iio_buffer(lab, 'accel_3d', count=6)
    assert got['ok'] and got['trigger'].startswith('accel_3d-dev'), got
    sent = {r['ts_us'] * 1000 for r in hub.ctl('sent')['reports'] if r['sensor'] == 'accel'}
    stamps = [s['in_timestamp'] for s in got['samples']]
    assert all(t in sent for t in stamps), (stamps, sorted(sent)[-10:])
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


def test_sampling_frequency_becomes_the_report_interval(lab, hub):
    accel = device(lab, 'accel_3d')
    write_attr(lab, f'{accel}/in_accel_sampling_frequency', 20)
    assert hub.sensor('accel')['interval_ms'] == 50
    assert abs(float(read_attr(lab, f'{accel}/in_accel_sampling_frequency')) - 20) < 0.01
    iio_buffer(lab, 'accel_3d', enable=True)
    try:
        st = hub.sensor('accel')
        assert st['power'] == 'D0' and st['reporting'] == 'all_events', st
        hub.ctl('reset')
        assert hub.ctl('wait', sensor='accel', count=12, timeout=20)['ok']
        times = [r['t_ns'] for r in hub.ctl('sent')['reports'] if r['sensor'] == 'accel' and r['kind'] == 'input']
        spacing = statistics.median(b - a for a, b in zip(times, times[1:])) / 1e6
        assert 40 <= spacing <= 65, spacing
        # And the kernel gets them: the buffer fills at that rate too (IIO timestamps, monotonic).
        got = iio_buffer(lab, 'accel_3d', count=6)
        ts = [s['in_timestamp'] for s in got['samples']]
        kernel_spacing = statistics.median(b - a for a, b in zip(ts, ts[1:])) / 1e6
        assert 35 <= kernel_spacing <= 70, ts
    finally:
        iio_buffer(lab, 'accel_3d', disable=True)


def test_hysteresis_becomes_the_change_sensitivity(lab, hub):
    accel = device(lab, 'accel_3d')
    hub.ctl('noise', accel=0.002)           # 2 mg of noise: well below the sensitivity
    write_attr(lab, f'{accel}/in_accel_sampling_frequency', 20)
    write_attr(lab, f'{accel}/in_accel_hysteresis', 0.05)
    st = hub.sensor('accel')
    assert st['sensitivity_raw'] == 50, st      # 0.05 g at unit exponent −3
    iio_buffer(lab, 'accel_3d', enable=True)
    try:
        # Still: after the first report nothing changes by 0.05 g, so the hub stays silent.
        assert hub.ctl('wait', sensor='accel', total=1, timeout=10)['ok']
        hub.ctl('reset')
        quiet = hub.ctl('wait', sensor='accel', count=1, timeout=1.5)
        st = hub.sensor('accel')
        assert not quiet['ok'] and st['input_sent'] == 0 and st['suppressed'] >= 10, st
        # 10° of tilt changes y by 0.17 g: reported again at once.
        hub.ctl('attitude', x=10)
        assert hub.ctl('wait', sensor='accel', total=1, timeout=5)['ok']
        # Sensitivity 0: a report every interval again, while still.
        write_attr(lab, f'{accel}/in_accel_hysteresis', 0)
        assert hub.sensor('accel')['sensitivity_raw'] == 0
        assert hub.ctl('wait', sensor='accel', count=5, timeout=5)['ok']
    finally:
        iio_buffer(lab, 'accel_3d', disable=True)
