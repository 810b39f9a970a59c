"""vx, vy on a real recording: the velocity `parallaxctl simulate` reports must be the rate of
change of the offset it reports (docs/protocol.md, "offset"). Real data has what synthetic data
lacks: noise, bias, accelerometer corrections and fast turns (xio3: up to 700°/s), so this is where
a wrong sign, axis or scale of the velocity maths would show.

The engine turns the attitude by the rate measured at the end of each sample interval, so over
one row the offset moves by vx·Δt of that row's vx. Compared where the offset really moves and is
not pinned at ±1: the velocity comes from the gyroscope alone while the offset also follows the
accelerometer's slow correction (gain 0.5/s), so agreement is asked in sign almost always and in
size within a few percent at the median (measured: 2.3–2.7 %)."""
import numpy as np
import pytest

import oracles

# Offset speed (offset units per second) above which a row counts as moving.
MOVING = 0.2
# The median relative error of vx·Δt against the row's change of x may reach this.
MEDIAN_RELATIVE_ERROR = 0.05
# Share of moving rows whose velocity must point the way the offset goes.
SIGN_AGREEMENT = 0.97
# Settings: every row, no lock (the lock's hold is tested in the unit tests), no re-centring.
CONFIG = '[Motion]\nMinimumChange=0\nDirectionalLock=no\nRecenter=no\n'


@pytest.mark.parametrize('rotation', [0, 90])
def test_velocity_is_the_rate_of_change_of_the_offset(rotation, tmp_path):
    path = '%s/xio3.csv' % oracles.TRACES
    out = oracles.simulate(path, config=CONFIG, rotation=rotation, tmp_path=str(tmp_path))
    t = np.array([o['t'] for o in out], dtype=float) / 1e9
    dt = np.diff(t)
    for axis in ('x', 'y'):
        value = np.array([o[axis] for o in out])
        velocity = np.array([o['v' + axis] for o in out])
        change = np.diff(value)
        predicted = velocity[1:] * dt
        inside = (np.abs(value[1:]) < 0.99) & (np.abs(value[:-1]) < 0.99)
        settled = t[1:] >= t[0] + 3.0   # after the start-up gain ramp
        moving = inside & settled & (np.abs(change) > MOVING * dt)
        assert moving.sum() > 200, '%s: only %d moving rows' % (axis, moving.sum())
        agree = np.mean(np.sign(predicted[moving]) == np.sign(change[moving]))
        assert agree >= SIGN_AGREEMENT, 'v%s points the way %s moves in %.1f %% of rows' % (axis, axis, agree * 100)
        relative = np.abs(predicted[moving] - change[moving]) / np.abs(change[moving])
        assert np.median(relative) <= MEDIAN_RELATIVE_ERROR, '%s: median relative error %.3f' % (axis, np.median(relative))
