"""Device-frame geometry: 3-vector and 3×3 matrix helpers, mount matrices (parsing, sysfs text),
rotations of gravity, and the frame the daemon derives from mount matrices (docs/frames.md,
docs/sensors.md)."""
import math

from .common import HarnessError

AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}
IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


# ---------------------------------------------------------------------------------------------
# Small 3-vector / 3×3 matrix helpers (no numpy: the harness runs on a bare Debian python3).

def mat_vec(m, v):
    return tuple(sum(m[r][c] * v[c] for c in range(3)) for r in range(3))


def mat_inverse(m):
    """Inverse of a 3×3 matrix (mount matrices are usually rotations, but need not be)."""
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    if abs(det) < 1e-12:
        raise HarnessError('mount matrix %r is singular' % (m,))
    cof = ((e * i - f * h, -(d * i - f * g), d * h - e * g),
           (-(b * i - c * h), a * i - c * g, -(a * h - b * g)),
           (b * f - c * e, -(a * f - c * d), a * e - b * d))
    # inverse = adjugate / det, adjugate = transpose of the cofactor matrix
    return tuple(tuple(cof[c][r] / det for c in range(3)) for r in range(3))


def parse_mount_matrix(text):
    """'a, b, c; d, e, f; g, h, i' (kernel / hwdb format) → ((a, b, c), (d, e, f), (g, h, i))."""
    rows = [r for r in text.strip().split(';')]
    if len(rows) != 3:
        raise HarnessError('mount matrix needs 3 rows: %r' % text)
    m = tuple(tuple(float(x) for x in r.split(',')) for r in rows)
    if any(len(r) != 3 for r in m):
        raise HarnessError('mount matrix needs 3 columns: %r' % text)
    return m


def format_mount_matrix(m):
    return '; '.join(', '.join(_num(x) for x in row) for row in m)


def _num(x):
    """A float as sysfs prints it: integers without a decimal point, others with enough digits."""
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


def rotate(v, axis, radians):
    """Rodrigues: v rotated by `radians` (right-hand) about the unit vector `axis`."""
    k = _unit(axis)
    c, s = math.cos(radians), math.sin(radians)
    kxv = (k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0])
    kdv = sum(k[i] * v[i] for i in range(3))
    return tuple(v[i] * c + kxv[i] * s + k[i] * kdv * (1 - c) for i in range(3))


def _unit(axis):
    if isinstance(axis, str):
        sign = -1.0 if axis.startswith('-') else 1.0
        return tuple(sign * x for x in AXES[axis.lstrip('+-').lower()])
    n = math.sqrt(sum(x * x for x in axis))
    return tuple(x / n for x in axis)


def gravity_after_rotation(accel_start, axis, degrees):
    """Device-frame gravity after the device turned by `degrees` about its own `axis`.

    The world does not move, so in device coordinates gravity turns the other way:
    g' = R(axis, −θ) · g. Example: upright (0, −g, 0) turned +15° about +X → (0, −g·cos15°, +g·sin15°)
    (the top comes toward the viewer, the screen tips downward, gravity gains a +Z part)."""
    return rotate(accel_start, axis, -math.radians(degrees))


# ---------------------------------------------------------------------------------------------
# Mount matrices → the fusion frame (docs/sensors.md "Mount matrices and the fusion frame")
#
# A second, deliberately plain statement of the daemon's rules, so that tests can say what raw
# values a device with given matrices must produce. Tests that want physics independent of these
# rules give the chip's rotation instead (IIODevice(chip_rotation=R)).

def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _scaled(v, s):
    return tuple(x * s for x in v)


def mat_det(m):
    return sum(m[0][i] * _cross(m[1], m[2])[i] for i in range(3))


def mat_scaled(m, s):
    return tuple(_scaled(row, s) for row in m)


def _screen_rows(m):
    """x and y rows made orthonormal symmetrically (each turns half the deviation from 90°)."""
    u, v = _unit(m[0]), _unit(m[1])
    a = _unit(tuple(p + q for p, q in zip(u, v)))
    b = _unit(tuple(p - q for p, q in zip(u, v)))
    x = tuple((p + q) / math.sqrt(2) for p, q in zip(a, b))
    y = tuple((p - q) / math.sqrt(2) for p, q in zip(a, b))
    return x, y


def hwdb_frame(m):
    """udev ACCEL_MOUNT_MATRIX: x, y rows trusted (direction of gravity, specific-force chip);
    accelerometer (x, y, −x×y), gyroscope det·A = −A."""
    x, y = _screen_rows(m)
    accel = (x, y, _scaled(_cross(x, y), -1))
    return accel, mat_scaled(accel, -1)


def kernel_frame(m):
    """Kernel mount matrix (IIO ABI): a rotation R of specific force and rate → accel −R, gyro R;
    a reflection (det < −0.5) is read like hwdb."""
    if mat_det(m) < -0.5:
        return hwdb_frame(m)
    x, y = _screen_rows(m)
    rotation = (x, y, _cross(x, y))
    return mat_scaled(rotation, -1), rotation


def chip_frame(rotation):
    """A chip turned by the proper rotation R (chip → device) that reports specific force and a
    right-handed rate: the matrices that map its raw values to the daemon's device frame."""
    return mat_scaled(rotation, -1), tuple(tuple(float(x) for x in row) for row in rotation)
