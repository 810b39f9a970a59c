"""The heading in the Python kit (docs/client-kit.md "Python"): asked for with heading=True (the
subscribe line is protocol v1's otherwise), yaw and vyaw on the Offset only then, State.heading
from the daemon's replies, broken heading fields make a frame not protocol, and the prediction
turns the yaw round. Against the FAKE server of hostile_server.py."""
import math

import parallax
from hostile_server import STATE_OK, HostileServer, line, offset_line
from pump import pump_until


def heading_server(sock_path, available=True):
    def answer(conn, cmd):
        reply = {'type': 'subscribed', 'rate': min(cmd['rate'], 60), 'rotation': cmd['rotation'], 'id': cmd['id']}
        state = dict(STATE_OK)
        if 'heading' in cmd:
            reply['heading'] = state['heading'] = cmd['heading'] and available
        conn.send(line(reply) + line(state))
    return HostileServer(sock_path, on_subscribe=answer)


def test_heading_is_asked_for_and_read(sock_path):
    server = heading_server(sock_path)
    c = parallax.Client(sock_path, rate=30, heading=True)
    assert pump_until(c, lambda c: c.state.connected)
    conn = server.wait_connection(0)
    cmd = conn.wait_command()
    assert cmd['heading'] is True and list(cmd) == ['cmd', 'rate', 'rotation', 'heading', 'id']
    assert c.state.heading is True
    conn.send(offset_line(1, x=0.25, vx=0.5, yaw=-1.5, vyaw=0.25))
    assert pump_until(c, lambda c: c.offset is not None)
    assert c.offset == parallax.Offset(0.25, 0.0, 0.5, 0.0, 1_000_000_001, 1, -1.5, 0.25)
    # Broken heading fields: the frame is not protocol; a frame without yaw has none.
    for bad in (dict(yaw=4.0), dict(yaw='1'), dict(yaw=0.1, vyaw=1e5), dict(vyaw=0.5, yaw=None)):
        conn.send(offset_line(2, x=0.9, **bad))
    conn.send(offset_line(3, x=0.5))
    assert pump_until(c, lambda c: c.offset.seq == 3)
    assert c.offset.yaw is None and c.offset.vyaw is None
    conn.send(line(dict(STATE_OK, heading=False)))
    assert pump_until(c, lambda c: not c.state.heading)
    c.close()
    server.stop()


def test_without_the_flag_the_line_is_v1_and_yaw_is_dropped(sock_path):
    server = heading_server(sock_path)
    c = parallax.Client(sock_path, rate=30)
    assert pump_until(c, lambda c: c.state.connected)
    conn = server.wait_connection(0)
    assert list(conn.wait_command()) == ['cmd', 'rate', 'rotation', 'id']
    conn.send(offset_line(1, x=0.1, yaw=1.0, vyaw=0.0))
    assert pump_until(c, lambda c: c.offset is not None)
    assert c.offset.yaw is None and c.state.heading is False
    c.close()
    server.stop()


def test_a_daemon_without_gyroscope_says_heading_false(sock_path):
    server = heading_server(sock_path, available=False)
    c = parallax.Client(sock_path, heading=True)
    assert pump_until(c, lambda c: c.state.connected)
    assert c.state.heading is False
    c.close()
    server.stop()


def test_prediction_turns_the_yaw_round():
    o = parallax.Offset(0.0, 0.0, 0.0, 0.0, 1_000_000_000, 1, 3.0, 2.0)
    later = parallax.predict(o, 1_100_000_000)
    assert abs(later.yaw - (3.2 - 2 * math.pi)) < 1e-12 and later.vyaw == 2.0
    assert abs(parallax.predict(o, 900_000_000).yaw - 2.8) < 1e-12
    assert parallax.predict(parallax.Offset(0, 0, 0, 0, 0, 1), 5).yaw is None
    assert parallax.predict(parallax.Offset(0, 0, 0, 0, 0, 1, 1.0, 1e308), 10**18).yaw == 0.0  # overflow: never NaN
