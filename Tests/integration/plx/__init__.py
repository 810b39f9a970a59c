"""Integration harness for parallaxd: emulated IIO devices (umockdev), the daemon process, a protocol
v1 client and a trace player.

Used by the pytest suite in this folder and by scripts/demo.py. Everything follows
docs/frames.md and docs/protocol.md (the contract) and Tests/integration/README.md (how emulation
works on Debian 12).
Run with Debian's /usr/bin/python3: it has the `gi` module with UMockdev.

Conventions used throughout (docs/frames.md):
- device frame: X right, Y top, Z out of the screen; the accelerometer reports the direction of
  gravity (upright ≈ (0, −9.81, 0), face-up ≈ (0, 0, −9.81)); gyroscope rad/s, right-handed.
- IIO value = (raw + offset) × scale per channel; v_device = M · v_sensor (mount matrix M).
"""
import json
import math
import os
import select
import signal
import socket
import subprocess
import threading
import time

# Repository root: Tests/integration/plx/__init__.py → three levels up.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACES_DIR = os.path.join(REPO_ROOT, 'examples', 'traces')

# Standard gravity (m/s²); the device-frame accelerometer at rest has this magnitude.
GRAVITY = 9.80665
# Upright in the normal orientation (docs/frames.md): gravity points to the bottom of the screen.
UPRIGHT = (0.0, -GRAVITY, 0.0)
# Lying face-up on a table: gravity points into the screen.
FACE_UP = (0.0, 0.0, -GRAVITY)
AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}
IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

# IIO channel type names for the two sensors (sysfs prefixes in_accel_*, in_anglvel_*).
ACCEL = 'accel'
GYRO = 'anglvel'

# How long the daemon gets to send READY=1 (s): a debug build under the umockdev preload.
READY_TIMEOUT = 20.0
# How long a SIGTERM'd daemon gets before SIGKILL (s).
STOP_TIMEOUT = 10.0
# Returned by Daemon.stop() when SIGTERM did not end the process and it had to be killed.
KILLED = -signal.SIGKILL


class HarnessError(Exception):
    """The harness could not do what a test asked (not a parallaxd failure by itself)."""


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


# ---------------------------------------------------------------------------------------------
# Emulated IIO devices

class IIODevice:
    """An IIO device description, rendered as umockdev text (Tests/integration/README.md, "Emulated IIO devices").

    A combined IMU has accel and gyro channels; split devices (HID accel_3d + gyro_3d) are two
    IIODevice objects, one with gyro=False and one with accel=False.

    Scaling: shared `in_<type>_scale` (and optional shared `in_<type>_offset`); per-channel
    `in_<type>_<axis>_scale` / `_offset` override them when given in channel_scale /
    channel_offset, keyed like 'accel_x' or 'anglvel_z'.

    Mount matrices: attribute texts 'a, b, c; d, e, f; g, h, i' for the sysfs attributes
    `mount_matrix`, `in_accel_mount_matrix`, `in_anglvel_mount_matrix`, `in_mount_matrix` and the udev
    property ACCEL_MOUNT_MATRIX. Raw values are what a chip must report for the daemon to see
    the device-frame vector a test sets: through the frame the daemon derives from those matrices
    (frame(), docs/sensors.md), or, with `chip_rotation` (chip → device, proper), through the
    chip's physics (specific force and a right-handed rate in its own axes) whatever the matrices
    claim."""

    def __init__(self, name, index=0, sysfs_path=None, *, accel=True, gyro=True,
                 accel_scale=0.000598, gyro_scale=0.001065,
                 accel_offset=None, gyro_offset=None,
                 channel_scale=None, channel_offset=None,
                 sampling_frequency=100.0,
                 sampling_frequency_available='25 50 100 200 400 800 1600',
                 sampling_frequency_attr='sampling_frequency',
                 mount_matrix=None, accel_mount_matrix=None, gyro_mount_matrix=None,
                 in_mount_matrix=None, udev_mount_matrix=None, chip_rotation=None,
                 raw_bits=16, dev_node=True, major=246,
                 initial_accel=UPRIGHT, initial_gyro=(0.0, 0.0, 0.0),
                 extra_attrs=None, extra_properties=None):
        if not accel and not gyro:
            raise HarnessError('an IIO motion device needs accel and/or gyro channels')
        self.name = name
        self.index = index
        self.sysfs_path = sysfs_path or '/devices/platform/%s.%d/iio:device%d' % (name, index, index)
        self.has = {ACCEL: bool(accel), GYRO: bool(gyro)}
        self.scale = {ACCEL: accel_scale, GYRO: gyro_scale}
        self.offset = {ACCEL: accel_offset, GYRO: gyro_offset}
        self.channel_scale = dict(channel_scale or {})
        self.channel_offset = dict(channel_offset or {})
        self.sampling_frequency = sampling_frequency
        self.sampling_frequency_available = sampling_frequency_available
        self.sampling_frequency_attr = sampling_frequency_attr
        self.matrix_attrs = {}
        for attr, text in (('mount_matrix', mount_matrix), ('in_accel_mount_matrix', accel_mount_matrix),
                           ('in_anglvel_mount_matrix', gyro_mount_matrix), ('in_mount_matrix', in_mount_matrix)):
            if text is not None:
                parse_mount_matrix(text)  # fail early on a typo
                self.matrix_attrs[attr] = text
        self.udev_mount_matrix = udev_mount_matrix
        if udev_mount_matrix is not None:
            parse_mount_matrix(udev_mount_matrix)
        self.chip_rotation = chip_rotation
        if chip_rotation is not None and abs(mat_det(chip_rotation) - 1) > 1e-9:
            raise HarnessError('%s: chip_rotation must be a proper rotation (chips are right-handed)' % name)
        self.raw_bits = raw_bits
        self.dev_node = dev_node
        self.major = major
        self.initial = {ACCEL: tuple(initial_accel), GYRO: tuple(initial_gyro)}
        self.extra_attrs = dict(extra_attrs or {})
        self.extra_properties = dict(extra_properties or {})

    @property
    def node(self):
        return 'iio:device%d' % self.index

    def channels(self, kind):
        return ['%s_%s' % (kind, a) for a in 'xyz'] if self.has[kind] else []

    def frame(self):
        """(accelerometer matrix, gyroscope matrix, source) the daemon derives for this device on
        its own (no config override): udev ACCEL_MOUNT_MATRIX by the hwdb rule, else the first
        of `mount_matrix`, `in_accel_mount_matrix`, `in_mount_matrix` by the kernel rule, else the
        identity. A gyroscope uses the same frame; its own kernel matrix counts only where the
        accelerometer has none (or on a gyroscope-only device)."""
        def kernel(kind):
            for attr in ('mount_matrix', 'in_%s_mount_matrix' % kind, 'in_mount_matrix'):
                if attr in self.matrix_attrs:
                    return kernel_frame(parse_mount_matrix(self.matrix_attrs[attr]))
            return None
        if self.udev_mount_matrix is not None and self.has[ACCEL]:
            accel, gyro = hwdb_frame(parse_mount_matrix(self.udev_mount_matrix))
            return accel, gyro, 'hwdb'
        found = kernel(ACCEL) if self.has[ACCEL] else None
        if found is not None:
            return found[0], found[1], 'kernel'
        own = kernel(GYRO) if self.has[GYRO] else None
        return IDENTITY, own[1] if own else IDENTITY, 'kernel' if own else 'identity'

    def matrix_for(self, kind):
        """Matrix from raw values to the device frame for `kind` (ACCEL or GYRO): the chip's
        physics when `chip_rotation` is given, else the frame the daemon derives (frame())."""
        if self.chip_rotation is not None:
            accel, gyro = chip_frame(self.chip_rotation)
        else:
            accel, gyro, _ = self.frame()
        return accel if kind == ACCEL else gyro

    def channel_scale_of(self, channel):
        kind = channel.rsplit('_', 1)[0]
        return self.channel_scale.get(channel, self.scale[kind])

    def channel_offset_of(self, channel):
        kind = channel.rsplit('_', 1)[0]
        if channel in self.channel_offset:
            return self.channel_offset[channel]
        return self.offset[kind] or 0.0

    def raw_values(self, kind, v_device):
        """{attribute: raw text} for a device-frame SI vector: v_sensor = M⁻¹·v_device, then
        raw = round(v/scale − offset) per channel, clamped to the sensor's signed range."""
        if not self.has[kind]:
            raise HarnessError('%s has no %s channels' % (self.name, kind))
        v_sensor = mat_vec(mat_inverse(self.matrix_for(kind)), v_device)
        limit = 2 ** (self.raw_bits - 1) if self.raw_bits else None
        out = {}
        for channel, v in zip(self.channels(kind), v_sensor):
            raw = int(round(v / self.channel_scale_of(channel) - self.channel_offset_of(channel)))
            if limit is not None:
                raw = max(-limit, min(limit - 1, raw))
            out['in_%s_raw' % channel] = str(raw)
        return out

    def value_from_raw(self, kind, raws):
        """Inverse of raw_values (device-frame SI vector from raw integers), for self-checks."""
        v_sensor = tuple((raw + self.channel_offset_of(ch)) * self.channel_scale_of(ch)
                         for ch, raw in zip(self.channels(kind), raws))
        return mat_vec(self.matrix_for(kind), v_sensor)

    def attributes(self):
        """All sysfs attributes of the device as {name: text without trailing newline}."""
        attrs = {'dev': '%d:%d' % (self.major, self.index), 'name': self.name}
        if self.sampling_frequency is not None:
            attrs[self.sampling_frequency_attr] = '%f' % self.sampling_frequency
            if self.sampling_frequency_available:
                attrs[self.sampling_frequency_attr + '_available'] = self.sampling_frequency_available
        for kind in (ACCEL, GYRO):
            if not self.has[kind]:
                continue
            attrs.update(self.raw_values(kind, self.initial[kind]))
            attrs['in_%s_scale' % kind] = _num(self.scale[kind])
            if self.offset[kind] is not None:
                attrs['in_%s_offset' % kind] = _num(self.offset[kind])
            for ch in self.channels(kind):
                if ch in self.channel_scale:
                    attrs['in_%s_scale' % ch] = _num(self.channel_scale[ch])
                if ch in self.channel_offset:
                    attrs['in_%s_offset' % ch] = _num(self.channel_offset[ch])
        attrs.update(self.matrix_attrs)
        attrs.update(self.extra_attrs)
        return attrs

    def properties(self):
        props = {'SUBSYSTEM': 'iio', 'DEVTYPE': 'iio_device'}
        if self.dev_node:
            props.update({'DEVNAME': '/dev/' + self.node, 'MAJOR': str(self.major), 'MINOR': str(self.index)})
        if self.udev_mount_matrix is not None:
            props['ACCEL_MOUNT_MATRIX'] = self.udev_mount_matrix
        props.update(self.extra_properties)
        return props

    def to_umockdev(self):
        """The umockdev description (P:, N:, E:, A: lines)."""
        lines = ['P: ' + self.sysfs_path]
        if self.dev_node:
            lines.append('N: ' + self.node)  # no value: umockdev makes it a PTY (Tests/integration/README.md)
        lines += ['E: %s=%s' % kv for kv in self.properties().items()]
        lines += ['A: %s=%s\\n' % (k, v) for k, v in self.attributes().items()]
        return '\n'.join(lines) + '\n'


def bmi160(index=0, **kw):
    """A combined accelerometer + gyroscope like Bosch BMI160 on a platform bus (±2 g, ±2000 °/s)."""
    return IIODevice('bmi160', index, **kw)


def bmi160_16g(index=0, **kw):
    """BMI160 configured for ±16 g: real recordings reach several g (the NGIMU trace peaks at ≈7 g)."""
    kw.setdefault('accel_scale', 0.004788)
    return IIODevice('bmi160', index, **kw)


HID_PARENT = '/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/0003:8087:0AC2.0001'


def hid_accel_3d(index=0, **kw):
    """HID sensor hub accelerometer (separate IIO device; raw in units of 0.01 m/s² here)."""
    kw.setdefault('sysfs_path', '%s/HID-SENSOR-200073.%d.auto/iio:device%d' % (HID_PARENT, index, index))
    kw.setdefault('accel_scale', 0.01)
    kw.setdefault('accel_offset', 0)
    kw.setdefault('sampling_frequency_attr', 'in_accel_sampling_frequency')
    kw.setdefault('sampling_frequency_available', None)
    kw.setdefault('raw_bits', 32)
    return IIODevice('accel_3d', index, gyro=False, **kw)


def hid_gyro_3d(index=1, **kw):
    """HID sensor hub gyroscope (separate IIO device; raw in units of 0.001 rad/s here)."""
    kw.setdefault('sysfs_path', '%s/HID-SENSOR-200076.%d.auto/iio:device%d' % (HID_PARENT, index, index))
    kw.setdefault('gyro_scale', 0.001)
    kw.setdefault('gyro_offset', 0)
    kw.setdefault('sampling_frequency_attr', 'in_anglvel_sampling_frequency')
    kw.setdefault('sampling_frequency_available', None)
    kw.setdefault('raw_bits', 32)
    return IIODevice('gyro_3d', index, accel=False, **kw)


class Testbed:
    """A umockdev testbed with IIO devices whose raw values tests can change while the daemon runs."""

    def __init__(self):
        try:
            import gi
            gi.require_version('UMockdev', '1.0')
            from gi.repository import UMockdev
        except (ImportError, ValueError) as e:
            raise HarnessError('UMockdev GI bindings missing (use /usr/bin/python3; apt-get install '
                               'gir1.2-umockdev-1.0 python3-gi umockdev): %s' % e)
        self._tb = UMockdev.Testbed.new()
        self.root = self._tb.get_root_dir()
        self.devices = []
        # Last device-frame value written per (device, kind), for partial updates.
        self._last = {}
        self._removed_nodes = set()
        self._lock = threading.Lock()

    def env(self):
        """Environment entries that make a child process see this testbed instead of real sysfs."""
        return {'LD_PRELOAD': 'libumockdev-preload.so.0', 'UMOCKDEV_DIR': self.root}

    def add(self, device):
        if any(d.index == device.index for d in self.devices):
            raise HarnessError('device index %d is used twice' % device.index)
        if device.dev_node and device.node in self._removed_nodes:
            # umockdev 0.17 keeps the PTY of a removed node and aborts the process on re-adding it;
            # a replugged sensor gets a new index on real hardware too.
            raise HarnessError('%s was removed; add the device again with another index' % device.node)
        self._tb.add_from_string(device.to_umockdev())
        self.devices.append(device)
        for kind in (ACCEL, GYRO):
            if device.has[kind]:
                self._last[(id(device), kind)] = device.initial[kind]
        return device

    def remove(self, device):
        """Unplug: remove the device from sysfs. No uevent reaches the daemon (umockdev can only
        send uevents from a process that runs under its preload itself), so a daemon notices the
        loss by failing reads and the return by rescanning."""
        self._tb.remove_device(self.syspath(device))
        self.devices.remove(device)
        if device.dev_node:
            self._removed_nodes.add(device.node)

    def syspath(self, device):
        return '/sys' + device.sysfs_path

    def attr_path(self, device, attr):
        return os.path.join(self.root + '/sys' + device.sysfs_path, attr)

    def set_raw(self, device, attr, value):
        """Write an attribute IN PLACE (same inode), as the kernel's sysfs would change it.

        GI's Testbed.set_attribute replaces the file, which a reader holding the fd open (pread)
        never notices (Tests/integration/README.md). One pwrite of the new text padded with NULs to the old length
        (libiio itself leaves NULs in attribute files, readers stop there), then a truncate: a
        concurrent reader sees the old text, the new one with NUL padding, or the new one,
        never an empty file or a mix of digits."""
        path = self.attr_path(device, attr)
        data = (str(value) + '\n').encode()
        with self._lock:
            fd = os.open(path, os.O_RDWR)
            try:
                old_len = os.fstat(fd).st_size
                os.pwrite(fd, data + b'\0' * max(0, old_len - len(data)), 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)

    def get_raw(self, device, attr):
        with open(self.attr_path(device, attr), 'rb') as f:
            return f.read().split(b'\0', 1)[0].decode().strip()

    def set_vector(self, device, kind, v_device):
        """Set a sensor to a device-frame SI vector; None components keep their previous value."""
        key = (id(device), kind)
        if key not in self._last:
            raise HarnessError('%s has no %s channels (or is not in this testbed)' % (device.name, kind))
        v = tuple(old if new is None else float(new) for old, new in zip(self._last[key], v_device))
        for attr, raw in device.raw_values(kind, v).items():
            self.set_raw(device, attr, raw)
        self._last[key] = v
        return v

    def set_accel(self, device, v_device):
        """Accelerometer to `v_device` (m/s², device frame, direction of gravity)."""
        return self.set_vector(device, ACCEL, v_device)

    def set_gyro(self, device, w_device):
        """Gyroscope to `w_device` (rad/s, device frame)."""
        return self.set_vector(device, GYRO, w_device)

    def last(self, device, kind):
        return self._last[(id(device), kind)]

    def close(self):
        """Drop the testbed (umockdev removes its directory). Stop daemons using it first."""
        self._tb = None
        self.devices = []


# ---------------------------------------------------------------------------------------------
# Binaries

def find_binary(name, env_var=None):
    """Path of a built executable: $PARALLAXD / $PARALLAXCTL, else $PARALLAX_BIN_DIR/name, else
    REPO/.build/debug/name. Returns the path whether or not it exists (see binary_missing)."""
    env_var = env_var or name.upper()
    if os.environ.get(env_var):
        return os.path.abspath(os.environ[env_var])
    bin_dir = os.environ.get('PARALLAX_BIN_DIR') or os.path.join(REPO_ROOT, '.build', 'debug')
    return os.path.join(os.path.abspath(bin_dir), name)


def binary_missing(path):
    """A reason string when `path` is not an executable file, else None."""
    if not os.path.isfile(path):
        return '%s not built (swift build first, or set PARALLAXD / PARALLAXCTL / PARALLAX_BIN_DIR)' % path
    if not os.access(path, os.X_OK):
        return '%s is not executable' % path
    return None


# ---------------------------------------------------------------------------------------------
# sd_notify receiver

class NotifySocket:
    """An AF_UNIX datagram socket standing in for systemd's NOTIFY_SOCKET; collects every message
    in a background thread so tests can wait for READY=1, WATCHDOG=1, STOPPING=1… by event."""

    def __init__(self, path):
        self.path = path
        if os.path.exists(path):
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.messages = []          # (monotonic arrival, {key: value}, raw text)
        self._cond = threading.Condition()
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name='notify', daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            r, _, _ = select.select([self.sock, self._stop_r], [], [])
            if self._stop_r in r:
                return
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            text = data.decode('utf-8', 'replace')
            fields = {}
            for line in text.split('\n'):
                if '=' in line:
                    k, v = line.split('=', 1)
                    fields[k] = v
            with self._cond:
                self.messages.append((time.monotonic(), fields, text))
                self._cond.notify_all()

    def wait_for(self, pred, timeout, since=0, abort=None):
        """First message (index ≥ since) whose fields satisfy pred, or None on timeout.
        `abort()` is checked between wakeups (e.g. 'the process died')."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for _, fields, _ in self.messages[since:]:
                    if pred(fields):
                        return fields
                since = len(self.messages)
                left = end - time.monotonic()
                if left <= 0 or (abort is not None and abort()):
                    return None
                # Short waits only so a dead process is noticed; messages wake us at once.
                self._cond.wait(min(left, 0.1))

    def count(self):
        with self._cond:
            return len(self.messages)

    def close(self):
        os.write(self._stop_w, b'x')
        self._thread.join(2)
        self.sock.close()
        os.close(self._stop_r)
        os.close(self._stop_w)
        try:
            os.unlink(self.path)
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------
# The daemon process

class DaemonError(Exception):
    pass


# PR_SET_PDEATHSIG from <linux/prctl.h>: the kernel signals the child when the harness dies, so a
# crashed test run leaves no daemon behind.
_PR_SET_PDEATHSIG = 1
try:
    import ctypes
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def _die_with_parent():
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Daemon:
    """parallaxd as a child process under the umockdev preload, with readiness by sd_notify.

    daemon = Daemon(workdir, testbed).start()   # returns after READY=1 (or raises DaemonError)
    client = daemon.connect()
    rc = daemon.stop()                          # SIGTERM; 0 is a clean shutdown
    """

    def __init__(self, workdir, testbed=None, *, binary=None, socket_path=None, config='/dev/null',
                 source='auto', log_level='debug', extra_args=(), args=None, env=None,
                 watchdog_usec=None):
        self.workdir = workdir
        self.testbed = testbed
        self.binary = binary or find_binary('parallaxd')
        self.socket_path = socket_path or os.path.join(workdir, 'parallaxd.sock')
        self.config = config
        if args is None:
            args = ['--socket', self.socket_path]
            if config is not None:
                args += ['--config', config]
            if source is not None:
                args += ['--source', source]
            if log_level is not None:
                args += ['--log-level', log_level]
            args += list(extra_args)
        self.args = list(args)
        self.extra_env = dict(env or {})
        self.watchdog_usec = watchdog_usec
        self.stderr_path = os.path.join(workdir, 'parallaxd.stderr')
        self.stdout_path = os.path.join(workdir, 'parallaxd.stdout')
        self.notify = None
        self.proc = None
        self.returncode = None
        self.clients = []

    def environment(self):
        env = dict(os.environ)
        # Never inherit systemd's variables from whatever runs the tests.
        for k in ('NOTIFY_SOCKET', 'LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES', 'WATCHDOG_USEC',
                  'WATCHDOG_PID', 'PARALLAXD_SOCKET', 'LD_PRELOAD', 'UMOCKDEV_DIR'):
            env.pop(k, None)
        if self.testbed is not None:
            env.update(self.testbed.env())
        env['NOTIFY_SOCKET'] = self.notify.path
        if self.watchdog_usec is not None:
            env['WATCHDOG_USEC'] = str(int(self.watchdog_usec))
        env.update(self.extra_env)
        return env

    def start(self, timeout=READY_TIMEOUT, wait_ready=True):
        why = binary_missing(self.binary)
        if why:
            raise DaemonError(why)
        self.notify = NotifySocket(os.path.join(self.workdir, 'notify.sock'))
        self._stderr = open(self.stderr_path, 'wb')
        self._stdout = open(self.stdout_path, 'wb')
        self.proc = subprocess.Popen([self.binary] + self.args, env=self.environment(),
                                     stdin=subprocess.DEVNULL, stdout=self._stdout,
                                     stderr=self._stderr, cwd=self.workdir,
                                     preexec_fn=_die_with_parent)
        if wait_ready:
            self.wait_ready(timeout)
        return self

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout=READY_TIMEOUT):
        got = self.notify.wait_for(lambda f: f.get('READY') == '1', timeout, abort=lambda: not self.alive())
        if got is None:
            if not self.alive():
                raise DaemonError('parallaxd exited with %s before READY=1\n%s'
                                  % (self.proc.returncode, self.stderr_tail()))
            raise DaemonError('parallaxd sent no READY=1 within %.0f s\n%s' % (timeout, self.stderr_tail()))
        return got

    def notify_messages(self):
        """Every sd_notify message so far, as {key: value} dicts."""
        return [fields for _, fields, _ in list(self.notify.messages)]

    def wait_notify(self, pred, timeout, since=0):
        return self.notify.wait_for(pred, timeout, since=since, abort=lambda: not self.alive())

    def connect(self, timeout=5.0, wait_hello=True):
        c = Client(self.socket_path, timeout=timeout)
        self.clients.append(c)
        if wait_hello and c.wait_hello(timeout) is None:
            raise DaemonError('no hello within %.0f s\n%s' % (timeout, self.stderr_tail()))
        return c

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, timeout=STOP_TIMEOUT):
        """SIGTERM, wait; SIGKILL if it does not exit. Returns the exit code (0 = clean;
        negative = killed by that signal; KILLED when SIGTERM was not enough)."""
        if self.proc is None:
            return None
        for c in self.clients:
            c.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.returncode = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self.returncode = KILLED
        else:
            self.returncode = self.proc.returncode
        self._close_files()
        return self.returncode

    def _close_files(self):
        for f in (getattr(self, '_stderr', None), getattr(self, '_stdout', None)):
            if f and not f.closed:
                f.close()
        if self.notify is not None:
            self.notify.close()
            self.notify = None

    def finish(self, failed, extra_log=None):
        """Test teardown: SIGTERM (if started), print the log when the test failed or the exit was
        not clean, and return the problems found: an exit code other than 0, protocol violations
        any client of this daemon saw. `extra_log` is printed alongside (another process's log)."""
        violations = [v for c in self.clients for v in c.violations]
        rc = self.stop() if self.proc is not None else 0   # None: never started
        if failed or rc != 0:
            print(self.stderr_tail(80))
            if extra_log:
                print(extra_log())
        problems = []
        if rc != 0:
            problems.append('parallaxd exit code on SIGTERM: %s (expected 0)' % rc)
        if violations:
            problems.append('protocol violations seen by clients: %s' % violations[:5])
        return problems

    def stderr_text(self):
        try:
            with open(self.stderr_path, 'rb') as f:
                return f.read().decode('utf-8', 'replace')
        except OSError:
            return ''

    def stderr_tail(self, lines=40):
        text = self.stderr_text().splitlines()
        return '--- parallaxd stderr (last %d lines) ---\n%s' % (lines, '\n'.join(text[-lines:]))


# ---------------------------------------------------------------------------------------------
# Protocol v1 client

def _reject_constant(name):
    raise ValueError('non-finite number %s on the wire' % name)


class Client:
    """A protocol v1 client (JSON lines over a Unix stream socket), strict about what it receives:
    invalid UTF-8, invalid JSON, NaN/Infinity, non-objects or objects without "type" are recorded
    in `violations` (tests assert it stays empty)."""

    def __init__(self, path, timeout=5.0):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self.buf = b''
        self.objects = []           # every object received, in order
        self.frames = []            # (monotonic arrival, offset object)
        self.violations = []        # protocol violations seen
        self.hello = None
        self.closed_by_server = False
        self.closed = False
        self._cursor = 0            # objects before this index have been examined by a wait

    # -- sending
    def send(self, obj_or_line):
        """Send a dict as one JSON line, or str/bytes as given (a '\\n' is added if missing)."""
        if isinstance(obj_or_line, dict):
            line = json.dumps(obj_or_line, separators=(',', ':')).encode()
        elif isinstance(obj_or_line, str):
            line = obj_or_line.encode()
        else:
            line = bytes(obj_or_line)
        if not line.endswith(b'\n'):
            line += b'\n'
        self.sock.setblocking(True)
        try:
            self.sock.sendall(line)
        finally:
            self.sock.setblocking(False)

    # -- receiving
    def _take(self, line):
        try:
            text = line.decode('utf-8')
        except UnicodeDecodeError:
            self.violations.append('invalid UTF-8: %r' % line[:200])
            return None
        try:
            obj = json.loads(text, parse_constant=_reject_constant)
        except ValueError as e:
            self.violations.append('invalid JSON (%s): %r' % (e, text[:200]))
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get('type'), str):
            self.violations.append('not an object with "type": %r' % text[:200])
            return None
        if obj['type'] == 'offset':
            problem = offset_problem(obj)
            if problem:
                self.violations.append('%s: %r' % (problem, text[:200]))
            self.frames.append((time.monotonic(), obj))
        if obj['type'] == 'hello' and self.hello is None:
            self.hello = obj
        self.objects.append(obj)
        return obj

    def pump(self, seconds):
        """Read for up to `seconds` (returns early only when the server closes); returns the new
        objects. Pumped objects count as examined: later wait_for calls start after them."""
        first = len(self.objects)
        end = time.monotonic() + seconds
        while not self.closed_by_server:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                break
            self._read_available()
        self._cursor = len(self.objects)
        return self.objects[first:]

    def _read_available(self):
        """Receive what is there and parse complete lines into self.objects."""
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except ConnectionResetError:
            data = b''
        if not data:
            self.closed_by_server = True
            if self.buf:
                self.violations.append('connection closed inside a line: %r' % self.buf[:200])
                self.buf = b''
            return
        self.buf += data
        while b'\n' in self.buf:
            line, self.buf = self.buf.split(b'\n', 1)
            self._take(line)

    def mark(self):
        """A position in the received objects, for wait_for(..., since=mark)."""
        return len(self.objects)

    def wait_for(self, pred, timeout, old=False, since=None):
        """The first object satisfying pred, or None on timeout or when the server closes.

        Objects are examined like a queue: by default from the first one no earlier wait_for or
        pump has examined (objects that arrived in the same read as an earlier match stay
        available); from index `since` with since=, from the very first with old=True.
        Event-driven (select), no sleeping."""
        i = 0 if old else (since if since is not None else self._cursor)
        end = time.monotonic() + timeout
        while True:
            while i < len(self.objects):
                obj = self.objects[i]
                i += 1
                if pred(obj):
                    self._cursor = max(self._cursor, i)
                    return obj
            self._cursor = max(self._cursor, i)
            left = end - time.monotonic()
            if self.closed_by_server or left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return None
            self._read_available()

    def wait_type(self, type_, timeout, old=False):
        return self.wait_for(lambda o: o.get('type') == type_, timeout, old=old)

    def wait_hello(self, timeout=5.0):
        return self.wait_type('hello', timeout, old=True)

    def wait_closed(self, timeout):
        """True when the server closes the connection within `timeout`."""
        self.wait_for(lambda o: False, timeout)
        return self.closed_by_server

    def request(self, obj, expect, timeout=5.0):
        """Send a command and wait for its reply: an object of type in `expect` (str or tuple) or
        an error. Offset and state lines arriving meanwhile are collected as usual."""
        expect = (expect,) if isinstance(expect, str) else tuple(expect)
        mark = self.mark()  # nothing received before sending can be the reply
        self.send(obj)
        return self.wait_for(lambda o: o.get('type') in expect + ('error',), timeout, since=mark)

    def subscribe(self, rate=60, rotation=0, timeout=5.0, **extra):
        cmd = {'cmd': 'subscribe', 'rate': rate, 'rotation': rotation}
        cmd.update(extra)
        return self.request(cmd, 'subscribed', timeout)

    def status(self, timeout=5.0):
        return self.request({'cmd': 'status'}, 'status', timeout)

    # -- offsets
    @property
    def latest(self):
        return self.frames[-1][1] if self.frames else None

    def offsets(self):
        return [o for _, o in self.frames]

    def wait_offset(self, pred, timeout):
        """The first offset frame from now on with pred(x, y) true, or None."""
        return self.wait_for(lambda o: o.get('type') == 'offset' and pred(o['x'], o['y']), timeout)

    def settle(self, quiet=0.5, timeout=8.0):
        """Wait until no offset frame arrives for `quiet` seconds; True if that happened in time.
        Used before a motion so the start-up transient (if any) is over."""
        end = time.monotonic() + timeout
        while end - time.monotonic() >= quiet:
            if self.wait_for(lambda o: o.get('type') == 'offset', quiet) is None:
                return not self.closed_by_server
        return False

    def close(self):
        if not self.closed:
            self.closed = True
            self.sock.close()


def offset_problem(obj):
    """What is wrong with an offset frame's fields (docs/protocol.md "offset"), or None."""
    for k in ('seq', 't', 'x', 'y', 'vx', 'vy'):
        v = obj.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return 'offset field %s missing or not a number' % k
    if not all(math.isfinite(obj[k]) for k in ('x', 'y', 'vx', 'vy')):
        return 'non-finite offset or velocity'
    if not (-1.0 <= obj['x'] <= 1.0 and -1.0 <= obj['y'] <= 1.0):
        return 'offset outside [-1, 1]'
    return None


# ---------------------------------------------------------------------------------------------
# Traces and motion

class Row:
    """One trace row: t_ns and optional accel / gyro vectors (None components: no new value)."""
    __slots__ = ('t_ns', 'accel', 'gyro')

    def __init__(self, t_ns, accel=None, gyro=None):
        self.t_ns = int(t_ns)
        self.accel = tuple(accel) if accel is not None else None
        self.gyro = tuple(gyro) if gyro is not None else None

    def __repr__(self):
        return 'Row(%d, %r, %r)' % (self.t_ns, self.accel, self.gyro)


TRACE_HEADER = ['t_ns', 'ax', 'ay', 'az', 'gx', 'gy', 'gz']


def read_trace(path):
    """(comment lines, [Row]) from a trace file (docs/trace-format.md)."""
    comments, rows, header_seen = [], [], False
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not header_seen:
                if line.startswith('#'):
                    comments.append(line[1:].strip())
                    continue
                if [c.strip() for c in line.split(',')] != TRACE_HEADER:
                    raise HarnessError('%s:%d: expected header %s' % (path, n, ','.join(TRACE_HEADER)))
                header_seen = True
                continue
            if not line.strip():
                continue
            fields = line.split(',')
            if len(fields) != 7:
                raise HarnessError('%s:%d: expected 7 fields' % (path, n))
            vals = [float(x) if x.strip() else None for x in fields[1:]]
            accel = vals[0:3] if any(v is not None for v in vals[0:3]) else None
            gyro = vals[3:6] if any(v is not None for v in vals[3:6]) else None
            rows.append(Row(int(fields[0]), accel, gyro))
    if not header_seen:
        raise HarnessError('%s: no header row' % path)
    return comments, rows


def write_trace(path, rows, comments=()):
    def f(v):
        return '' if v is None else repr(float(v))
    with open(path, 'w') as out:
        for c in comments:
            out.write('# %s\n' % c)
        out.write(','.join(TRACE_HEADER) + '\n')
        for r in rows:
            a = r.accel if r.accel is not None else (None,) * 3
            g = r.gyro if r.gyro is not None else (None,) * 3
            out.write(','.join([str(r.t_ns)] + [f(v) for v in a + g]) + '\n')


def rotation_rows(accel_start, axis, degrees, seconds, rate_hz=200.0):
    """Rows for a physically consistent turn of the device about its own `axis` ('x', '-y', or a
    vector) by `degrees` at a constant rate over `seconds`: the gyroscope reads ω·axis for the whole
    turn and 0 at the end, the accelerometer follows gravity as it turns (unchanged when the axis is
    parallel to gravity). t_ns starts at 0. Returns (rows, accel_end)."""
    k = _unit(axis)
    omega = math.radians(degrees) / seconds
    n = max(1, int(round(seconds * rate_hz)))
    rows = []
    for i in range(n):
        t = seconds * i / n
        rows.append(Row(int(t * 1e9), gravity_after_rotation(accel_start, k, math.degrees(omega * t)),
                        tuple(omega * x for x in k)))
    accel_end = gravity_after_rotation(accel_start, k, degrees)
    rows.append(Row(int(seconds * 1e9), accel_end, (0.0, 0.0, 0.0)))
    return rows, accel_end


class TracePlayer:
    """Plays trace rows into emulated devices at the trace's timing (÷ speed), in a thread.

    Accel goes to `accel_dev`, gyro to `gyro_dev` (the same device for a combined IMU, None to drop
    that sensor). Empty fields keep the previous value. start()/stop()/join(); run() plays
    synchronously (for short synthetic motions)."""

    def __init__(self, testbed, accel_dev, gyro_dev=None, trace=None, *, speed=1.0, loop=False):
        self.testbed = testbed
        self.accel_dev = accel_dev
        self.gyro_dev = gyro_dev
        if isinstance(trace, (str, os.PathLike)):
            self.comments, self.rows = read_trace(trace)
        else:
            self.comments, self.rows = [], list(trace or [])
        if not self.rows:
            raise HarnessError('empty trace')
        if speed <= 0:
            raise HarnessError('speed must be > 0')
        self.speed = speed
        self.loop = loop
        self.rows_played = 0
        self.loops = 0
        self.error = None
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread = None

    def _apply(self, row):
        if row.accel is not None and self.accel_dev is not None:
            self.testbed.set_accel(self.accel_dev, row.accel)
        if row.gyro is not None and self.gyro_dev is not None:
            self.testbed.set_gyro(self.gyro_dev, row.gyro)
        self.rows_played += 1

    def run(self):
        """Play in the calling thread until the end (or stop())."""
        try:
            while not self._stop.is_set():
                start = time.monotonic()
                t0 = self.rows[0].t_ns
                for row in self.rows:
                    due = start + (row.t_ns - t0) / 1e9 / self.speed
                    delay = due - time.monotonic()
                    # The wait is the motion's own timing, interruptible by stop().
                    if delay > 0 and self._stop.wait(delay):
                        return
                    self._apply(row)
                self.loops += 1
                if not self.loop:
                    return
        except BaseException as e:  # reported by join()
            self.error = e
            raise
        finally:
            self.finished.set()

    def start(self):
        self._thread = threading.Thread(target=self._run_quiet, name='trace-player', daemon=True)
        self._thread.start()
        return self

    def _run_quiet(self):
        try:
            self.run()
        except BaseException:
            pass

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.error is not None:
            raise self.error

    def join(self, timeout=None):
        """Wait for the end of a non-looping trace; True if it finished. Raises the player's error."""
        done = self.finished.wait(timeout)
        if self.error is not None:
            raise self.error
        return done

    @property
    def duration(self):
        return (self.rows[-1].t_ns - self.rows[0].t_ns) / 1e9 / self.speed


def turn(testbed, accel_dev, gyro_dev, axis, degrees, seconds=0.25, start=None):
    """Turn the emulated device about its own axis (synchronously; see rotation_rows). Returns
    the accelerometer vector at the end. `start` defaults to the accelerometer's current value."""
    if start is None:
        start = testbed.last(accel_dev, ACCEL) if accel_dev is not None else UPRIGHT
    rows, end = rotation_rows(start, axis, degrees, seconds)
    TracePlayer(testbed, accel_dev, gyro_dev, rows).run()
    return end


# ---------------------------------------------------------------------------------------------
# Buffered capture (Tests/integration/README.md "Buffered capture"): scan elements, a trigger and a PTY device
# node that a ScanFeeder fills with packed scans once the daemon has enabled the buffer.

def parse_scan_type(text):
    """'le:s12/16>>4' → (big_endian, signed, bits, storage_bits, shift)."""
    endian, rest = text.split(':')
    sign, rest = rest[0], rest[1:]
    sizes, _, shift = rest.partition('>>')
    bits, storage = sizes.split('/')
    return endian == 'be', sign in 'sS', int(bits), int(storage), int(shift or 0)


def encode_scan_value(value, scan_type):
    """One channel's bytes as the kernel stores them: value masked to `bits`, shifted left by
    `shift`, in `storage` bits of the given endianness."""
    big_endian, signed, bits, storage, shift = parse_scan_type(scan_type)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        raise HarnessError('%d does not fit %s' % (value, scan_type))
    word = (value & ((1 << bits) - 1)) << shift
    return word.to_bytes(storage // 8, 'big' if big_endian else 'little')


class BufferedIIODevice(IIODevice):
    """An IIODevice with scan elements, buffer attributes, a trigger and a PTY node.

    accel_type / gyro_type: sysfs scan types ('le:s16/16>>0', 'be:u12/16>>4', …); an unsigned
    type stores raw values offset by `unsigned_bias` so that they stay ≥ 0 (the bias is declared
    as the channel offset, so the SI value is unchanged). timestamp_clock: the device's
    `current_timestamp_clock` (None: no such attribute). trigger_name: a trigger device in the
    context (None: none); current_trigger: what trigger/current_trigger holds at the start;
    trigger_dir=False: no trigger/ directory (a device with its own FIFO needs no trigger)."""

    def __init__(self, name, index=0, *, accel_type='le:s16/16>>0', gyro_type='le:s16/16>>0',
                 timestamp=True, timestamp_clock='monotonic', trigger_name='', current_trigger='',
                 trigger_index=None, trigger_dir=True, unsigned_bias=None, **kw):
        self.scan_types = {ACCEL: accel_type, GYRO: gyro_type}
        for kind in (ACCEL, GYRO):
            if not parse_scan_type(self.scan_types[kind])[1] and unsigned_bias is not None:
                kw.setdefault('%s_offset' % ('accel' if kind == ACCEL else 'gyro'), -unsigned_bias)
        if 'raw_bits' not in kw:
            # Raw values clamp to what the accelerometer's scan type holds (unsigned: checked on packing).
            _, signed, bits, _, _ = parse_scan_type(accel_type)
            kw['raw_bits'] = bits if signed else None
        super().__init__(name, index, **kw)
        self.timestamp = timestamp
        self.timestamp_clock = timestamp_clock
        self.trigger_name = '%s-dev%d' % (name, index) if trigger_name == '' else trigger_name
        self.current_trigger = current_trigger
        self.trigger_index = index if trigger_index is None else trigger_index
        self.trigger_dir = trigger_dir

    def scan_channels(self):
        """[(channel, scan type)] in scan index order: accel x y z, gyro x y z, timestamp."""
        out = []
        for kind in (ACCEL, GYRO):
            out += [(ch, self.scan_types[kind]) for ch in self.channels(kind)]
        if self.timestamp:
            out.append(('timestamp', 'le:s64/64>>0'))
        return out

    def attributes(self):
        attrs = super().attributes()
        for i, (ch, scan_type) in enumerate(self.scan_channels()):
            attrs['scan_elements/in_%s_en' % ch] = '0'
            attrs['scan_elements/in_%s_index' % ch] = str(i)
            attrs['scan_elements/in_%s_type' % ch] = scan_type
        attrs.update({'buffer/enable': '0', 'buffer/length': '0', 'buffer/watermark': '1'})
        if self.trigger_dir:
            attrs['trigger/current_trigger'] = self.current_trigger
        if self.timestamp_clock is not None:
            attrs['current_timestamp_clock'] = self.timestamp_clock
        return attrs

    def to_umockdev(self):
        text = super().to_umockdev()
        if self.trigger_name:
            text += '\nP: /devices/trigger%d\nE: SUBSYSTEM=iio\nA: name=%s\\n\n' % (self.trigger_index, self.trigger_name)
        return text


def buffered_bmi160(index=0, **kw):
    """A bmi160 with its data-ready trigger 'bmi160-devN' and 16-bit little-endian scans."""
    return BufferedIIODevice('bmi160', index, **kw)


class ScanFeeder:
    """Streams packed scans of a BufferedIIODevice's current values (Testbed.set_accel / set_gyro
    / turn move them) into its PTY at `rate_hz` while the reader has the buffer enabled.

    Packs only the enabled channels in index order, each aligned to its own size, the scan padded
    to its largest element (the kernel's rules). Timestamps are time.monotonic_ns() unless
    `timestamp_of` maps the write time to another value. `written` keeps the recent timestamps.

    follow_device=True makes it a device that does what the reader sets (docs/power.md): scans come
    at the device's `sampling_frequency` (looked at every 5 ms, so a new rate applies within one
    new period) and reach the reader in groups of `buffer/watermark` scans, as the kernel makes
    poll() readable only once a watermark's worth is queued (a PTY has no watermark of its own).
    noise_lsb adds uniform noise of ± that many raw steps to every channel of every scan, a
    still device as sensors report one. `rates` logs (time.monotonic_ns(), rate, watermark)
    whenever they change."""

    # How often a device-following feeder looks at the reader's settings (s).
    FOLLOW_POLL = 0.005

    def __init__(self, testbed, device, rate_hz=200.0, timestamp_of=None, follow_device=False, noise_lsb=0,
                 seed=1):
        import random
        self.testbed = testbed
        self.device = device
        self.period = 1.0 / rate_hz
        self.timestamp_of = timestamp_of or (lambda t_ns: t_ns)
        self.follow_device = follow_device
        self.noise_lsb = noise_lsb
        self._random = random.Random(seed)
        self.written = []
        self.scans = 0
        self.rates = []
        # (timestamp, {channel: raw}) of every scan that reached the reader, when keep_log is set.
        self.keep_log = False
        self.log = []
        self.enabled_seen = threading.Event()
        self._stop = threading.Event()
        self._fd = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._fd = self.testbed._tb.get_dev_fd('/dev/' + self.device.node)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(5.0)

    def enabled_channels(self):
        chans = []
        for ch, scan_type in self.device.scan_channels():
            if self.testbed.get_raw(self.device, 'scan_elements/in_%s_en' % ch) == '1':
                index = int(self.testbed.get_raw(self.device, 'scan_elements/in_%s_index' % ch))
                chans.append((index, ch, scan_type))
        return [(ch, t) for _, ch, t in sorted(chans)]

    def pack(self, channels, values, timestamp):
        out = bytearray()
        largest = 1
        for ch, scan_type in channels:
            size = parse_scan_type(scan_type)[3] // 8
            largest = max(largest, size)
            out += b'\0' * (-len(out) % size)
            out += encode_scan_value(timestamp if ch == 'timestamp' else values[ch], scan_type)
        out += b'\0' * (-len(out) % largest)
        return bytes(out)

    def current_values(self):
        values = {}
        for kind in (ACCEL, GYRO):
            if self.device.has[kind]:
                for attr, raw in self.device.raw_values(kind, self.testbed.last(self.device, kind)).items():
                    noise = self._random.randint(-self.noise_lsb, self.noise_lsb) if self.noise_lsb else 0
                    values[attr[len('in_'):-len('_raw')]] = int(raw) + noise
        return values

    def _write(self, batch):
        os.write(self._fd, b''.join(scan for _, _, scan in batch))
        if self.keep_log:
            self.log += [(stamp, values) for stamp, values, _ in batch]

    def trace_rows(self):
        """The logged scans as trace rows (device frame, SI units), as the reader decodes them."""
        rows = []
        for stamp, values in self.log:
            vectors = {}
            for kind in (ACCEL, GYRO):
                if self.device.has[kind]:
                    raws = [values[ch] for ch in self.device.channels(kind)]
                    vectors[kind] = self.device.value_from_raw(kind, raws)
            rows.append(Row(stamp, vectors.get(ACCEL), vectors.get(GYRO)))
        return rows

    def _device_settings(self):
        """(period s, watermark) the reader has set; the fixed period when not following."""
        if not self.follow_device:
            return self.period, 1
        rates = []
        # Device-wide, or per sensor type: the buffer scans at the fastest of them.
        for attr in ('sampling_frequency', 'in_accel_sampling_frequency', 'in_anglvel_sampling_frequency'):
            try:
                rates.append(float(self.testbed.get_raw(self.device, attr)))
            except (OSError, ValueError):
                pass
        try:
            watermark = int(self.testbed.get_raw(self.device, 'buffer/watermark') or 1)
        except (OSError, ValueError):
            watermark = 1
        rate = max(rates, default=0.0)
        return (1.0 / rate if rate > 0 else self.period), max(1, watermark)

    def _run(self):
        channels = None
        next_t = time.monotonic()
        period, watermark = self._device_settings()
        batch = []
        while not self._stop.is_set():
            if self.testbed.get_raw(self.device, 'buffer/enable') != '1':
                # Disabling a buffer drops what it held (the kernel resets its queue on enable).
                channels = None
                batch = []
                self._stop.wait(0.002)
                next_t = time.monotonic()
                continue
            if channels is None:
                channels = self.enabled_channels()
                self.enabled_seen.set()
            if self.follow_device:
                new_period, new_watermark = self._device_settings()
                if (new_period, new_watermark) != (period, watermark):
                    # A new rate applies from the next scan, one new period after the last.
                    next_t = min(next_t, time.monotonic() + new_period) if new_period < period else next_t
                    period, watermark = new_period, new_watermark
                    self.rates.append((time.monotonic_ns(), 1.0 / period, watermark))
                    if len(batch) >= watermark:
                        self._write(batch)
                        batch = []
            if time.monotonic() >= next_t:
                stamp = self.timestamp_of(time.monotonic_ns())
                values = self.current_values()
                batch.append((stamp, values, self.pack(channels, values, stamp)))
                self.written.append(stamp)
                del self.written[:-2000]
                self.scans += 1
                next_t += period
                if len(batch) >= watermark:
                    self._write(batch)
                    batch = []
            wait = next_t - time.monotonic()
            if self.follow_device:
                wait = min(wait, self.FOLLOW_POLL)
            self._stop.wait(max(0.0, wait))


# ---------------------------------------------------------------------------------------------
# Remote sensors (Tests/integration/README.md "Remote sensors"): iiod serves the umockdev testbed over libiio's
# network protocol inside a private network namespace (iiod 0.24 listens on every address, so it
# must never see a real interface); parallaxd joins the same namespace without the preload and
# can only get its samples over TCP. The test process stays outside and talks to parallaxd over
# its Unix socket (path-bound Unix sockets work across network namespaces).

# iiod's TCP port (libiio's IIOD_PORT).
IIOD_PORT = 30431
# How long iiod gets to listen after it starts (s).
IIOD_LISTEN_TIMEOUT = 10.0
# Interval between looks at the namespace's socket table while waiting for iiod (s).
IIOD_LISTEN_POLL = 0.02
# TCP state code for LISTEN in /proc/net/tcp{,6} (include/net/tcp_states.h).
_TCP_LISTEN = '0A'


def find_system_binary(name):
    """Absolute path of a system tool (iiod lives in /usr/sbin, often outside a user's PATH)."""
    import shutil
    return shutil.which(name, path=os.environ.get('PATH', '') + ':/usr/sbin:/sbin:/usr/bin:/bin')


class NetNamespace:
    """A private network namespace with only loopback, held open by a small process; commands
    join it with nsenter (which execs the program, so a child's pid is the program's pid).

    ns = NetNamespace()
    argv = ns.command(['iiod'])     # runs iiod inside
    ns.close()
    """

    def __init__(self):
        unshare = find_system_binary('unshare')
        self.nsenter = find_system_binary('nsenter')
        if not unshare or not self.nsenter or not find_system_binary('ip'):
            raise HarnessError('unshare, nsenter and ip (util-linux, iproute2) are needed for a network namespace')
        # `cat` on a pipe keeps the namespace alive until close() (or this process's death)
        # closes its stdin; "up" on stdout says loopback is configured.
        self.proc = subprocess.Popen([unshare, '--net', 'sh', '-c', 'ip link set lo up && echo up && exec cat'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        line = self.proc.stdout.readline()
        if line.strip() != b'up':
            self.proc.stdin.close()
            err = self.proc.stderr.read().decode('utf-8', 'replace')
            self.proc.wait(5)
            raise HarnessError('cannot create a network namespace (needs root or user namespaces): %s' % err.strip())
        self.path = '/proc/%d/ns/net' % self.proc.pid

    def command(self, argv):
        return [self.nsenter, '--net=' + self.path, '--'] + list(argv)

    def listening(self, port):
        """True when some socket of this namespace listens on TCP `port` (any address)."""
        for table in ('tcp', 'tcp6'):
            try:
                with open('/proc/%d/net/%s' % (self.proc.pid, table)) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                if len(fields) > 3 and fields[3] == _TCP_LISTEN and int(fields[1].rsplit(':', 1)[1], 16) == port:
                    return True
        return False

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()


class IIOServer:
    """iiod serving a umockdev testbed inside a NetNamespace; start()/kill() may alternate to
    take the remote sensors away and bring them back."""

    def __init__(self, netns, testbed, workdir, binary=None):
        self.netns = netns
        self.testbed = testbed
        self.binary = binary or find_system_binary('iiod')
        if not self.binary:
            raise HarnessError('iiod not found (apt-get install iiod)')
        self.log_path = os.path.join(workdir, 'iiod.log')
        self.proc = None
        self.starts = 0

    def start(self, timeout=IIOD_LISTEN_TIMEOUT):
        """Start iiod under the testbed's preload; return once it listens on IIOD_PORT."""
        if self.netns.listening(IIOD_PORT):
            raise HarnessError('port %d already listens in the namespace' % IIOD_PORT)
        env = dict(os.environ)
        env.update(self.testbed.env())
        self.starts += 1
        with open(self.log_path, 'ab') as log:
            self.proc = subprocess.Popen(self.netns.command([self.binary]), env=env, stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, preexec_fn=_die_with_parent)
        end = time.monotonic() + timeout
        while not self.netns.listening(IIOD_PORT):
            if self.proc.poll() is not None:
                raise HarnessError('iiod exited with %s before listening\n%s' % (self.proc.returncode, self.log_tail()))
            if time.monotonic() > end:
                raise HarnessError('iiod does not listen on port %d after %.0f s\n%s'
                                   % (IIOD_PORT, timeout, self.log_tail()))
            time.sleep(IIOD_LISTEN_POLL)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, timeout=STOP_TIMEOUT):
        """SIGKILL (the remote end vanishes as from a crash or a pulled cable's reset); waits
        until the process is gone and its listening socket with it."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.kill()
        rc = self.proc.wait(timeout)
        self.proc = None
        return rc

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, 'rb') as f:
                text = f.read().decode('utf-8', 'replace').splitlines()
        except OSError:
            text = []
        return '--- iiod log (last %d lines) ---\n%s' % (lines, '\n'.join(text[-lines:]))


def remote_daemon(workdir, netns, host='127.0.0.1', *, binary=None, config='/dev/null', log_level='debug',
                  extra_args=()):
    """A Daemon (not started) that runs parallaxd inside `netns` WITHOUT the umockdev preload,
    reading `--source iio:ip:HOST`: its samples can only come over the network."""
    binary = binary or find_binary('parallaxd')
    args = [binary, '--socket', os.path.join(workdir, 'parallaxd.sock'), '--source', 'iio:ip:' + host,
            '--log-level', log_level]
    if config is not None:
        args += ['--config', config]
    args += list(extra_args)
    d = Daemon(workdir, None, binary=netns.nsenter, args=netns.command(args)[1:])
    d.parallaxd = binary
    return d


# ---------------------------------------------------------------------------------------------
# Socket activation

class SocketActivated:
    """`systemd-socket-activate -l SOCKET` holding the listening socket for parallaxd: the first
    connection starts the daemon with LISTEN_FDS=1 (the activator execs it, so it keeps this pid).
    `env` is passed with -E; stderr is collected in `log`. start() returns once the activator
    listens (its own "Listening on" line: an event, not a sleep)."""

    def __init__(self, binary, socket_path, env, args):
        self.socket_path = socket_path
        env_args = []
        for k, v in env.items():
            env_args += ['-E', '%s=%s' % (k, v)]
        self.argv = ['systemd-socket-activate', '-l', socket_path] + env_args + [binary] + list(args)
        self.proc = None
        self.log = []
        self._listening = threading.Event()

    def start(self, timeout=10.0):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=_die_with_parent)

        def drain():
            for line in self.proc.stderr:
                self.log.append(line.decode('utf-8', 'replace'))
                if 'Listening on' in self.log[-1]:
                    self._listening.set()
            self._listening.set()

        threading.Thread(target=drain, daemon=True).start()
        if not self._listening.wait(timeout) or self.proc.poll() is not None:
            raise HarnessError('systemd-socket-activate did not listen:\n' + self.text())
        return self

    def text(self, lines=40):
        return ''.join(self.log[-lines:])

    def stop(self, timeout=10.0):
        """SIGTERM (reaching parallaxd once it has started); kill after `timeout`. The exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return KILLED
