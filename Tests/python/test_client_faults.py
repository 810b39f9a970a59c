"""parallax.Client against a FAKE server that misbehaves on purpose (hostile_server.py): bad
input of every kind, refusals, restarts, a missing daemon, a slow reader. The real daemon never
sends these, which is why a stand-in is used here."""
import math
import os
import resource
import select
import subprocess
import sys
import time

import pytest

import accounts
import parallax
from hostile_server import HostileServer, line, offset_line
from pump import pump_until

# Offsets a test sends after the bad input: it must arrive intact, proving the client kept going.
SENTINEL_SEQ = 999


def connected_client(sock_path, **kw):
    server = HostileServer(sock_path)
    c = parallax.Client(sock_path, **kw)
    assert pump_until(c, lambda c: c.state.connected), c.state
    return server, server.wait_connection(0), c


def test_subscribes_with_rate_and_rotation_and_reads_state(sock_path):
    server, conn, c = connected_client(sock_path, rate=25, rotation=90)
    cmd = conn.wait_command()
    assert (cmd['cmd'], cmd['rate'], cmd['rotation']) == ('subscribe', 25, 90)
    assert c.state == parallax.State(connected=True, sensor='ok', reduce_motion=False, calibrated=True, error=None)
    assert c.effective_rate == 25
    assert c.offset is None
    conn.send(offset_line(1, x=0.25, y=-0.5, vx=0.75))
    assert pump_until(c, lambda c: c.offset is not None)
    assert c.offset == parallax.Offset(0.25, -0.5, 0.75, 0.0, 1_000_000_001, 1)
    c.close()
    server.stop()


HOSTILE_LINES = [
    b'garbage\n', b'\xff\xfe\xfd\n', b'{"type":"offset"\n', b'[1,2,3]\n', b'"offset"\n', b'null\n',
    b'{"no_type":1}\n', b'{"type":"warp_drive","x":1}\n', b'{"type":17}\n',
    b'{"type":"offset","seq":2,"t":5,"x":NaN,"y":0}\n',
    b'{"type":"offset","seq":3,"t":5,"x":0.1,"y":Infinity}\n',
    b'{"type":"offset","seq":4,"t":5,"x":-Infinity,"y":0}\n',
    b'{"type":"offset","seq":5,"t":5,"x":1e999,"y":0}\n',
    b'{"type":"offset","seq":6,"t":5,"x":0.1,"y":0.1,"vx":NaN}\n',
    b'{"type":"offset","seq":7,"t":5,"x":"0.1","y":0}\n',
    b'{"type":"offset","seq":8,"x":0.1,"y":0}\n',
    b'{"type":"offset","t":5,"x":0.1,"y":0}\n',
    b'{"type":"state","sensor":5,"reduce_motion":"yes","calibrated":null}\n',
    b'{"type":"hello","protocol":1}\n',
    b'[' * 50_000 + b']' * 50_000 + b'\n',
    b'\n', b'\r\n', b'{}\n',
]


def test_garbage_unknown_types_nan_and_non_objects_are_ignored(sock_path, capfd):
    server, conn, c = connected_client(sock_path)
    conn.send(offset_line(1, x=0.5, y=0.5))
    assert pump_until(c, lambda c: c.offset is not None)
    conn.send(b''.join(HOSTILE_LINES) + offset_line(SENTINEL_SEQ, x=-0.25, y=0.125))
    assert pump_until(c, lambda c: c.offset.seq == SENTINEL_SEQ)
    assert c.offset == parallax.Offset(-0.25, 0.125, 0.0, 0.0, 1_000_000_000 + SENTINEL_SEQ, SENTINEL_SEQ)
    assert all(math.isfinite(v) for v in c.offset[:4])
    # The bad state line changed nothing; the connection is still the first one.
    assert c.state.connected and c.state.sensor == 'ok' and c.state.reduce_motion is False
    assert server.wait_connection(1, timeout=0) is None
    out, err = capfd.readouterr()
    assert out == '' and err == '', 'the client printed on bad input'
    c.close()
    server.stop()


def test_overlong_lines_are_dropped_and_memory_stays_bounded(sock_path):
    server, conn, c = connected_client(sock_path)
    # A frame that looks valid but is longer than the cap, then 48 MiB without any newline.
    padded = offset_line(2, x=0.9, y=0.9, pad='p' * (parallax.MAX_LINE_BYTES + 10))
    flood = 48 * 1024 * 1024
    block = b'q' * (1024 * 1024)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def chunks():
        yield padded
        for _ in range(flood // len(block)):
            yield block
        yield b'\n' + offset_line(SENTINEL_SEQ, x=0.5, y=0.5)
    sender = conn.send_in_background(chunks())
    assert pump_until(c, lambda c: c.offset is not None, timeout=60)
    sender.join(10)
    grew_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert c.offset.seq == SENTINEL_SEQ, 'the overlong frame was taken: %r' % (c.offset,)
    assert grew_kib < 8 * 1024, 'memory grew by %d KiB while %d MiB of one line arrived' % (grew_kib, flood >> 20)
    assert c.state.connected
    c.close()
    server.stop()


def test_unknown_sensor_states_read_as_none(sock_path):
    server, conn, c = connected_client(sock_path)
    conn.send(line({'type': 'state', 'sensor': 'warming_up', 'reduce_motion': True, 'calibrated': False}))
    assert pump_until(c, lambda c: c.state.reduce_motion)
    assert c.state.sensor == 'none' and c.state.connected
    c.close()
    server.stop()


def refuse(conn, cmd):
    conn.send(line({'type': 'error', 'code': 'permission_denied', 'id': cmd['id'],
                    'message': 'subscribing to motion data needs group parallax'}))


def test_permission_denied_raises_once_and_asks_again_only_after_a_minute(sock_path):
    server = HostileServer(sock_path, on_subscribe=refuse)
    c = parallax.Client(sock_path)
    conn = server.wait_connection(0)
    assert conn.wait_command() is not None
    with pytest.raises(parallax.AccessDenied, match='group parallax'):
        pump_until(c, lambda c: False, timeout=5)
    assert isinstance(parallax.AccessDenied('x'), PermissionError)
    assert 'group parallax' in c.state.error and not c.state.connected
    assert c.fileno() == -1 and 59 < c.timeout() <= 60
    assert conn.wait_closed(), 'the refused client kept its connection'
    # Raised once per refusal: the next calls report nothing new and do not knock again.
    assert c.dispatch() is False
    assert server.wait_connection(1, timeout=1.0) is None, 'the refused client reconnected'
    assert c.dispatch() is False and 58 < c.timeout() <= 60
    # When the minute is over it asks again (the wait is cut short here) and is refused again.
    c._next_attempt = 0
    with pytest.raises(parallax.AccessDenied):
        pump_until(c, lambda c: False, timeout=5)
    assert server.wait_connection(1) is not None   # recorded by the server thread: awaited
    # reconnect() asks at once.
    c.reconnect()
    assert server.wait_connection(2) is not None
    c.close()
    server.stop()


def test_the_iterator_raises_access_denied(sock_path):
    server = HostileServer(sock_path, on_subscribe=refuse)
    with parallax.Client(sock_path) as c:
        with pytest.raises(parallax.AccessDenied):
            next(c)
    server.stop()


def test_a_server_of_another_protocol_version_is_left_alone_for_a_minute(sock_path):
    server = HostileServer(sock_path, answer=False)
    c = parallax.Client(sock_path)
    server.wait_connection(0).send(line({'type': 'hello', 'protocol': 2, 'server': 'parallaxd'}))
    assert pump_until(c, lambda c: c.fileno() == -1)
    assert 'protocol 2' in c.state.error and 59 < c.timeout() <= 60
    assert server.wait_connection(1, timeout=0.5) is None
    c.close()
    server.stop()


def test_a_server_that_never_answers_is_dropped_after_the_handshake_timeout(sock_path, monkeypatch):
    monkeypatch.setattr(parallax._client, 'HANDSHAKE_TIMEOUT', 0.3)   # 5 s in real use
    server = HostileServer(sock_path, answer=False)
    c = parallax.Client(sock_path)
    assert c.fileno() >= 0 and 0 < c.timeout() <= 0.3
    first = server.wait_connection(0)
    assert pump_until(c, lambda c: c.fileno() == -1, timeout=5), 'a silent server holds the client'
    assert 'did not answer' in c.state.error
    assert first.wait_closed()
    assert pump_until(c, lambda c: c.fileno() >= 0, timeout=5)   # and it tries again
    assert server.wait_connection(1) is not None
    c.close()
    server.stop()


def test_a_socket_the_user_may_not_open_is_access_denied(sock_path):
    """The socket's file permissions refuse the connection (EACCES): the same AccessDenied.
    Root ignores file permissions, so there the client runs as nobody in a child process; a
    normal user runs it as itself against a socket its owner may not write."""
    server = HostileServer(sock_path)
    as_root = os.geteuid() == 0
    os.chmod(sock_path, 0o600 if as_root else 0o400)
    account = {'user': 65534, 'group': 65534} if as_root else {}
    # nobody imports a shared copy of the module: the clone may be in a folder it cannot enter.
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    src = os.path.dirname(accounts.shared_copy(os.path.join(repo, 'Sources', 'python', 'parallax')))
    script = ('import parallax, sys\n'
              'c = parallax.Client(sys.argv[1])\n'
              'try:\n    c.dispatch()\nexcept parallax.AccessDenied as e:\n'
              '    print("denied:", e, round(c.timeout()), c.fileno())\n')
    out = subprocess.run([sys.executable, '-c', script, sock_path], env={'PYTHONPATH': src},
                         cwd=accounts.NEUTRAL_CWD, **account, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('denied:') and 'Permission denied' in out.stdout and out.stdout.endswith(' 60 -1\n'), out.stdout
    assert server.wait_connection(0, timeout=0) is None
    server.stop()


def test_reconnects_and_resubscribes_after_the_server_restarts(sock_path):
    server, conn, c = connected_client(sock_path, rate=30, rotation=270)
    first = conn.wait_command()
    conn.send(offset_line(41, x=0.1))
    assert pump_until(c, lambda c: c.offset is not None and c.offset.seq == 41)
    server.stop()
    assert pump_until(c, lambda c: not c.state.connected), 'the client did not notice the server left'
    assert c.fileno() == -1 and 0 < c.timeout() <= parallax.INITIAL_BACKOFF * (1 + parallax.BACKOFF_JITTER)
    assert c.offset.seq == 41, 'the last offset is kept while disconnected'
    assert c.state.sensor == 'none', 'a state from a daemon that is gone'
    server = HostileServer(sock_path)
    assert pump_until(c, lambda c: c.state.connected, timeout=10), c.state
    again = server.wait_connection(0).wait_command()
    assert again == first == {'cmd': 'subscribe', 'rate': 30, 'rotation': 270, 'id': first['id']}
    server.wait_connection(0).send(offset_line(1, x=-0.3))   # a restarted daemon counts from 1 again
    assert pump_until(c, lambda c: c.offset.seq == 1)
    assert c.offset.x == -0.3 and c.state.error is None
    c.close()
    server.stop()


def test_no_server_at_start_backs_off_quietly_then_connects(sock_path, capfd):
    c = parallax.Client(sock_path)
    assert not c.state.connected and c.fileno() == -1 and 'No such file' in c.state.error
    waits = []
    # Four failed attempts: the back-off doubles from 100 ms (each delay ±20 %).
    for _ in range(4):
        time.sleep(c.timeout())
        assert c.dispatch() is False
        waits.append(c.timeout())
    jitter = parallax.BACKOFF_JITTER
    assert all(n * (1 - jitter) - 0.01 <= w <= n * (1 + jitter) for w, n in zip(waits, [0.2, 0.4, 0.8, 1.6])), waits
    server = HostileServer(sock_path)
    assert pump_until(c, lambda c: c.state.connected, timeout=5), c.state
    assert server.wait_connection(0).wait_command()['cmd'] == 'subscribe'
    assert server.wait_connection(1, timeout=0) is None, 'more than one connection'
    out, err = capfd.readouterr()
    assert out == '' and err == '', 'the client printed while the daemon was missing'
    c.close()
    server.stop()


def test_back_off_is_capped_at_five_seconds(sock_path):
    c = parallax.Client(sock_path)
    for _ in range(8):          # 0.1 · 2⁸ would be 25.6 s without the cap
        c._next_attempt = 0     # due now, without waiting the whole series out
        c.dispatch()
    jitter = parallax.BACKOFF_JITTER
    assert parallax.MAX_BACKOFF * (1 - jitter) - 0.1 < c.timeout() <= parallax.MAX_BACKOFF * (1 + jitter)


def test_a_late_reader_gets_the_newest_offset_not_a_backlog(sock_path):
    server, conn, c = connected_client(sock_path)
    frames = 500
    conn.send(b''.join(offset_line(seq, x=seq / 1000.0) for seq in range(1, frames + 1)))
    # Everything is in the socket now (the server's sendall returned); one dispatch drains it.
    select.select([c.fileno()], [], [], 5)
    assert c.dispatch() is True
    assert c.offset.seq == frames and c.offset.x == frames / 1000.0
    assert next(c).seq == frames, 'the iterator gave an older frame than the newest'
    conn.send(offset_line(frames + 1))
    assert next(c).seq == frames + 1
    c.close()
    assert list(c) == [], 'iteration continues after close()'
    server.stop()


def test_the_iterator_yields_the_newest_after_each_burst(sock_path):
    server, conn, c = connected_client(sock_path)
    conn.send(offset_line(1) + offset_line(2) + offset_line(3))
    select.select([c.fileno()], [], [], 5)
    got = next(c)
    assert got.seq == 3
    conn.send(offset_line(4))
    assert next(c).seq == 4
    c.close()
    server.stop()


def test_context_manager_closes(sock_path):
    server = HostileServer(sock_path)
    with parallax.Client(sock_path) as c:
        conn = server.wait_connection(0)
        assert c.fileno() >= 0
    assert c.fileno() == -1 and c.dispatch() is False
    assert conn.wait_closed()
    server.stop()


@pytest.mark.parametrize('kw', [{'rate': 0}, {'rate': -5}, {'rate': math.nan}, {'rate': '60'}, {'rate': True},
                                {'rotation': 45}, {'rotation': '90'}, {'socket': ''}, {'socket': '/x' * 60}])
def test_bad_arguments_are_value_errors(kw):
    with pytest.raises(ValueError):
        parallax.Client(**kw)


def test_socket_defaults_to_the_environment_then_the_system_path(monkeypatch, sock_path):
    monkeypatch.setenv('PARALLAXD_SOCKET', sock_path)
    assert parallax.Client().socket_path == sock_path
    monkeypatch.setenv('PARALLAXD_SOCKET', '')
    assert parallax.Client().socket_path == '/run/parallaxd/parallaxd.sock'
