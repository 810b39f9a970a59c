"""Client.pause() and resume() against the FAKE server (hostile_server.py says why a fake):
`unsubscribe` on the same connection, frames sent before it dropped, the same subscribe on
resume, one command on the wire at a time, and the pause kept across a daemon restart. The real
daemon's answer is in Tests/integration/test_python_client.py."""
import time

import parallax
from hostile_server import HostileServer, line, offset_line
from pump import pump_until


def commands(conn, n, timeout=5.0):
    """The first n commands the client sent on `conn`, waiting for them."""
    with conn._cond:
        conn._cond.wait_for(lambda: len(conn.commands) >= n, timeout)
        return [{k: v for k, v in c.items() if k != 'id'} for c in conn.commands]


def sends(c, conn, n, timeout=5.0):
    """Dispatches `c` until the server has recorded n commands from it (the server records a line
    after the client's dispatch returned, so this waits on the server, not on the client's
    descriptor); whether it did within `timeout`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        c.dispatch()
        with conn._cond:
            if conn._cond.wait_for(lambda: len(conn.commands) >= n, 0.02):
                return True
    return False


def test_pause_unsubscribes_on_the_same_connection_and_resume_subscribes_alike(sock_path):
    server = HostileServer(sock_path)
    c = parallax.Client(sock_path, rate=30, rotation=90)
    assert pump_until(c, lambda c: c.state.connected), c.state
    conn = server.wait_connection(0)
    conn.send(offset_line(1, x=0.25))
    assert pump_until(c, lambda c: c.offset is not None)
    c.pause()
    assert c.paused and c.timeout() == 0        # the next dispatch sends it
    assert sends(c, conn, 2) and commands(conn, 2)[1] == {'cmd': 'unsubscribe'}
    # A frame the daemon sent before it read the unsubscribe is dropped: the pause holds.
    conn.send(offset_line(2, x=0.75))
    assert not pump_until(c, lambda c: c.offset.seq == 2, timeout=0.3)
    assert c.state.connected and c.offset.seq == 1 and c.timeout() is None
    c.resume()
    assert not c.paused and c.timeout() == 0
    assert sends(c, conn, 3)
    sent = commands(conn, 3)
    assert sent[2] == sent[0] == {'cmd': 'subscribe', 'rate': 30, 'rotation': 90}
    conn.send(offset_line(3, x=-0.5))
    assert pump_until(c, lambda c: c.offset.seq == 3) and c.offset.x == -0.5
    assert server.wait_connection(1, timeout=0) is None, 'it reconnected instead of pausing'
    c.close()
    server.stop()


def test_one_command_is_on_the_wire_at_a_time(sock_path):
    held = []
    server = HostileServer(sock_path, on_subscribe=lambda conn, cmd: held.append(cmd),
                           on_unsubscribe=lambda conn, cmd: held.append(cmd))
    c = parallax.Client(sock_path)
    conn = server.wait_connection(0)
    assert commands(conn, 1)[0]['cmd'] == 'subscribe'
    c.pause()
    assert not sends(c, conn, 2, timeout=0.3), 'sent before the subscribe was answered'
    conn.send(line({'type': 'subscribed', 'rate': 60, 'rotation': 0, 'id': held[0]['id']}))
    assert sends(c, conn, 2) and commands(conn, 2)[1] == {'cmd': 'unsubscribe'}
    c.resume()
    assert not sends(c, conn, 3, timeout=0.3), 'sent before the unsubscribe was answered'
    conn.send(line({'type': 'unsubscribed', 'id': held[1]['id']}))
    assert sends(c, conn, 3) and commands(conn, 3)[2]['cmd'] == 'subscribe'
    c.close()
    server.stop()


def test_a_paused_client_reconnects_paused_after_a_restart(sock_path):
    server = HostileServer(sock_path)
    c = parallax.Client(sock_path)
    assert pump_until(c, lambda c: c.state.connected)
    c.pause()
    assert pump_until(c, lambda c: c.timeout() is None)
    server.stop()
    assert pump_until(c, lambda c: not c.state.connected), (c.state, c.fileno(), c.timeout(), server.connections[0].closed)
    server = HostileServer(sock_path)
    assert pump_until(c, lambda c: c.state.connected, timeout=10), c.state
    conn = server.wait_connection(0)
    assert commands(conn, 1) == [{'cmd': 'unsubscribe'}], 'a paused client subscribed'
    assert c.paused and c.state.error is None and c.timeout() is None
    c.resume()
    assert sends(c, conn, 2)
    assert commands(conn, 2)[1] == {'cmd': 'subscribe', 'rate': 60, 'rotation': 0}
    c.close()
    server.stop()
