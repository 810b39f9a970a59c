"""Devices that default to a uselessly slow sampling rate (0 or 1 Hz on some machines) are raised
to a rate from `sampling_frequency_available` when the daemon opens them (docs/motion.md "Limits worth knowing")."""
import pytest

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


def test_an_absurd_offered_rate_is_ignored(start_daemon, testbed):
    # A driver listing 1e300 Hz: no rate to choose (it trapped the daemon writing it back).
    dev = plx.bmi160(0, sampling_frequency=1.0, sampling_frequency_available='1 1e300')
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    assert float(testbed.get_raw(dev, 'sampling_frequency')) == 1.0
    assert 'offers nothing faster' in daemon.stderr_text()
    assert c.status()['sensor'] == 'ok' and daemon.alive()


@pytest.mark.parametrize('reading', ['nan', '-5', '0', '1e300', '1e400'])
def test_an_unusable_current_rate_is_raised(start_daemon, testbed, reading):
    dev = plx.bmi160(0, sampling_frequency=None, extra_attrs={
        'sampling_frequency': reading, 'sampling_frequency_available': '25 100 200'})
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    assert float(testbed.get_raw(dev, 'sampling_frequency')) == 100.0
    text = daemon.stderr_text()
    assert 'sampled at an unusable rate (' in text and 'raised to 100 Hz' in text, text[-2000:]
    rates = [s['rate'] for s in c.status()['sensors']]
    assert rates and all(r == 100.0 for r in rates), rates
