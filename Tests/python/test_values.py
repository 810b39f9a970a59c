"""parallax.interpolate and parallax.predict (docs/client-kit.md), and decoding of server lines."""
import math

import pytest

import parallax
from parallax import _wire


def test_interpolate_is_uikits_line_from_minimum_to_maximum():
    assert parallax.interpolate(-1.0, -20.0, 30.0) == -20.0
    assert parallax.interpolate(1.0, -20.0, 30.0) == 30.0
    assert parallax.interpolate(0.0, -20.0, 30.0) == 5.0
    assert parallax.interpolate(0.5, 0.0, 8.0) == 6.0
    # Reversed limits move the other way (UIKit allows maximum < minimum).
    assert parallax.interpolate(0.5, 8.0, 0.0) == 2.0


def test_predict_extrapolates_with_velocity_and_moves_t():
    o = parallax.Offset(x=0.5, y=-0.25, vx=1.0, vy=0.5, t=2_000_000_000, seq=7)
    p = parallax.predict(o, 2_250_000_000)          # 0.25 s later
    assert p == parallax.Offset(0.75, -0.125, 1.0, 0.5, 2_250_000_000, 7)
    back = parallax.predict(o, 1_500_000_000)       # 0.5 s earlier
    assert (back.x, back.y) == (0.0, -0.5)


def test_predict_clamps_to_the_offset_range():
    o = parallax.Offset(x=0.9, y=-0.9, vx=2.0, vy=-2.0, t=0, seq=1)
    p = parallax.predict(o, 1_000_000_000)
    assert (p.x, p.y) == (1.0, -1.0)


def test_predict_never_returns_nan():
    o = parallax.Offset(x=0.3, y=0.2, vx=0.0, vy=0.0, t=0, seq=1)
    p = parallax.predict(o, math.inf)               # 0 · inf would be NaN
    assert (p.x, p.y) == (0.3, 0.2)


def test_offsets_are_immutable():
    o = parallax.Offset(0.1, 0.2, 0.0, 0.0, 1, 1)
    with pytest.raises(AttributeError):
        o.x = 0.5


@pytest.mark.parametrize('frame,expected', [
    ({'type': 'offset', 'seq': 3, 't': 10, 'x': 0.25, 'y': -0.5}, (0.25, -0.5, 0.0, 0.0, 10, 3)),
    ({'type': 'offset', 'seq': 3, 't': 10, 'x': 0.25, 'y': -0.5, 'vx': 1.5, 'vy': -2},
     (0.25, -0.5, 1.5, -2.0, 10, 3)),
    ({'type': 'offset', 'seq': 3, 't': 10, 'x': 1, 'y': -1.0, 'future': [1]},
     (1.0, -1.0, 0.0, 0.0, 10, 3)),
])
def test_offset_frames_decode(frame, expected):
    assert _wire.decode_offset(frame) == parallax.Offset(*expected)


MISSING = object()   # the field is left out of the frame


@pytest.mark.parametrize('change', [
    {'x': MISSING}, {'seq': MISSING}, {'t': MISSING}, {'x': '0.5'}, {'x': True}, {'y': [0.1]}, {'seq': -1}, {'seq': 1.5}, {'seq': False},
    {'t': 1.0}, {'t': 2 ** 63}, {'vx': 'fast'}, {'vy': None}, {'x': 10 ** 400}, {'x': 1.0001}, {'y': -1.5},
    {'vx': 10000.0}, {'vy': -1e6},
])
def test_malformed_offset_frames_are_rejected(change):
    frame = {'type': 'offset', 'seq': 3, 't': 10, 'x': 0.25, 'y': -0.5}
    frame.update(change)
    frame = {k: v for k, v in frame.items() if v is not MISSING}
    assert _wire.decode_offset(frame) is None


@pytest.mark.parametrize('text', [
    b'', b'garbage', b'\xff\xfe{}', b'[1, 2]', b'"offset"', b'42', b'null', b'{"x": 1}',
    b'{"type": 5}', b'{"type":"offset","x":NaN}', b'{"type":"offset","x":Infinity}',
    b'[' * 100_000 + b']' * 100_000,
    b'{"type":"offset","seq":3,"t":10,"x":0.9,"y":0.5,"x":0.5}',
    b'{"type":"offset","type":"state","sensor":"ok"}',
    b'{"type":"offset","seq":3,"t":10,"x":0.5,"y":0.5,"future":{"a":1,"a":2}}',
])
def test_lines_that_are_not_messages_decode_to_none(text):
    assert _wire.decode_line(text) is None


def test_line_reader_drops_overlong_lines_and_keeps_its_buffer_bounded():
    reader = _wire.LineReader(max_line=16)
    assert reader.feed(b'short\n' + b'x' * 10) == [b'short']
    assert reader.feed(b'y' * 1000) == []                      # the line grew past the cap
    assert len(reader._partial) == 0
    assert reader.feed(b'zzz\nnext\n') == [b'next']            # resumes after its newline
    assert reader.feed(b'a' * 17 + b'\nok\n') == [b'ok']       # overlong within one chunk
    assert reader.feed(b'a' * 16 + b'\n') == [b'a' * 16]       # exactly the cap is kept
    assert reader.discarded == 2


@pytest.mark.parametrize('rate', [10 ** 400, -10 ** 400, float('nan'), float('inf'), 0, -1e300, True],
                         ids=['10**400', '-10**400', 'nan', 'inf', '0', '-1e300', 'True'])
def test_an_unusable_rate_is_a_value_error(rate):
    with pytest.raises(ValueError):
        parallax.Client(socket='/nonexistent/parallaxd.sock', rate=rate)


def test_a_huge_rate_is_sent_for_the_daemon_to_clamp():
    c = parallax.Client(socket='/nonexistent/parallaxd.sock', rate=1e300)
    assert c.rate == int(1e300)
    c.close()
