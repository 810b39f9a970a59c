"""The umockdev testbed: IIO devices whose raw values tests change while the daemon runs."""
import os
import threading

from .common import ACCEL, GYRO, HarnessError


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
        if device.sysfs_raw:
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
