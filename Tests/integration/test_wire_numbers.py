"""Numbers from the wire at the edges of what JSON can hold (docs/decisions.md "Numbers from the
wire and the kernel"): every one is clamped or refused with its documented error, on a connection
the test holds open, and the daemon keeps serving it and everyone else."""
import pytest

import plx
from helpers import describe


@pytest.mark.parametrize('rate,expected', [
    ('1e300', 'cap'), ('1.7976931348623157e308', 'cap'), ('9223372036854775808', 'cap'),
    ('1e-300', 1), ('5e-324', 1),
], ids=['1e300', 'max-double', '2^63', '1e-300', 'min-subnormal'])
def test_an_extreme_rate_is_clamped_on_a_held_connection(imu_daemon, rate, expected):
    daemon, _ = imu_daemon
    c = daemon.connect()
    hello = c.wait_hello()
    assert hello is not None, describe(c)
    expected = hello['max_rate'] if expected == 'cap' else expected
    # Written by hand: Python's json would turn 1e300 into 1e+300, still JSON, but the test pins the text.
    reply = c.request('{"cmd":"subscribe","rate":%s,"id":"big"}' % rate, 'subscribed')
    assert reply is not None and reply['type'] == 'subscribed', 'no subscribed for rate %s: %r; %s' % (rate, reply, describe(c))
    assert reply['rate'] == expected and reply.get('id') == 'big', reply
    assert c.wait_type('state', 3.0) is not None, describe(c)
    # The same connection keeps being served, and so does a newcomer.
    s = c.request({'cmd': 'status', 'id': 'after'}, 'status')
    assert s is not None and s['type'] == 'status' and s.get('id') == 'after', describe(c)
    other = daemon.connect()
    assert other.wait_hello() is not None and other.status() is not None, describe(other)
    assert daemon.alive() and not c.closed_by_server
    assert c.violations == [] and other.violations == []


@pytest.mark.parametrize('line', [
    '{"cmd":"subscribe","rate":1e400,"id":1}',
    '{"cmd":"subscribe","rate":-1e300,"id":1}',
    '{"cmd":"subscribe","rotation":1e300,"id":1}',
    '{"cmd":"calibrate","seconds":1e300,"id":1}',
    '{"cmd":"calibrate","seconds":-1e300,"id":1}',
], ids=['rate-1e400', 'rate--1e300', 'rotation-1e300', 'seconds-1e300', 'seconds--1e300'])
def test_an_unusable_number_is_a_bad_request_on_a_held_connection(imu_daemon, line):
    daemon, _ = imu_daemon
    c = daemon.connect()
    assert c.wait_hello() is not None, describe(c)
    err = c.request(line, ('subscribed', 'calibration'))
    assert err is not None and err['type'] == 'error' and err['code'] == 'bad_request', '%s → %r; %s' % (line, err, describe(c))
    s = c.request({'cmd': 'status', 'id': 'after'}, 'status')
    assert s is not None and s.get('id') == 'after', describe(c)
    assert daemon.alive() and c.violations == []


def test_an_extreme_id_is_echoed(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    for text, value in (('1e300', 1e300), ('-9223372036854775809', -9223372036854775809.0), ('5e-324', 5e-324)):
        s = c.request('{"cmd":"status","id":%s}' % text, 'status')
        assert s is not None and s['type'] == 'status' and s.get('id') == value, '%s → %r; %s' % (text, s, describe(c))
    assert daemon.alive() and c.violations == []


@pytest.mark.parametrize('usec', [18446744073709551614, 9223372036854776], ids=['beyond-int64', 'ns-overflow'])
def test_an_absurd_watchdog_interval_is_served(start_daemon, usec):
    # systemd accepts any WATCHDOG_USEC below 2^64 - 1; in ns it need not fit an Int64.
    daemon = start_daemon(plx.bmi160(0), watchdog_usec=usec)
    assert daemon.wait_notify(lambda m: m.get('WATCHDOG') == '1', 5.0) is not None, 'no WATCHDOG=1'
    c = daemon.connect()
    assert c.wait_hello() is not None and c.status() is not None, describe(c)
    assert daemon.alive()
