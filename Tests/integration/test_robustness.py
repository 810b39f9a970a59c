"""Bad sensor data, missing and vanishing sensors, and clients that misbehave at the socket level.
The daemon must keep serving, never put NaN on the wire (every client checks every line) and exit 0
on SIGTERM afterwards (checked by the fixture)."""
import socket

import pytest

import plx
from helpers import SIGN_THRESHOLD, describe, expect_offset, subscribe_ready, tilt_x

# Values a broken driver or a torn read could leave in a raw attribute.
GARBAGE = {'abc': 'abc', 'nan': 'nan', 'inf': 'inf', 'empty': '', 'huge': '99999999999999999999999999',
           '1e400': '1e400', 'trailing-junk': '12abc'}
CASES = [('in_accel_x_raw', k) for k in GARBAGE] + [('in_anglvel_y_raw', k) for k in ('abc', 'nan', 'empty')]


@pytest.mark.parametrize('attr,name', CASES, ids=['%s=%s' % c for c in CASES])
def test_garbage_raw_value(imu_daemon, testbed, attr, name):
    value = GARBAGE[name]
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    good = testbed.get_raw(dev, attr)
    testbed.set_raw(dev, attr, value)
    # While the garbage is there (the daemon polls at 100 Hz): it still answers, sends no NaN.
    for _ in range(3):
        s = c.status()
        assert s is not None and s['type'] == 'status', 'no status while %s=%r; %s' % (attr, value, describe(c))
        c.pump(0.2)
    assert daemon.alive()
    assert all(o.get('sensor') in ('ok', 'lost', 'none') for o in c.objects if o.get('type') == 'state')
    testbed.set_raw(dev, attr, good)
    # If the daemon declared the sensor lost, it must come back; then motion must work again
    # (a NaN that got into the attitude filter would poison it for good).
    if any(o.get('type') == 'state' and o.get('sensor') == 'lost' for o in c.objects):
        back = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'ok', 10.0)
        assert back is not None, 'sensor not back after the garbage went away; ' + describe(c)
    assert c.settle(quiet=0.5), describe(c)
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f after the garbage' % SIGN_THRESHOLD, timeout=5.0)
    assert c.violations == []


def test_no_iio_device_still_serves(start_daemon):
    daemon = start_daemon()  # empty testbed: no /sys/bus/iio/devices at all
    c = daemon.connect()
    reply = c.subscribe()
    assert reply is not None and reply['type'] == 'subscribed', reply
    st = c.wait_for(lambda o: o.get('type') == 'state', 5.0, old=True)
    assert st is not None and st['sensor'] == 'none', describe(c)
    s = c.status()
    assert s is not None and s['type'] == 'status', s
    c.pump(0.5)
    assert c.offsets() == [] or all(o['x'] == 0 and o['y'] == 0 for o in c.offsets())


def test_sensor_unplugged_and_back(imu_daemon, testbed):
    daemon, dev = imu_daemon
    c = daemon.connect()
    subscribe_ready(c)
    testbed.remove(dev)
    lost = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') in ('lost', 'none'), 5.0)
    assert lost is not None, 'no state "lost" after the device vanished; ' + describe(c)
    assert c.status()['type'] == 'status'
    again = plx.bmi160(1)  # replugged sensors get a new index
    testbed.add(again)
    back = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'ok', 15.0)
    assert back is not None, 'sensor not reopened after it came back; ' + describe(c)
    assert c.settle(quiet=0.5), describe(c)
    tilt_x(testbed, again, again, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f after replug' % SIGN_THRESHOLD, timeout=5.0)


def test_a_client_that_never_reads_does_not_stall_others(imu_daemon, testbed):
    daemon, dev = imu_daemon
    hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    hog.connect(daemon.socket_path)
    # Thousands of requests whose replies are never read. Two outcomes are both right, and which
    # one comes first is a race: the server's send side fills up (our send blocks), or the server
    # cuts the hog off for going over the command rate (our send fails). Either way the other
    # clients must be served.
    hog.setblocking(False)
    request = b'{"cmd":"status"}\n' * 256
    sent = 0
    for _ in range(200):
        try:
            sent += hog.send(request)
        except BlockingIOError:
            break
        except (BrokenPipeError, ConnectionResetError):
            break
    assert sent > 0, 'the hog could not send anything'
    c = daemon.connect()
    subscribe_ready(c)
    s = c.status(timeout=2.0)
    assert s is not None and s['type'] == 'status', 'a stuck client stalled the server'
    tilt_x(testbed, dev, dev, 15.0)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f next to a stuck client' % SIGN_THRESHOLD)
    hog.close()
    assert daemon.connect().hello is not None
