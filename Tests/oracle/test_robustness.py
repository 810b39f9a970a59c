"""Awkward traces through `parallaxctl simulate`: separate sensor rows at different rates, duplicated
timestamps, gaps, a sensor that stops, absurd magnitudes, free fall. Every line must be finite,
the offset within [−1, 1] and the attitude a unit quaternion; sane input afterwards works again."""
import math

import numpy as np

import oracles


def check_lines(lines):
    for line in lines:
        assert all(math.isfinite(v) for v in (line['x'], line['y'], *line['q'])), line
        assert -1 <= line['x'] <= 1 and -1 <= line['y'] <= 1, line
        assert abs(math.sqrt(sum(c * c for c in line['q'])) - 1) < 1e-6, line


def test_awkward_trace(trace_file):
    g = oracles.STANDARD_GRAVITY
    rows = []
    t = 1_000_000_000
    upright = np.array([0.0, -g, 0.0])
    for i in range(400):  # rest, combined rows at 100 Hz
        t += 10_000_000
        rows.append((t, upright, np.zeros(3)))
    for i in range(400):  # gyroscope at 200 Hz and accelerometer at 50 Hz in their own rows
        t += 5_000_000
        rows.append((t, None, np.array([0.0, 0.2, 0.0])))
        if i % 4 == 0:
            rows.append((t, upright, None))
    for i in range(50):  # duplicated timestamps
        t += 10_000_000
        rows += [(t, upright, np.zeros(3))] * 2
    t += 3_000_000_000  # both sensors silent for 3 s
    for i in range(50):  # absurd magnitudes and free fall
        t += 10_000_000
        rows.append((t, np.array([1e6, -1e6, 5.0]) if i % 2 else np.array([0.01, 0.02, 0.0]),
                     np.array([0.0, 500.0, 0.0])))
    for i in range(200):  # the gyroscope stops; the accelerometer goes on
        t += 10_000_000
        rows.append((t, upright, None))
    for i in range(300):  # sane again: a turn about +Y at 0.5 rad/s for 0.4 s, then rest
        t += 10_000_000
        rows.append((t, upright, np.array([0.0, 0.5 if i < 40 else 0.0, 0.0])))
    lines = oracles.simulate(trace_file(rows), config='[Motion]\nRecenter=no\n')
    assert len(lines) == len(rows)
    check_lines(lines)
    # The final turn shows: 0.2 rad about +Y moves x by 0.2/(π/2) from where it was.
    before = lines[-301]['x']
    assert abs(lines[-1]['x'] - before - 0.2 / (math.pi / 2)) < 0.01, (before, lines[-1]['x'])
