"""The protocol's shared wire cases (Tests/protocol/wire-cases.json) through libparallax, as a
compositor's loop reads them while subscribed (probe.c under valgrind, a fake parallaxd): before
each case the server sends an anchor offset and an "all well" state, then the case's line alone
in one dispatch (pause, send, resume); the client then holds the case's offset, or still the
anchor, or the case's state."""
import os
import sys

from libpx import offset_line
from test_fake_server import offset_event, start

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'protocol'))
import wire_cases  # noqa: E402

SENSOR = {'ok': 1, 'lost': 2, 'none': 0}
ALL_WELL = '{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true}'


def test_server_lines(fake_daemons, probes, socket_path):
    server, probe = start(fake_daemons, probes, socket_path)
    conn, _ = server.handshake()
    checked = []
    for i, (name, case) in enumerate(wire_cases.cases('server', 'libparallax')):
        anchor = 100000 + i
        conn.line(ALL_WELL)
        conn.line(offset_line(anchor, 0.125, -0.125))
        before = offset_event(probe, anchor)
        assert before['sensor'] == 1 and before['reduce_motion'] is False
        probe.command('pause', 'paused')
        conn.send(wire_cases.line(case) + b'\n')
        r = probe.command('resume', 'resumed')
        expect = case['expect']
        if 'offset' in expect:
            e = expect['offset']
            assert r['offset'] == {k: float(e[k]) if k in ('x', 'y', 'vx', 'vy') else e[k]
                                   for k in ('x', 'y', 'vx', 'vy', 't', 'seq')}, (name, r)
        elif 'state' in expect:
            e = expect['state']
            assert r['offset']['seq'] == anchor and r['reduce_motion'] is e['reduce_motion'], (name, r)
            assert (r['sensor'] == 1) == (e['sensor'] == 'ok'), (name, r)
            if e['sensor'] != 'not ok':
                assert r['sensor'] == SENSOR[e['sensor']], (name, r)
        else:
            assert r['offset']['seq'] == anchor and r['sensor'] == 1 and r['reduce_motion'] is False, (name, r)
            assert r['connected'], (name, r)
        checked.append(name)
    assert len(checked) > 30
