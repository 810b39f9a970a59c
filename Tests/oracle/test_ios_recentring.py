"""Attitude mode's re-centring against the iOS model (docs/motion.md "Background"): a held tilt
through `parallaxctl simulate`.

The device rests upright for 4 s (past the filter's 3 s start-up), tips about its X axis by the
tilt in 0.2 s, and holds. The offset y then follows the iOS reference slew 0.03·(1 + 5θ/π) rad/s:
times are counted from the middle of the tilt, as the iOS "held tilt" times of docs/motion.md
are; half = y has halved from its peak, full = under 0.005 (a twentieth of a degree of offset from 0 at 90°)."""
import math

import numpy as np
import pytest

import oracles

REST_S = 4.0
TILT_S = 0.2
HOLD_S = 25.0
RATE_HZ = 100


def held_tilt(degrees, trace_file, config=None):
    omega = math.radians(degrees) / TILT_S

    def body_rate(t):
        return (omega if REST_S <= t < REST_S + TILT_S else 0.0, 0.0, 0.0)
    rows, _ = oracles.synthesize(REST_S + TILT_S + HOLD_S, RATE_HZ, body_rate, start=oracles.UPRIGHT,
                                 gyro_noise=0.0005, accel_noise=0.005, seed=int(degrees))
    out = oracles.simulate(trace_file(rows), config=config)
    t0 = rows[0][0]
    times = np.array([(line['t'] - t0) * 1e-9 for line in out])
    ys = np.array([line['y'] for line in out])
    return times, ys, omega


def tilt_of(omega):
    def tilt(t):
        return omega * min(max(t - REST_S, 0.0), TILT_S)
    return tilt


@pytest.mark.parametrize('degrees,half_s,full_s', [(10, 2.4, 5.1), (30, 5.4, 12.7), (45, 6.8, 17.0)])
def test_held_tilt_recentres_on_the_ios_schedule(degrees, half_s, full_s, trace_file):
    times, ys, omega = held_tilt(degrees, trace_file)
    middle = REST_S + TILT_S / 2
    after = times >= middle
    peak_index = int(np.argmax(ys))
    peak = ys[peak_index]
    assert abs(peak - degrees / 90) < 0.01, 'peak %.4f' % peak
    later = np.arange(len(ys)) >= peak_index
    half = times[np.argmax(later & (ys <= peak / 2))] - middle
    full = times[np.argmax(later & (ys < 0.005))] - middle
    print('%g°: half %.2f s (iOS %.1f), full %.2f s (iOS %.1f)' % (degrees, half, half_s, full, full_s))
    assert abs(half - half_s) <= 0.1 * half_s
    assert abs(full - full_s) <= 0.1 * full_s
    # Never past the centre, and centred at the end.
    assert ys[after].min() > -0.002 and abs(ys[-1]) < 0.002
    # The whole hold against the iOS model (an independent integration of the same slew); during
    # the 0.2 s tilt itself one sample of timing is already 0.01–0.02 of offset, so it is skipped.
    held = times >= REST_S + TILT_S + 0.05
    model = oracles.ios_recentring([REST_S] + list(times[held]), tilt_of(omega))[1:]
    worst = float(np.max(np.abs(ys[held] - model)))
    print('  worst difference from the iOS model: %.4f' % worst)
    assert worst < 0.003


def test_without_recentring_the_tilt_stays(trace_file):
    times, ys, _ = held_tilt(30, trace_file, config='[Motion]\nRecenter=no\n')
    held = ys[times > REST_S + TILT_S + 0.5]
    assert np.all(np.abs(held - 30 / 90) < 0.005), 'min %.4f max %.4f' % (held.min(), held.max())
