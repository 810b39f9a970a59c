"""Devices that default to a uselessly slow sampling rate (0 or 1 Hz on some machines) are raised
to a rate from `sampling_frequency_available` when the daemon opens them (docs/motion.md "Limits worth knowing")."""
import plx
from helpers import SIGN_THRESHOLD, expect_offset, subscribe_ready, tilt_x


def test_a_one_hertz_device_is_raised_to_the_poll_rate(start_daemon, testbed):
    dev = plx.bmi160(0, sampling_frequency=1.0, sampling_frequency_available='1 12.5 25 50 100 200')
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    assert float(testbed.get_raw(dev, 'sampling_frequency')) == 100.0, \
        'the daemon left the device at %s Hz' % testbed.get_raw(dev, 'sampling_frequency')
    assert 'raised to 100' in daemon.stderr_text()
    tilt_x(testbed, dev, dev, 20.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)


def test_a_device_with_nothing_faster_is_used_as_it_is(start_daemon, testbed):
    dev = plx.bmi160(0, sampling_frequency=5.0, sampling_frequency_available='2 5')
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    assert float(testbed.get_raw(dev, 'sampling_frequency')) == 5.0
    assert 'offers nothing faster' in daemon.stderr_text()
    assert c.status()['sensor'] == 'ok'
