#!/usr/bin/env python3
"""Convert the real IMU recordings shipped with scikit-kinematics 0.10.4 into parallaxd trace files.

Why: parallaxd's tests and demo want real motion (not synthetic sines) with known provenance.
scikit-kinematics (BSD-3-Clause, Thomas Haslwanter) ships two 10 s recordings of x-io devices:
  tests/data/data_ngimu/sensors.csv   NGIMU, 50 Hz, time in s, gyro deg/s, accel g
  tests/data/data_xio3/Inertial.csv   x-io3, ≈50 Hz, time in µs, gyro deg/s, accel g

Trace format (docs/trace-format.md): `#` provenance lines, then `t_ns,ax,ay,az,gx,gy,gz`,
CLOCK_MONOTONIC-like ns, accel m/s² and gyro rad/s in the device frame.

Frame conversion: the sensor axes are taken as the device axes (identity mount matrix: X right,
Y top, Z out of the screen). x-io devices report specific force (+1 g on the up axis at rest);
parallaxd's device frame reports the direction of gravity (lying face-up ≈ (0, 0, −9.81)), so the
accelerometer is negated and scaled by standard gravity. The gyroscope keeps its sign
(right-hand rotation about each axis), converted from deg/s to rad/s.

Usage:
  pip install --no-deps --target DIR scikit-kinematics==0.10.4
  /usr/bin/python3 scripts/convert_skinematics.py [--data DIR/tests/data] [--out examples/traces]
Without --data the script looks for an installed package (`tests/data` beside `skinematics`).
"""
import argparse
import csv
import importlib.util
import math
import os
import sys

# Standard gravity, m/s² per g (CGPM 1901), the unit of x-io accelerometer output.
STANDARD_GRAVITY = 9.80665
# Traces start here rather than at 0 so that a consumer never mistakes t = 0 for "no time".
TRACE_START_NS = 1_000_000_000
# Significant digits kept per value: the recordings carry about 7; 6 keeps files small with no
# loss that matters (1 ppm of full scale is far under the sensors' noise).
SIGNIFICANT_DIGITS = 6
# Smallest magnitude written as non-zero; anything smaller prints as 0 (avoids exponent notation).
SMALLEST_WRITTEN = 1e-9

HEADER = 't_ns,ax,ay,az,gx,gy,gz'
PACKAGE = 'scikit-kinematics 0.10.4 (PyPI), BSD-3-Clause, (C) 2016 Thomas Haslwanter'


def fmt(value):
    """A number with SIGNIFICANT_DIGITS significant digits, plain decimal notation, no -0."""
    if not math.isfinite(value):
        raise ValueError('non-finite value %r' % value)
    if abs(value) < SMALLEST_WRITTEN:
        return '0'
    decimals = SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(abs(value)))
    text = '%.*f' % (max(0, decimals), value)
    if '.' in text:
        text = text.rstrip('0').rstrip('.')
    return '0' if text in ('-0', '') else text


def to_device(gyro_deg_s, accel_g):
    """x-io sensor axes (specific force in g, deg/s) → parallaxd device frame (gravity, m/s², rad/s)."""
    accel = [-a * STANDARD_GRAVITY for a in accel_g]
    gyro = [math.radians(g) for g in gyro_deg_s]
    return accel, gyro


def read_rows(path, time_to_ns):
    """Rows of (t_ns relative to the first sample, gyro deg/s, accel g) from an x-io CSV export."""
    with open(path, newline='') as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = []
        for record in reader:
            if not record:
                continue
            values = [float(v) for v in record]
            rows.append((time_to_ns(values[0]), values[1:4], values[4:7]))
    if not rows:
        raise SystemExit('%s: no samples' % path)
    t0 = rows[0][0]
    return header, [(t - t0, g, a) for t, g, a in rows]


def write_trace(out_path, provenance, rows):
    """Write rows as a parallaxd trace; fails on non-monotonic time instead of writing a bad file."""
    lines = ['# ' + p for p in provenance] + [HEADER]
    previous = None
    for t_rel, gyro_deg_s, accel_g in rows:
        t_ns = TRACE_START_NS + t_rel
        if previous is not None and t_ns <= previous:
            raise SystemExit('%s: time does not increase at t_ns=%d' % (out_path, t_ns))
        previous = t_ns
        accel, gyro = to_device(gyro_deg_s, accel_g)
        lines.append(','.join([str(t_ns)] + [fmt(v) for v in accel + gyro]))
    with open(out_path, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return len(rows)


def common_provenance(device, source, rate):
    return [
        'parallaxd trace (docs/trace-format.md): t_ns monotonic ns, accel m/s2, gyro rad/s, device frame',
        'source: %s' % PACKAGE,
        'file: site-packages/%s' % source,
        'device: %s; rate: %s' % (device, rate),
        'conversion: scripts/convert_skinematics.py; sensor axes = device axes (identity mount matrix);',
        '  accel = -(specific force in g) * 9.80665 (direction of gravity: face-up rest = (0, 0, -9.81));',
        '  gyro = deg/s * pi/180; t_ns = 1000000000 + time since the first sample; 6 significant digits',
    ]


def convert_ngimu(data_dir, out_dir):
    src = os.path.join(data_dir, 'data_ngimu', 'sensors.csv')
    # NGIMU time column is seconds since the start of logging, with ns resolution.
    _, rows = read_rows(src, lambda s: int(round(s * 1e9)))
    provenance = common_provenance(
        'x-io NGIMU (name NGIMU_AP, firmware v1.8, hardware v1.6), recorded 2018-02-08',
        'tests/data/data_ngimu/sensors.csv', '50 Hz (sensors), 10 s')
    provenance.append('reference attitude (onboard AHRS, gain 0.5, no magnetometer): tests/data/data_ngimu/quaternion.csv')
    out = os.path.join(out_dir, 'ngimu.csv')
    return out, write_trace(out, provenance, rows)


def convert_xio3(data_dir, out_dir):
    src = os.path.join(data_dir, 'data_xio3', 'Inertial.csv')
    # x-io3 time column is a µs device timestamp.
    _, rows = read_rows(src, lambda us: int(round(us * 1e3)))
    provenance = common_provenance(
        'x-io Technologies x-IMU3', 'tests/data/data_xio3/Inertial.csv',
        'about 50 Hz (inertial), 10 s, rotations up to about 850 deg/s')
    provenance.append('reference attitude (onboard AHRS): tests/data/data_xio3/Quaternion.csv')
    out = os.path.join(out_dir, 'xio3.csv')
    return out, write_trace(out, provenance, rows)


def find_data_dir():
    """`tests/data` of an installed scikit-kinematics (it installs a top-level `tests` package)."""
    spec = importlib.util.find_spec('skinematics')
    if spec is None or not spec.origin:
        raise SystemExit('scikit-kinematics not found: pip install --no-deps scikit-kinematics==0.10.4, '
                         'or pass --data SITE-PACKAGES/tests/data')
    site = os.path.dirname(os.path.dirname(spec.origin))
    return os.path.join(site, 'tests', 'data')


def main(argv=None):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', help='scikit-kinematics tests/data directory')
    ap.add_argument('--out', default=os.path.join(repo, 'examples', 'traces'), help='output directory')
    args = ap.parse_args(argv)
    data_dir = args.data or find_data_dir()
    os.makedirs(args.out, exist_ok=True)
    for convert in (convert_ngimu, convert_xio3):
        out, n = convert(data_dir, args.out)
        print('%s: %d samples' % (out, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
