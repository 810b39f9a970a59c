"""Buffered capture: IIO scan types, a buffered device (scan elements, trigger, PTY node) and the
feeder that streams packed scans into it."""
import os
import threading
import time

from .common import ACCEL, GYRO, HarnessError
from .devices import IIODevice
from .traces import Row


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


def encode_scan_value(value, scan_type, junk=0):
    """One channel's bytes as the kernel stores them: value masked to `bits`, shifted left by
    `shift`, in `storage` bits of the given endianness. `junk` fills the storage bits above the
    value (a HID hub's `le:s16/32>>0` carries other bytes of its report there)."""
    big_endian, signed, bits, storage, shift = parse_scan_type(scan_type)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        raise HarnessError('%d does not fit %s' % (value, scan_type))
    word = (value & ((1 << bits) - 1)) << shift
    word |= (junk << (bits + shift)) & ((1 << storage) - 1)
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
                 trigger_index=None, trigger_dir=True, unsigned_bias=None, upper_junk=0, hysteresis=None, **kw):
        self.scan_types = {ACCEL: accel_type, GYRO: gyro_type}
        # Bits stored above each value (upper_junk), and the hub's change sensitivity per type
        # (hysteresis: {kind: value} → in_<kind>_hysteresis, in processed units; None: none).
        self.upper_junk = upper_junk
        self.hysteresis = dict(hysteresis or {})
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
        for kind, value in self.hysteresis.items():
            attrs['in_%s_hysteresis' % kind] = '%f' % value
        return attrs

    def to_umockdev(self):
        text = super().to_umockdev()
        if self.trigger_name:
            text += '\nP: /devices/trigger%d\nE: SUBSYSTEM=iio\nA: name=%s\\n\n' % (self.trigger_index, self.trigger_name)
        return text


def buffered_bmi160(index=0, **kw):
    """A bmi160 with its data-ready trigger 'bmi160-devN' and 16-bit little-endian scans."""
    return BufferedIIODevice('bmi160', index, **kw)


# What hid-sensor-accel-3d / hid-sensor-gyro-3d show on Linux 6.1 (docs/sensors.md "Split
# devices"): 16 real bits in 32 storage bits with other report bytes above them, a realtime
# timestamp clock, a per-type report rate with no list of offered rates, a change sensitivity.
HID_SCAN_TYPE = 'le:s16/32>>0'
HID_UPPER_JUNK = 0xA55A
HID_DEFAULT_RATE = 10.0


def _hid_buffered(name, index, kind, usage, **kw):
    from .devices import HID_PARENT
    kw.setdefault('sysfs_path', '%s/HID-SENSOR-%s.%d.auto/iio:device%d' % (HID_PARENT, usage, index, index))
    kw.setdefault('sampling_frequency', HID_DEFAULT_RATE)
    kw.setdefault('sampling_frequency_attr', 'in_%s_sampling_frequency' % kind)
    kw.setdefault('sampling_frequency_available', None)
    kw.setdefault('timestamp_clock', 'realtime')
    kw.setdefault('upper_junk', HID_UPPER_JUNK)
    kw.setdefault('hysteresis', {kind: 0.0})
    kw.setdefault('%s_type' % ('accel' if kind == ACCEL else 'gyro'), HID_SCAN_TYPE)
    kw.setdefault('raw_bits', 16)
    return BufferedIIODevice(name, index, accel=kind == ACCEL, gyro=kind == GYRO, **kw)


def buffered_hid_accel_3d(index=0, **kw):
    """A HID sensor hub accelerometer (accel_3d) with its own trigger 'accel_3d-devN' (raw in
    0.01 m/s² here)."""
    kw.setdefault('accel_scale', 0.01)
    return _hid_buffered('accel_3d', index, ACCEL, '200073', **kw)


def buffered_hid_gyro_3d(index=1, **kw):
    """A HID sensor hub gyroscope (gyro_3d) with its own trigger 'gyro_3d-devN' (raw in 0.001 rad/s)."""
    kw.setdefault('gyro_scale', 0.001)
    return _hid_buffered('gyro_3d', index, GYRO, '200076', **kw)


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
    whenever they change.

    hub=True makes it a HID sensor hub (implies follow_device): at each report interval it
    sends a scan only when some channel changed by more than the device's
    `in_<type>_hysteresis` (processed units: raw steps × scale) since the last scan it sent
    (0: every interval), so a still device with its sensitivity raised sends nothing. The
    timestamps follow the device's `current_timestamp_clock` as the kernel's do (realtime:
    time.time_ns()); `clocks_at_enable` records the clock each time the buffer is seen enabled."""

    # How often a device-following feeder looks at the reader's settings (s).
    FOLLOW_POLL = 0.005

    def __init__(self, testbed, device, rate_hz=200.0, timestamp_of=None, follow_device=False, noise_lsb=0,
                 seed=1, hub=False):
        import random
        self.testbed = testbed
        self.device = device
        self.period = 1.0 / rate_hz
        self.timestamp_of = timestamp_of or (lambda t_ns: t_ns)
        self.hub = hub
        self.follow_device = follow_device or hub
        self.clocks_at_enable = []
        self._last_sent = None
        # Scans the hub held back (unchanged within its sensitivity).
        self.suppressed = 0
        self.noise_lsb = noise_lsb
        self._random = random.Random(seed)
        self.written = []
        self.scans = 0
        self.rates = []
        # (monotonic ns, {kind: sensitivity}) each time the hub's sensitivities changed.
        self.sensitivities = []
        # (timestamp, {channel: raw}) of every scan that reached the reader, when keep_log is set.
        self.keep_log = False
        self.log = []
        # time.monotonic_ns() when each logged scan was handed over.
        self.log_written = []
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
            junk = 0 if ch == 'timestamp' else self.device.upper_junk
            out += encode_scan_value(timestamp if ch == 'timestamp' else values[ch], scan_type, junk)
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
            self.log_written += [time.monotonic_ns()] * len(batch)

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

    def _hub_sends(self, values):
        """Whether the hub reports these values: a change beyond its sensitivity on some channel."""
        now = {}
        for kind in (ACCEL, GYRO):
            if self.device.has[kind]:
                try:
                    now[kind] = float(self.testbed.get_raw(self.device, 'in_%s_hysteresis' % kind) or 0)
                except (OSError, ValueError):
                    now[kind] = 0.0
        if not self.sensitivities or self.sensitivities[-1][1] != now:
            self.sensitivities.append((time.monotonic_ns(), now))
        if self._last_sent is None:
            return True
        for kind, hysteresis in now.items():
            if hysteresis <= 0:
                return True
            for ch in self.device.channels(kind):
                if abs(values[ch] - self._last_sent[ch]) * self.device.channel_scale_of(ch) > hysteresis:
                    return True
        return False

    def _stamp(self):
        now = time.monotonic_ns()
        if self.hub and self.clocks_at_enable and self.clocks_at_enable[-1] == 'realtime':
            return time.time_ns()
        return self.timestamp_of(now)

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
                try:
                    self.clocks_at_enable.append(self.testbed.get_raw(self.device, 'current_timestamp_clock'))
                except OSError:
                    self.clocks_at_enable.append(None)
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
            values = self.current_values() if time.monotonic() >= next_t else None
            if values is not None:
                # A reader that disabled and enabled the buffer between two looks here (a few
                # microseconds apart in the daemon) may have chosen other channels: scans are
                # packed as the scan elements are now, as the kernel does from its enable.
                now_enabled = self.enabled_channels()
                if now_enabled != channels:
                    channels = now_enabled
                    batch = []
            if values is not None and self.hub and not self._hub_sends(values):
                self.suppressed += 1
                next_t += period
            elif values is not None:
                stamp = self._stamp()
                self._last_sent = values
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
