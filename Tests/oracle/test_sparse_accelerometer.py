"""The accelerometer decimated to the rate the attitude filter needs for gravity
(MotionSettings.gravityReferenceRate, docs/motion.md "Accelerometer rate"), the gyroscope at full
rate, on the real recordings of test_imufusion.py.

Decimation is sample-and-drop, as a capture that reads the accelerometer through sysfs only every
so often sees it: of each recording's accelerometer readings only every Nth is kept (in its row,
with the gyroscope; the other rows carry the gyroscope alone, docs/trace-format.md), N = the
recording's median rate / the target rate, rounded. The gyroscope is untouched.

Tilt error = the angle between the up vectors of parallaxd's attitude and imufusion's (default
settings, the FULL-rate recording: the oracle of test_imufusion.py), per row from 3 s on.

"Does not grow measurably": the decimated run's median error at most 0.1° above the full-rate
run's (0.1° is the size of what two implementations of the same law already disagree by at full
rate: parallaxd against ahrs' Mahony, medians 0.02–0.07°), and its maximum within
test_imufusion.py's bound (2°).

Measured (docs/motion.md "Accelerometer rate"): at 8 Hz it does grow on every recording, through
the linear acceleration that a few readings a second sample instead of average (these
recordings shake at up to 7 g and turn at up to 850°/s). That test is an expected failure (strict:
it fails the run the day it passes, so that the docs and this file are brought up to date). At
0.2 Hz it grows too: the power check of the criterion.
"""
import numpy as np
import pytest

import oracles

imufusion = oracles.require_module('imufusion')

SETTLE_S = 3.0
# MotionSettings().gravityReferenceRate (Hz): 16 readings per second per unit of Fusion's gain 0.5/s;
# SparseAccelerometerTests.gravityReferenceRateFollowsTheGain pins the value this test uses.
GRAVITY_REFERENCE_RATE_HZ = 8.0
# Far below it: two or ten readings over a recording.
SANITY_RATE_HZ = 0.2
MEDIAN_GROWTH_LIMIT_DEG = 0.1
MAX_LIMIT_DEG = 2.0

RECORDINGS = ['ngimu', 'xio3', 'xio', 'yei']


def recording(name):
    if name in ('ngimu', 'xio3'):
        return oracles.read_trace('%s/%s.csv' % (oracles.TRACES, name))
    data = oracles.require_skinematics_data()
    return {'xio': oracles.xio_rows, 'yei': oracles.yei_rows}[name](data)


def decimated(rows, rate_hz):
    """Every Nth accelerometer reading kept (the first among them: it starts the attitude)."""
    every = max(1, int(round(oracles.median_rate(rows) / rate_hz)))
    out = []
    seen = 0
    for t, accel, gyro in rows:
        if accel is not None:
            keep = seen % every == 0
            seen += 1
            if not keep:
                accel = None
        out.append((t, accel, gyro))
    return out, every


_cache = {}


def tilt_errors(name, rate_hz, trace_file):
    """(full-rate errors, decimated errors, N) against imufusion on the full-rate recording."""
    rows = recording(name)
    if name not in _cache:
        reference = oracles.imufusion_attitudes(rows)
        full = [np.array(line['q']) for line in oracles.simulate(trace_file(rows, name + '.csv'))]
        _cache[name] = (reference, oracles.tilt_differences(rows, full, reference, SETTLE_S))
    reference, full_errors = _cache[name]
    sparse_rows, every = decimated(rows, rate_hz)
    sparse = [np.array(line['q']) for line in oracles.simulate(trace_file(sparse_rows, '%s-%g.csv' % (name, rate_hz)))]
    assert len(sparse) == len(rows)
    sparse_errors = oracles.tilt_differences(rows, sparse, reference, SETTLE_S)
    rate = oracles.median_rate(rows)
    print('%s (%.0f Hz): full rate median %.3f° p95 %.3f° max %.3f°; accelerometer every %d (%.2f Hz): '
          'median %.3f° p95 %.3f° max %.3f°'
          % (name, rate, np.median(full_errors), np.percentile(full_errors, 95), full_errors.max(), every,
             rate / every, np.median(sparse_errors), np.percentile(sparse_errors, 95), sparse_errors.max()))
    return full_errors, sparse_errors, every


def grows(full_errors, sparse_errors):
    """Why it grew measurably, or None."""
    growth = np.median(sparse_errors) - np.median(full_errors)
    if growth > MEDIAN_GROWTH_LIMIT_DEG:
        return 'median grew by %.3f° (limit %.1f°)' % (growth, MEDIAN_GROWTH_LIMIT_DEG)
    if sparse_errors.max() > MAX_LIMIT_DEG:
        return 'max %.3f° (limit %.1f°)' % (sparse_errors.max(), MAX_LIMIT_DEG)
    return None


@pytest.mark.xfail(strict=True, reason='sample-and-drop at 8 Hz aliases the recordings\' linear acceleration: '
                   'median +0.26 to +1.99°, max 2.1 to 9.8° (docs/motion.md "Accelerometer rate")')
@pytest.mark.parametrize('name', RECORDINGS)
def test_tilt_error_does_not_grow_at_the_gravity_reference_rate(name, trace_file):
    full_errors, sparse_errors, _ = tilt_errors(name, GRAVITY_REFERENCE_RATE_HZ, trace_file)
    why = grows(full_errors, sparse_errors)
    assert why is None, '%s at %g Hz: %s' % (name, GRAVITY_REFERENCE_RATE_HZ, why)


@pytest.mark.parametrize('name', RECORDINGS)
def test_tilt_error_grows_when_decimated_far_more(name, trace_file):
    """The power check: the criterion does see a far sparser accelerometer."""
    full_errors, sparse_errors, _ = tilt_errors(name, SANITY_RATE_HZ, trace_file)
    assert grows(full_errors, sparse_errors) is not None, \
        '%s at %g Hz: no measurable growth (median %.3f° vs %.3f° at full rate)' % (
            name, SANITY_RATE_HZ, np.median(sparse_errors), np.median(full_errors))
