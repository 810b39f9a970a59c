"""The signs of docs/frames.md for every axis and every display rotation, through `parallaxctl simulate`.

x > 0 when the screen turns toward the viewer's right (a positive turn about device +Y), y > 0 when
it tips downward (a positive turn about device +X), here 12° after the 3 s start-up with
re-centring off; a client whose output is rotated clockwise by
r gets (x, y) as 0 → (x, y), 90 → (y, −x), 180 → (−x, −y), 270 → (−y, x) (docs/decisions.md)."""
import math

import pytest

import oracles

TURN_DEG = 12.0
EXPECTED = {
    # turn axis: panel offset direction (x, y)
    (0, 1, 0): (1, 0), (0, -1, 0): (-1, 0), (1, 0, 0): (0, 1), (-1, 0, 0): (0, -1),
}
ROTATED = {0: lambda x, y: (x, y), 90: lambda x, y: (y, -x), 180: lambda x, y: (-x, -y), 270: lambda x, y: (-y, x)}


@pytest.mark.parametrize('rotation', [0, 90, 180, 270])
@pytest.mark.parametrize('axis', list(EXPECTED), ids=['+Y', '-Y', '+X', '-X'])
def test_sign(axis, rotation, trace_file):
    omega = math.radians(TURN_DEG) / 0.3

    def body_rate(t):
        return tuple(omega * a for a in axis) if 3.5 <= t < 3.8 else (0.0, 0.0, 0.0)
    rows, _ = oracles.synthesize(4.0, 100, body_rate, start=oracles.UPRIGHT)
    last = oracles.simulate(trace_file(rows), config='[Motion]\nRecenter=no\n', rotation=rotation)[-1]
    ex, ey = ROTATED[rotation](*EXPECTED[axis])
    size = TURN_DEG / 90
    assert abs(last['x'] - ex * size) < 0.01 and abs(last['y'] - ey * size) < 0.01, \
        'turn about %s, rotation %d: (%.4f, %.4f), expected (%.4f, %.4f)' % (axis, rotation, last['x'], last['y'], ex * size, ey * size)
