"""Protocol v1 on the wire (DESIGN.md "Protocol v1"): errors for bad client lines, id echo,
forward compatibility, abuse handling, and the independent conformance checker."""
import os
import subprocess
import sys

import pytest

import plx
from helpers import describe, subscribe_ready, trace

CONFORMANCE = os.path.join(plx.SHARED_DIR, 'conformance', 'check_protocol.py')

# Bad lines, each with the error code DESIGN.md fixes for it (None: any error code will do).
BAD_LINES = {
    'invalid-json': (b'this is not json', 'bad_request'),
    'truncated-json': (b'{"cmd":"status"', 'bad_request'),
    'not-an-object': (b'[1,2,3]', 'bad_request'),
    'no-cmd': (b'{"id":5}', 'bad_request'),
    'too-long-valid-json': (b'{"cmd":"status","pad":"' + b'x' * 2000 + b'"}', 'too_long'),
    'too-long-garbage': (b'y' * 2000, 'too_long'),
    'invalid-utf8': (b'{"cmd":"status","id":"\xff\xfe"}', None),
    'nul-byte': (b'{"cmd":"st\x00atus"}', None),
}


@pytest.mark.parametrize('name', list(BAD_LINES))
def test_bad_line_gets_an_error_and_the_connection_keeps_working(imu_daemon, name):
    daemon, _ = imu_daemon
    line, code = BAD_LINES[name]
    c = daemon.connect()
    c.send(line + b'\n')
    err = c.wait_type('error', 3.0)
    assert err is not None, 'no error reply to %s; %s' % (name, describe(c))
    if code is not None:
        assert err['code'] == code, err
    assert isinstance(err.get('message'), str) and err['message'], err
    # The same connection still works: the server resynchronised at the newline.
    s = c.request({'cmd': 'status', 'id': 'after'}, 'status')
    assert s is not None and s['type'] == 'status' and s.get('id') == 'after', \
        'connection unusable after %s: %r; %s' % (name, s, describe(c))


def test_unknown_command_echoes_id(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    for id_ in (9, 'req-9'):
        err = c.request({'cmd': 'fly', 'id': id_}, ())
        assert err is not None and err['type'] == 'error', err
        assert err['code'] == 'unknown_command' and err.get('id') == id_, err


def test_unknown_fields_are_ignored(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    s = c.request({'cmd': 'status', 'id': 1, 'from_the_future': {'a': [1, 2]}}, 'status')
    assert s is not None and s['type'] == 'status' and s.get('id') == 1, s
    sub = c.request({'cmd': 'subscribe', 'rate': 30, 'rotation': 0, 'id': 'sub', 'hint': 'x'}, 'subscribed')
    assert sub is not None and sub['type'] == 'subscribed' and sub.get('id') == 'sub' and sub['rate'] == 30, sub


@pytest.mark.parametrize('cmd', [
    {'cmd': 'subscribe', 'rate': 60, 'rotation': 45},
    {'cmd': 'subscribe', 'rate': 'fast', 'rotation': 0},
    {'cmd': 'subscribe', 'rate': -5, 'rotation': 0},
], ids=['rotation-45', 'rate-string', 'rate-negative'])
def test_bad_subscribe_arguments(imu_daemon, cmd):
    daemon, _ = imu_daemon
    c = daemon.connect()
    cmd = dict(cmd, id=2)
    err = c.request(cmd, 'subscribed')
    assert err is not None and err['type'] == 'error' and err['code'] == 'bad_request' and err.get('id') == 2, err


def test_a_line_split_across_writes_is_one_command(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    c.sock.setblocking(True)
    c.sock.sendall(b'{"cmd":"sta')
    c.sock.sendall(b'tus","id":11}\n{"cmd":"status","id":12}\n')
    c.sock.setblocking(False)
    a = c.wait_type('status', 3.0)
    b = c.wait_type('status', 3.0)
    assert a is not None and b is not None and (a.get('id'), b.get('id')) == (11, 12), describe(c)


def test_repeated_abuse_closes_the_connection_only(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    try:
        for _ in range(200):
            c.send(b'garbage garbage\n')
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed while we were still sending: that is the point
    assert c.wait_closed(5.0), 'connection still open after 200 invalid lines; ' + describe(c)
    other = daemon.connect()
    assert other.status() is not None


def test_many_clients_at_once(imu_daemon):
    daemon, _ = imu_daemon
    clients = [daemon.connect() for _ in range(20)]
    for i, c in enumerate(clients):
        r = c.subscribe(rate=30, id=i)
        assert r is not None and r['type'] == 'subscribed' and r.get('id') == i, r
    s = clients[0].status()
    assert s is not None
    for c in clients[::2]:
        c.close()
    assert daemon.connect().status() is not None


def test_conformance_checker(start_daemon, testbed):
    """shared/conformance/check_protocol.py (written from DESIGN.md alone) against the daemon, with
    a real recording playing so that offset frames (ranges, seq, rate) are checked too."""
    if not os.path.isfile(CONFORMANCE):
        pytest.fail('conformance checker missing: %s' % CONFORMANCE)
    dev = plx.bmi160_16g(0, initial_accel=plx.FACE_UP)
    daemon = start_daemon(dev)
    player = plx.TracePlayer(testbed, dev, dev, trace('ngimu.csv'), loop=True).start()
    try:
        out = subprocess.run([sys.executable, CONFORMANCE, daemon.socket_path, '4'],
                             capture_output=True, text=True, timeout=90)
    finally:
        player.stop()
    print(out.stdout)
    assert out.returncode == 0, 'conformance failed:\n%s\n%s' % (out.stdout, out.stderr)
    assert 'offset frames in' in out.stdout


def test_subscribe_id_and_state_order(imu_daemon):
    # subscribed comes before the state line, and both before any offset.
    daemon, _ = imu_daemon
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    c.pump(0.3)
    types = [o['type'] for o in c.objects]
    i_sub, i_state = types.index('subscribed'), types.index('state')
    assert i_sub < i_state, types
    assert 'offset' not in types[:i_state], types
