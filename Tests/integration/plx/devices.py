"""Emulated IIO devices: IIODevice (a device description rendered as umockdev text) and the
models the tests use (BMI160, HID sensor hub accelerometer and gyroscope)."""
from .common import ACCEL, GYRO, UPRIGHT, HarnessError
from .geometry import (IDENTITY, _num, chip_frame, hwdb_frame, kernel_frame, mat_det, mat_inverse, mat_vec,
                       parse_mount_matrix)


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
                 extra_attrs=None, extra_properties=None, sysfs_raw=True):
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
        # False: `in_*_raw` hold UNREADABLE_RAW and never follow the values a test sets (a
        # buffered reader must not need them: a value read from them would be garbage).
        self.sysfs_raw = sysfs_raw

    @property
    def node(self):
        return 'iio:device%d' % self.index

    def channels(self, kind):
        return ['%s_%s' % (kind, a) for a in 'xyz'] if self.has[kind] else []

    def frame(self):
        """(accelerometer matrix, gyroscope matrix, source) the daemon derives for this device on
        its own (no config override): udev ACCEL_MOUNT_MATRIX by the hwdb rule, else the first
        of `mount_matrix`, `in_accel_mount_matrix`, `in_mount_matrix` by the kernel rule, else the
        identity (a HID hub's: the direction of gravity; any other driver's: specific force, the
        kernel rule on the identity). A gyroscope uses the same frame; its own kernel matrix counts only where the
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
        if self.name in HID_SENSOR_NAMES:
            return IDENTITY, own[1] if own else IDENTITY, 'kernel' if own else 'identity'
        # A chip's own driver without a matrix: specific force in the chip's axes (the kernel rule
        # on the identity: A = -I, G = I).
        chip_accel, chip_gyro = kernel_frame(IDENTITY)
        return chip_accel, own[1] if own else chip_gyro, 'kernel' if own else 'chip'

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
            raws = self.raw_values(kind, self.initial[kind])
            attrs.update(raws if self.sysfs_raw else {attr: UNREADABLE_RAW for attr in raws})
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


# The IIO names of the kernel's HID sensor drivers: without a matrix, the daemon reads them in
# the direction-of-gravity convention, every other driver as specific force.
HID_SENSOR_NAMES = ('accel_3d', 'gravity', 'gyro_3d', 'incli_3d', 'magn_3d', 'dev_rotation')

# What `in_*_raw` hold on a device made with sysfs_raw=False: not a number.
UNREADABLE_RAW = 'not-for-reading'


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
