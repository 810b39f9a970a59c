"""Shared helpers of the oracle tests: traces, `parallaxctl simulate`, imufusion, ahrs, the iOS model.

Frames and units (docs/frames.md): parallaxd traces are in the device frame (X right, Y top, Z out of
the screen), accelerometer in m/s² pointing in the DIRECTION OF GRAVITY (face-up at rest ≈ (0, 0,
−9.81)), gyroscope in rad/s. `simulate` prints q = device→earth with earth Z up.

imufusion (x-io Fusion 1.3.x) works in NWU (earth Z up as well), gyroscope in deg/s and the
accelerometer as SPECIFIC FORCE in g (face-up at rest ≈ (0, 0, +1)): accel_g = −a / 9.80665.
Its quaternion is sensor→earth too, so both attitudes give "up" in the device frame the same way
(the third row of the rotation matrix), and the tilt difference is the angle between those two
up vectors: heading (free without a magnetometer) plays no part.
"""
import json
import math
import os
import subprocess

import numpy as np

STANDARD_GRAVITY = 9.80665
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACES = os.path.join(ROOT, 'examples', 'traces')
HEADER = 't_ns,ax,ay,az,gx,gy,gz'


# --- parallaxctl -----------------------------------------------------------------------------------

def parallaxctl():
    """The parallaxctl binary: $PARALLAXCTL, else the most recently built one under .build*/
    (debug or release): scripts/test.sh has just built .build/debug; by hand, set PARALLAXCTL."""
    explicit = os.environ.get('PARALLAXCTL')
    if explicit:
        return explicit
    candidates = []
    for entry in sorted(os.listdir(ROOT)):
        if entry == '.build' or entry.startswith('.build-') or entry.startswith('.build_'):
            for config in ('debug', 'release'):
                path = os.path.join(ROOT, entry, config, 'parallaxctl')
                if os.access(path, os.X_OK):
                    candidates.append(path)
    if not candidates:
        raise RuntimeError('no parallaxctl binary: build first (swift build) or set PARALLAXCTL')
    return max(candidates, key=os.path.getmtime)


def simulate(trace_path, config=None, rotation=0, tmp_path=None):
    """Runs `parallaxctl simulate` and returns its lines as dicts {t, x, y, q}. `config`: the text
    of a config file (written next to the trace) or None for the built-in defaults."""
    args = [parallaxctl(), 'simulate', trace_path]
    if config is not None:
        conf = os.path.join(tmp_path or os.path.dirname(trace_path), 'simulate.conf')
        with open(conf, 'w') as f:
            f.write(config)
        args += ['--config', conf]
    if rotation:
        args += ['--rotation', str(rotation)]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, 'simulate failed (%d): %s' % (result.returncode, result.stderr)
    return [json.loads(line) for line in result.stdout.splitlines()]


# --- traces ----------------------------------------------------------------------------------------

def read_trace(path):
    """Rows (t_ns, accel or None, gyro or None) of a parallaxd trace."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#') or line.replace(' ', '') == HEADER:
                continue
            fields = line.split(',')
            t = int(fields[0])
            accel = None if all(v == '' for v in fields[1:4]) else np.array([float(v) for v in fields[1:4]])
            gyro = None if all(v == '' for v in fields[4:7]) else np.array([float(v) for v in fields[4:7]])
            rows.append((t, accel, gyro))
    return rows


def write_trace(path, rows, comment='synthetic trace written by Tests/oracle'):
    """Writes rows (t_ns, accel or None, gyro or None) as a parallaxd trace."""
    def cells(v):
        return ',,' if v is None else ','.join('%.9g' % c for c in v)
    with open(path, 'w') as f:
        f.write('# %s\n%s\n' % (comment, HEADER))
        for t, accel, gyro in rows:
            f.write('%d,%s,%s\n' % (t, cells(accel), cells(gyro)))
    return path


# --- quaternions (w, x, y, z), Hamilton -------------------------------------------------------------

def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def qconj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def qaxis(axis, angle):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], axis * math.sin(angle / 2)])


def qexp(rotation_vector):
    """The rotation by |r| about r (exact)."""
    angle = np.linalg.norm(rotation_vector)
    if angle < 1e-15:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return qaxis(rotation_vector, angle)


def rotate(q, v):
    return qmul(qmul(q, np.concatenate([[0.0], v])), qconj(q))[1:]


def up(q):
    """Earth up (Z) in the device frame for a device→earth attitude q: third row of its matrix."""
    w, x, y, z = q
    return np.array([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])


def angle_deg(u, v):
    return math.degrees(math.atan2(np.linalg.norm(np.cross(u, v)), float(np.dot(u, v))))


def tilt_difference_deg(qa, qb):
    """Angle between the up vectors implied by two attitudes (heading-independent)."""
    return angle_deg(up(qa), up(qb))


# --- oracles ---------------------------------------------------------------------------------------

def median_rate(rows):
    times = [t for t, _, _ in rows]
    return 1e9 / float(np.median(np.diff(times)))


def imufusion_attitudes(rows):
    """imufusion 1.3.x with its default AHRS settings (gain 0.5, gyroscope_range 0 = off,
    acceleration_rejection 0 = off, magnetic_rejection 0 = off, rejection_timeout 0, NWU) over
    the trace. Two settings follow the data, not taste: sample_rate is the trace's median rate
    (Fusion counts its 3 s start-up ramp in samples of that rate) and set_sample_period gets each
    row's real interval. Rows must carry both sensors. Returns one quaternion per row."""
    import imufusion
    rate = median_rate(rows)
    ahrs = imufusion.Ahrs()
    ahrs.set_settings(imufusion.AhrsSettings(sample_rate=rate))
    out = []
    previous = None
    for t, accel, gyro in rows:
        assert accel is not None and gyro is not None, 'imufusion needs both sensors in every row'
        ahrs.set_sample_period((t - previous) * 1e-9 if previous is not None else 1.0 / rate)
        previous = t
        ahrs.update_no_magnetometer(np.degrees(gyro), -accel / STANDARD_GRAVITY)
        out.append(np.array(ahrs.get_quaternion(), dtype=float))
    return out


def mahony_attitudes(rows, k_p=0.5):
    """ahrs' Mahony filter with kP = Fusion's gain 0.5 and no integral term (ahrs insists on a
    non-zero kI: 1e-12), started from gravity with ahrs' own acc2q: the same feedback law as
    Fusion after its start-up, written by someone else. Units rad/s and m/s² (specific force).
    It skips updates whose gyroscope reads exactly zero (docs/motion.md "Background"): recordings never do."""
    from ahrs.common.orientation import acc2q
    from ahrs.filters import Mahony
    first = next(a for _, a, _ in rows if a is not None)
    q = np.array(acc2q(-first), dtype=float)
    mahony = Mahony(k_P=k_p, k_I=1e-12, frequency=median_rate(rows))
    out = []
    previous = None
    for t, accel, gyro in rows:
        dt = (t - previous) * 1e-9 if previous is not None else 0.0
        previous = t
        if dt > 0:
            q = np.array(mahony.updateIMU(q, gyr=gyro, acc=-accel, dt=dt), dtype=float)
        out.append(q)
    return out


def tilt_differences(rows, ours, theirs, settle_s):
    """Per-row tilt differences (deg) from `settle_s` seconds after the first row on."""
    t0 = rows[0][0]
    return np.array([tilt_difference_deg(a, b) for (t, _, _), a, b in zip(rows, ours, theirs)
                     if (t - t0) * 1e-9 >= settle_s])


# --- iOS re-centring model -------------------------------------------------------------------------

IOS_BASE_RATE = 0.03  # rad/s (docs/motion.md "Background")
IOS_GROWTH = 5.0


def ios_recentring(times_s, tilt_rad, dt=0.001):
    """The iOS reference for a device whose tilt about one axis follows tilt_rad(t) (rad): the
    reference angle turns toward the tilt at 0.03·(1 + 5θ/π) rad/s (θ the angle between them),
    never past it. Returns the offset (tilt − reference)/90° at each of `times_s`."""
    reference = 0.0
    t = times_s[0]
    out = []
    for target in times_s:
        while t < target:
            step = min(dt, target - t)
            theta = tilt_rad(t + step) - reference
            move = IOS_BASE_RATE * (1 + IOS_GROWTH * abs(theta) / math.pi) * step
            reference += math.copysign(min(move, abs(theta)), theta)
            t += step
        out.append((tilt_rad(target) - reference) / (math.pi / 2))
    return np.array(out)


# --- synthetic devices -----------------------------------------------------------------------------

def synthesize(duration_s, rate_hz, body_rate, start=None, gyro_bias=(0, 0, 0), accel_noise=0.0,
               gyro_noise=0.0, jitter=0.0, seed=1, truth_hz=2000, t0_ns=1_000_000_000):
    """A device turning at body_rate(t) (rad/s, device frame), from attitude `start`, sampled at
    `rate_hz` with a uniform timing jitter of ± jitter/rate. Returns (rows, truths): the trace
    rows and the true attitude at each row. The gyroscope reads the rate at the sample time (plus
    bias and noise); the accelerometer the direction of gravity (plus noise)."""
    rng = np.random.default_rng(seed)
    q = np.array(start if start is not None else [1.0, 0, 0, 0], dtype=float)
    rows, truths = [], []
    t = 0.0
    step = 1.0 / truth_hz
    next_sample = 0.0
    bias = np.asarray(gyro_bias, dtype=float)
    while t <= duration_s:
        if t >= next_sample - 1e-12:
            gravity = rotate(qconj(q), np.array([0.0, 0.0, -STANDARD_GRAVITY]))
            accel = gravity + rng.normal(0, accel_noise, 3) if accel_noise else gravity
            gyro = np.asarray(body_rate(t), dtype=float) + bias
            if gyro_noise:
                gyro = gyro + rng.normal(0, gyro_noise, 3)
            rows.append((t0_ns + int(round(t * 1e9)), accel, gyro))
            truths.append(q.copy())
            next_sample += (1 + jitter * rng.uniform(-1, 1)) / rate_hz
        # Exact rotation over the truth step at the mid-step rate.
        q = qmul(q, qexp(np.asarray(body_rate(t + step / 2), dtype=float) * step))
        q /= np.linalg.norm(q)
        t += step
    return rows, truths


UPRIGHT = qaxis([1, 0, 0], math.pi / 2)  # device +Y up, screen toward the horizon


# --- the recordings of scikit-kinematics 0.10.4 ---------------------------------------------------

def skinematics_data():
    """tests/data of scikit-kinematics 0.10.4 ($SKINEMATICS_DATA, else .build-oracles/tests/data), or None."""
    for path in (os.environ.get('SKINEMATICS_DATA'), os.path.join(ROOT, '.build-oracles', 'tests', 'data')):
        if path and os.path.isdir(path):
            return path
    return None


def require_skinematics_data():
    """The recordings' folder; a missing one fails the test (scripts/test.sh installs it, so a test
    that skipped here would pass without comparing anything)."""
    import pytest
    data = skinematics_data()
    if data is None:
        pytest.fail('scikit-kinematics 0.10.4 data not found: set SKINEMATICS_DATA or run scripts/test.sh '
                    '(it installs them into .build-oracles/)', pytrace=False)
    return data


def require_module(name):
    """Imports an oracle package; a missing one fails the test (scripts/test.sh installs it)."""
    import importlib
    import pytest
    try:
        return importlib.import_module(name)
    except ImportError as error:
        pytest.fail('oracle package %s is missing (%s): run scripts/test.sh, which installs it into '
                    '.build-oracles/, or put it on PYTHONPATH' % (name, error), pytrace=False)


def xio_rows(data):
    """data_xio/00033_CalInertialAndMag.csv (x-io x-IMU, 49 s): gyroscope deg/s, accelerometer g
    (specific force), no time column; the rate is 256 Hz (InertialAndMagneticDataRate = 9 in
    00033_Registers.csv, i.e. 2^(9−1) Hz, as scikit-kinematics reads it)."""
    import csv
    rate = 256.0
    rows = []
    with open(os.path.join(data, 'data_xio', '00033_CalInertialAndMag.csv'), newline='') as f:
        reader = csv.reader(f)
        next(reader)
        for i, record in enumerate(reader):
            v = [float(x) for x in record]
            rows.append((1_000_000_000 + int(round(i * 1e9 / rate)),
                         -np.array(v[4:7]) * STANDARD_GRAVITY, np.radians(v[1:4])))
    return rows


def yei_rows(data):
    """data_yei.txt (YEI 3-Space, 25 s, ≈110 Hz): chip time µs, gyroscope rad/s, compass,
    accelerometer g (specific force: +1 g up at rest), axes taken as the device frame."""
    rows = []
    t0 = None
    with open(os.path.join(data, 'data_yei.txt')) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            v = [float(x) for x in line.split(',')]
            t0 = v[0] if t0 is None else t0
            rows.append((1_000_000_000 + int(round((v[0] - t0) * 1e3)),
                         -np.array(v[7:10]) * STANDARD_GRAVITY, np.array(v[1:4])))
    return rows
