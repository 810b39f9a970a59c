"""`parallaxctl record` from live (emulated) sensors, and parsing that ignores the locale: the
daemon run under decimal-comma locales reads the same scales and produces the same offsets."""
import os
import subprocess

import pytest

import plx
from helpers import SIGN_THRESHOLD, expect_offset, subscribe_ready, tilt_x

G = 9.80665


def test_record_writes_a_trace_of_the_live_sensors(workdir, testbed, parallaxctl_bin):
    # A rotated mount matrix and a non-trivial scale: the trace must hold device-frame SI values.
    rotated = '0, 1, 0; -1, 0, 0; 0, 0, 1'
    dev = plx.bmi160(0, accel_mount_matrix=rotated, gyro_mount_matrix=rotated)
    testbed.add(dev)
    tilted = plx.gravity_after_rotation((0.0, -G, 0.0), 'x', 30.0)
    testbed.set_accel(dev, tilted)
    testbed.set_gyro(dev, (0.0, 0.25, 0.0))
    path = os.path.join(workdir, 'rec.csv')
    env = dict(os.environ, **testbed.env())
    out = subprocess.run([parallaxctl_bin, 'record', path, '--seconds', '1', '--rate', '100'],
                         env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    comments, rows = plx.read_trace(path)
    assert any('bmi160' in c for c in comments), 'no provenance: %s' % comments
    assert any('mount matrix' in c for c in comments), comments
    assert 80 <= len(rows) <= 110, '%d rows for 1 s at 100 Hz' % len(rows)
    assert all(b.t_ns > a.t_ns for a, b in zip(rows, rows[1:])), 't_ns must increase'
    for r in rows:
        assert all(abs(a - b) < 0.05 for a, b in zip(r.accel, tilted)), (r.accel, tilted)
        assert abs(r.gyro[1] - 0.25) < 0.01 and abs(r.gyro[0]) < 0.01, r.gyro


def test_record_refuses_without_sensors(workdir, testbed, parallaxctl_bin):
    path = os.path.join(workdir, 'none.csv')
    env = dict(os.environ, **testbed.env())
    out = subprocess.run([parallaxctl_bin, 'record', path, '--seconds', '1'], env=env,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert 'accelerometer' in out.stderr or 'IIO' in out.stderr, out.stderr


@pytest.mark.parametrize('locale', ['de_DE.UTF-8', 'fr_FR.UTF-8'])
def test_decimal_comma_locales_change_nothing(start_daemon, testbed, locale):
    """The whole path under a decimal-comma environment. (Scales like 0.000598 would read as 0
    through a locale-following strtod. parallaxd never calls setlocale, so the environment alone
    cannot switch its C locale; DecimalNumberTests switches the process locale itself and proves
    the parsing ignores it. This test guards against a dependency or a later change that does.)"""
    dev = plx.bmi160(0)
    daemon = start_daemon(dev, env={'LC_ALL': locale, 'LANG': locale, 'LC_NUMERIC': locale})
    c = daemon.connect()
    subscribe_ready(c)
    status = c.status()
    assert status['sensor'] == 'ok', status
    tilt_x(testbed, dev, dev, 20.0)
    got = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f under %s' % (SIGN_THRESHOLD, locale))
    assert got['y'] < 0.4, 'a 20° tilt must stay near 0.22, got %s' % got


def test_replay_keeps_the_recorded_timing_scaled_by_replay_speed(workdir, start_daemon):
    # 2 s of a steady turn about +Y at 200 Hz, played 4× faster and not looped.
    rows, _ = plx.rotation_rows((0.0, -G, 0.0), 'y', 60.0, 2.0)
    trace = os.path.join(workdir, 'turn.csv')
    plx.write_trace(trace, rows)
    conf = os.path.join(workdir, 'fast.conf')
    with open(conf, 'w') as f:
        f.write('[Sensor]\nReplaySpeed=4\nReplayLoop=no\n[Motion]\nMinimumChange=0\n')
    daemon = start_daemon(source='replay:' + trace, config=conf)
    c = daemon.connect()
    c.subscribe(rate=60)
    ended = c.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'lost', 5.0)
    assert ended is not None, 'the replay did not end'
    arrivals = [t for t, _ in c.frames]
    frames = [o for _, o in c.frames]
    # The due grid is in sample time (docs/decisions.md): 60 frames a recorded second between
    # the first frame's sample and the last (a frame at the first 5 ms sample at or after each
    # due point), though they reach the client within a quarter of that on the clock. Counted
    # over the recorded span the client saw: how late it joined the replay depends on the load.
    span = (frames[-1]['t'] - frames[0]['t']) / 1e9
    assert span >= 1.0, 'the client saw %.3f s of the 2 s recorded' % span
    expected = 60 * span
    assert abs((len(frames) - 1) - expected) <= 2 + 0.03 * expected, \
        '%d frames over %.3f s recorded: not 60 a recorded second' % (len(frames), span)
    # Played in about 0.5 s of wall time (2 s at 4x; the subscriber joins a little late)...
    assert arrivals[-1] - arrivals[0] < 0.7, 'frames arrived over %.3f s' % (arrivals[-1] - arrivals[0])
    # ...while the stamps keep the recorded spacing, so the engine sees the recorded motion:
    # the whole 60° turn, and 4x the wall-clock span in t.
    assert span > 4 * (arrivals[-1] - arrivals[0]) * 0.8, 'stamps span %.3f s' % span
    assert frames[-1]['x'] > 0.5, 'a 60° turn about +Y must end near 0.67: %s' % frames[-1]


def test_an_accelerometer_only_machine_says_so(start_daemon, testbed):
    dev = plx.bmi160(0, gyro=False)
    daemon = start_daemon(dev)
    c = daemon.connect()
    subscribe_ready(c)
    status = c.status()
    assert status['sensor'] == 'ok'
    assert [s['kind'] for s in status['sensors']] == ['accel'], status['sensors']
    assert 'no gyroscope found' in daemon.stderr_text()
