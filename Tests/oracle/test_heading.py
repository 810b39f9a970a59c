"""Heading (yaw) from `parallaxctl simulate` (docs/frames.md "Heading"): against the gyroscope
integrated about the world's vertical, independently here, over a turn recorded in a bundled
trace; against imufusion's attitude over whole recordings; its rate against its change; and its
drift at rest with the bias stage, on a synthetic rest with a constant gyroscope bias and on the
rest that ends the NGIMU recording.

The independent integration: the world's vertical in the device frame is the accelerometer's
up, u = −a/|a| (direction-of-gravity convention), and the turn about it is ∫ ω·u dt. That is the
heading exactly while the device stays level and the accelerometer sees gravity alone; so the
turn is taken where both hold (the accelerometer, averaged over 0.2 s, within 10 % of g and
within 10° of face-up). Re-centring
is off (yaw would otherwise return toward 0, as x and y do)."""
import math

import numpy as np
import pytest

import oracles

CONFIG = '[Motion]\nRecenter=no\n'
# A recorded turn must be at least this large (deg) to test sign and size.
SMALLEST_TURN_DEG = 15
# yaw's change over the turn may differ from the integrated gyroscope by this (deg) ...
TURN_TOLERANCE_DEG = 0.5
# ... the drift at rest with the bias stage may reach this (deg per minute, the bound).
DRIFT_BOUND_DEG_PER_MIN = 2.0


def wrapped(a):
    return (a + math.pi) % (2 * math.pi) - math.pi


def smoothed_gravity(rows, half_width=5):
    """The accelerometer averaged over ±half_width rows (0.2 s at 50 Hz): a hand's turn shakes the
    reading by a few degrees (the sensor is not on the axis of rotation), gravity stays."""
    accels = [a for _, a, _ in rows]
    out = []
    for i in range(len(rows)):
        window = [a for a in accels[max(0, i - half_width):i + half_width + 1] if a is not None]
        out.append(np.mean(window, axis=0) if window else None)
    return out


def level_turns(rows):
    """(start, end, degrees) of each run of level rows (the smoothed accelerometer within 10 % of
    g and within 10° of face-up), with the gyroscope integrated about that up over the run."""
    gravity = smoothed_gravity(rows)
    runs, start, turn, previous = [], None, 0.0, None
    for i, ((t, _, g), a) in enumerate(zip(rows, gravity)):
        level = a is not None and g is not None and abs(np.linalg.norm(a) / oracles.STANDARD_GRAVITY - 1) < 0.1 \
            and oracles.angle_deg(a, np.array([0.0, 0.0, -1.0])) < 10
        if level and start is not None:
            up = -a / np.linalg.norm(a)
            turn += float(g.dot(up)) * (t - previous) * 1e-9
        if level and start is None:
            start, turn = i, 0.0
        if not level and start is not None:
            runs.append((start, i - 1, math.degrees(turn)))
            start = None
        previous = t
    if start is not None:
        runs.append((start, len(rows) - 1, math.degrees(turn)))
    return runs


# Level turns at least this large (deg) are compared; xio3 must hold one of SMALLEST_TURN_DEG.
COMPARED_TURN_DEG = 2


@pytest.mark.parametrize('name', ['ngimu', 'xio3'])
def test_yaw_follows_the_turns_recorded_in_the_traces(name, tmp_path):
    path = '%s/%s.csv' % (oracles.TRACES, name)
    rows = oracles.read_trace(path)
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    turns = [run for run in level_turns(rows) if abs(run[2]) >= COMPARED_TURN_DEG]
    assert turns, 'no level turn of %d° in %s' % (COMPARED_TURN_DEG, name)
    for start, end, integrated in turns:
        ours = math.degrees(wrapped(out[end]['yaw'] - out[start]['yaw']))
        print('%s rows %d-%d (%.2f-%.2f s): gyroscope about the vertical %+.2f°, yaw %+.2f°' % (
            name, start, end, (rows[start][0] - rows[0][0]) / 1e9, (rows[end][0] - rows[0][0]) / 1e9, integrated, ours))
        assert np.sign(ours) == np.sign(integrated)
        assert abs(ours - integrated) <= TURN_TOLERANCE_DEG
    if name == 'xio3':
        assert max(abs(run[2]) for run in turns) >= SMALLEST_TURN_DEG


def test_a_synthetic_upright_turn_gives_its_angle_and_the_sign_of_x(trace_file, tmp_path):
    """Upright (screen toward the horizon), turning 40° about device +Y, the world's vertical:
    yaw = +40° and x > 0 (the same hand); the output's rotation changes x, never yaw."""
    turn = math.radians(40)
    rows, _ = oracles.synthesize(4, 100, lambda t: (0.0, turn if 1 <= t < 2 else 0.0, 0.0), start=oracles.UPRIGHT)
    path = trace_file(rows)
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    assert abs(math.degrees(out[-1]['yaw']) - 40) < 0.1
    assert out[-1]['x'] > 0.4
    rotated = oracles.simulate(path, config=CONFIG, rotation=90, tmp_path=str(tmp_path))
    assert [o['yaw'] for o in rotated] == [o['yaw'] for o in out]
    assert [o['vyaw'] for o in rotated] == [o['vyaw'] for o in out]


@pytest.mark.parametrize('name', ['ngimu', 'xio3'])
def test_yaw_agrees_with_imufusions_heading(name, tmp_path):
    """imufusion's relative heading (the turn about earth Z of Q(t)·Q(t0)⁻¹, t0 = 3 s, after its
    start-up ramp, which holds its heading) against ours over the same span: two implementations
    of the same fusion, so the heading, which only the gyroscope moves, agrees closely."""
    oracles.require_module('imufusion')
    path = '%s/%s.csv' % (oracles.TRACES, name)
    rows = oracles.read_trace(path)
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    theirs = oracles.imufusion_attitudes(rows)
    t = np.array([r[0] for r in rows], dtype=float) / 1e9
    i0 = int(np.searchsorted(t, t[0] + 3.0))

    def twist(q):
        return 2 * math.atan2(q[3], q[0]) if q[0] ** 2 + q[3] ** 2 > 1e-6 else float('nan')

    def relative(q, q0):
        return twist(oracles.qmul(q, oracles.qconj(q0)))

    # yaw is the turn about earth Z from the reference (the first attitude: no re-centring).
    reference = np.array(out[0]['q'])
    for o in out:
        a = relative(np.array(o['q']), reference)
        if not math.isnan(a):
            assert abs(math.degrees(wrapped(o['yaw'] - a))) < 1e-3
    differences = []
    for i in range(i0, len(rows)):
        a = relative(np.array(out[i]['q']), np.array(out[i0]['q']))
        b = relative(theirs[i], theirs[i0])
        if not math.isnan(b) and not math.isnan(a):
            differences.append(abs(math.degrees(wrapped(a - b))))
    differences = np.array(differences)
    print('%s: yaw vs imufusion heading from 3 s: median %.3f°, 95th %.3f°, max %.3f°' % (
        name, np.median(differences), np.percentile(differences, 95), differences.max()))
    assert np.median(differences) < 0.5


def test_vyaw_is_the_rate_of_change_of_yaw(tmp_path):
    path = '%s/xio3.csv' % oracles.TRACES
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    t = np.array([o['t'] for o in out], dtype=float) / 1e9
    yaw = np.array([o['yaw'] for o in out])
    vyaw = np.array([o['vyaw'] for o in out])
    change = np.array([wrapped(d) for d in np.diff(yaw)])
    predicted = vyaw[1:] * np.diff(t)
    moving = (np.abs(change) > 0.2 * np.diff(t)) & (t[1:] >= t[0] + 3.0)
    assert moving.sum() > 100
    agree = np.mean(np.sign(predicted[moving]) == np.sign(change[moving]))
    relative = np.abs(predicted[moving] - change[moving]) / np.abs(change[moving])
    print('vyaw: sign agrees in %.1f %% of %d moving rows, median relative error %.3f' % (
        agree * 100, moving.sum(), np.median(relative)))
    assert agree >= 0.95
    assert np.median(relative) <= 0.1


BIAS = np.radians([0.5, -0.5, 0.5])
TAU_S = 1 / (2 * math.pi * 0.02)
SETTLED_S = 3 + 4 * TAU_S


def drift(out, since_s, minutes=1.0):
    t = np.array([o['t'] for o in out], dtype=float) / 1e9
    i0 = int(np.searchsorted(t, t[0] + since_s))
    i1 = int(np.searchsorted(t, t[i0] + 60 * minutes)) - 1
    return math.degrees(wrapped(out[i1]['yaw'] - out[i0]['yaw'])) / ((t[i1] - t[i0]) / 60)


@pytest.mark.parametrize('pose', ['upright', 'tilted'])
def test_drift_at_rest_with_a_biased_gyroscope(pose, trace_file, tmp_path):
    """A still device whose gyroscope reads 0.5°/s on every axis plus noise, 2 minutes: once the
    bias stage has settled the heading drifts under 2°/min; without it, by the bias about the
    vertical (≈ 30°/min)."""
    start = oracles.UPRIGHT if pose == 'upright' else oracles.qaxis([1, 0.3, 0.2], 1.2)
    # At rest the truth needs no fine steps: truth_hz = the sample rate.
    rows, _ = oracles.synthesize(SETTLED_S + 70, 100, lambda t: (0.0, 0.0, 0.0), start=start,
                                 gyro_bias=BIAS, gyro_noise=0.002, accel_noise=0.02, seed=11, truth_hz=100)
    path = trace_file(rows)
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    settled = drift(out, SETTLED_S)
    first = drift(out, 0)
    off = oracles.simulate(path, config=CONFIG + 'BiasEstimation=no\n', tmp_path=str(tmp_path))
    control = drift(off, SETTLED_S)
    print('%s: drift %.3f°/min after %.0f s, %.2f°/min over the first minute; without bias estimation %.1f°/min' % (
        pose, settled, SETTLED_S, first, control))
    assert abs(settled) <= DRIFT_BOUND_DEG_PER_MIN
    assert abs(control) > 10


def test_drift_in_the_rest_that_ends_the_ngimu_recording(tmp_path):
    """NGIMU lies still from about 4 s to 10 s: its yaw moves by what the real gyroscope's residual
    bias leaves after the bias stage, scaled to a minute."""
    path = '%s/ngimu.csv' % oracles.TRACES
    rows = oracles.read_trace(path)
    out = oracles.simulate(path, config=CONFIG, tmp_path=str(tmp_path))
    t = np.array([r[0] for r in rows], dtype=float) / 1e9
    still = [i for i, (_, _, g) in enumerate(rows) if g is not None and np.linalg.norm(g) < math.radians(3)]
    i0 = next(i for i in still if all(j in still for j in range(i, len(rows))))
    rate = math.degrees(wrapped(out[-1]['yaw'] - out[i0]['yaw'])) / ((t[-1] - t[i0]) / 60)
    print('ngimu at rest %.2f-%.2f s: yaw drifts %.3f°/min' % (t[i0] - t[0], t[-1] - t[0], rate))
    assert t[-1] - t[i0] > 4
    assert abs(rate) <= DRIFT_BOUND_DEG_PER_MIN
