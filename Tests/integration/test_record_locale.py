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
    cannot switch its C locale; SysfsNumberTests switches the process locale itself and proves
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
