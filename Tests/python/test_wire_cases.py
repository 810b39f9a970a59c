"""The protocol's shared wire cases (Tests/protocol/wire-cases.json) through the Python module's
decoding, as Client reads a line while subscribed: the offset it takes, or nothing, or the state
after it."""
import os
import sys

import pytest

from parallax import _wire
from parallax._values import State

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'protocol'))
import wire_cases  # noqa: E402

START = State(sensor='ok', reduce_motion=False, calibrated=True, heading=False)


def read(line):
    """(offset or None, state) after the line, from START."""
    obj = _wire.decode_line(line)
    if obj is None:
        return None, START
    if obj['type'] == 'offset':
        return _wire.decode_offset(obj), START
    if obj['type'] == 'state':
        return None, _wire.decode_state(obj, START)
    return None, START


@pytest.mark.parametrize('name,case', wire_cases.cases('server', 'python'), ids=lambda v: v if isinstance(v, str) else '')
def test_server_line(name, case):
    offset, state = read(wire_cases.line(case))
    expect = case['expect']
    if 'offset' in expect:
        e = expect['offset']
        assert offset is not None, name
        assert (offset.x, offset.y, offset.vx, offset.vy, offset.t, offset.seq) == (e['x'], e['y'], e['vx'], e['vy'], e['t'], e['seq'])
    elif 'state' in expect:
        e = expect['state']
        assert offset is None
        assert (state.sensor == 'ok') == (e['sensor'] == 'ok') and state.reduce_motion == e['reduce_motion'], state
        if e['sensor'] != 'not ok':
            assert state.sensor == e['sensor']
    else:
        assert expect == {'ignored': True}
        assert offset is None and state == START, (name, offset, state)


def test_the_file_has_cases_of_each_kind():
    kinds = {next(iter(c['expect'])) for _, c in wire_cases.cases('server', 'python')}
    assert kinds == {'offset', 'ignored', 'state'}
