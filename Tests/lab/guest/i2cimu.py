#!/usr/bin/env python3
"""An I2C IMU in the lab guest: a real kernel driver (bmi160, st_lsm6dsx, inv_mpu6050, mxc4005,
bmc150_accel)
bound to an i2c-stub address whose data registers this process writes (python3, stdlib only;
the backports kernel, docs/lab.md). The counterpart of sensorhub.py for I2C parts, with the same
motion model (sensorhub.Motion) and the same control ops for motion.

    i2cimu.py serve --chip CHIP [--socket S] [--log L] [--background] [--rate HZ]
                    sets the chip up (i2c-stub, registers preloaded, new_device, its driver
                    loaded), awaits its IIO devices, then writes its data registers at --rate
Control ops (JSON lines on the socket, as sensorhub.py):
    status                                  chip, bus, address, IIO devices, scales, writes so far
    attitude x=DEG y=DEG [seconds=S] [wait=1]   turn to that tilt over S s (the gyroscope sees it)
    rate x=DPS y=DPS z=DPS                  keep turning at this body rate
    quit                                    delete_device, await the IIO devices gone, exit

Every value goes through the register layout the chip has: byte order (mpu6050 and mxc4005 are
big-endian, the others little-endian), bits and left alignment (mxc4005, bmc150: 12 bits << 4), and the
scale the driver reports (in_accel_scale, in_anglvel_scale), so the driver's raw × scale is the
motion's value in SI units. All writes come from this one process through the I2C_SMBUS ioctl
(spawning i2cset per write made 100 ms gaps); I2C_SLAVE_FORCE because the driver owns the address.
"""
import argparse
import ctypes
import math
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from controlserver import serve as serve_device  # noqa: E402
from sensorhub import Motion, await_iio, iio_devices, uevents  # noqa: E402

I2C = '/sys/bus/i2c/devices'
IIO = '/sys/bus/iio/devices'
STUB_NAME = 'SMBus stub driver'
G = 9.80665

# Each chip: address, driver module, the IIO devices it makes, registers to preload before
# new_device (chip ID; bmi160: valid range and rate codes), the first data register of each
# sensor and how its three values are stored (struct format of one value, left shift).
CHIPS = {
    'bmi160': dict(addr=0x68, module='bmi160_i2c', devices=['bmi160'],
                   preload={0x00: 0xD1, 0x40: 0x28, 0x41: 0x03, 0x42: 0x28, 0x43: 0x00},
                   accel=(0x12, '<h', 0), gyro=(0x0C, '<h', 0)),
    'lsm6dso': dict(addr=0x6a, module='st_lsm6dsx_i2c', devices=['lsm6dso_accel', 'lsm6dso_gyro'],
                    preload={0x0F: 0x6C}, accel=(0x28, '<h', 0), gyro=(0x22, '<h', 0)),
    'mpu6050': dict(addr=0x69, module='inv_mpu6050_i2c', devices=['mpu6050'],
                    preload={0x75: 0x68}, accel=(0x3B, '>h', 0), gyro=(0x43, '>h', 0)),
    'mxc4005': dict(addr=0x15, module='mxc4005', devices=['mxc4005'],
                    preload={0x0E: 0x40}, accel=(0x03, '>h', 4), gyro=None),
    # bmc150-accel-core: chip ID 0xFA (BMA255/BMC150), 12 bits left-aligned, little-endian.
    'bmc150_accel': dict(addr=0x10, module='bmc150_accel_i2c', devices=['bmc150_accel'],
                         preload={0x00: 0xFA}, accel=(0x02, '<h', 4), gyro=None),
}
# i2c-stub takes its addresses once, when loaded: every chip's.
STUB_ADDRESSES = ','.join(f'0x{c["addr"]:02x}' for c in CHIPS.values())

# linux/i2c-dev.h, linux/i2c.h
I2C_SLAVE_FORCE, I2C_SMBUS = 0x0706, 0x0720
I2C_SMBUS_WRITE, I2C_SMBUS_BYTE_DATA, I2C_SMBUS_I2C_BLOCK_DATA = 0, 2, 8


class SmbusData(ctypes.Union):
    _fields_ = [('byte', ctypes.c_uint8), ('word', ctypes.c_uint16), ('block', ctypes.c_uint8 * 34)]


class SmbusIoctl(ctypes.Structure):
    _fields_ = [('read_write', ctypes.c_uint8), ('command', ctypes.c_uint8), ('size', ctypes.c_uint32),
                ('data', ctypes.POINTER(SmbusData))]


LIBC = ctypes.CDLL(None, use_errno=True)


def ioctl(fd, request, arg):
    # libc's ioctl: fcntl.ioctl passes an int argument as a C int, too small for a pointer.
    if LIBC.ioctl(fd, ctypes.c_ulong(request), arg) < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


class Bus:
    """/dev/i2c-N, talking to one address."""

    def __init__(self, number, addr):
        self.fd = os.open(f'/dev/i2c-{number}', os.O_RDWR)
        ioctl(self.fd, I2C_SLAVE_FORCE, ctypes.c_ulong(addr))
        self.data = SmbusData()
        self.req = SmbusIoctl(I2C_SMBUS_WRITE, 0, 0, ctypes.pointer(self.data))

    def write_byte(self, reg, value):
        self.req.command, self.req.size, self.data.byte = reg, I2C_SMBUS_BYTE_DATA, value
        ioctl(self.fd, I2C_SMBUS, ctypes.byref(self.req))

    def write_block(self, reg, data):
        # One I2C block write: each byte into its own register (a word write would put 16 bits
        # into one register slot of the stub, and byte reads return only its low byte).
        self.req.command, self.req.size = reg, I2C_SMBUS_I2C_BLOCK_DATA
        self.data.block[0] = len(data)
        for i, b in enumerate(data):
            self.data.block[1 + i] = b
        ioctl(self.fd, I2C_SMBUS, ctypes.byref(self.req))


def stub_bus():
    """The bus number of i2c-stub (loaded here with every chip's address if it is not yet)."""
    def find():
        for d in sorted(os.listdir(I2C)):
            try:
                with open(f'{I2C}/{d}/name') as f:
                    if f.read().strip() == STUB_NAME:
                        return int(d.split('-')[1])
            except OSError:
                continue
        return None
    if find() is None:
        subprocess.run(['modprobe', 'i2c-stub', f'chip_addr={STUB_ADDRESSES}'], check=True)
    subprocess.run(['modprobe', 'i2c-dev'], check=True)
    return find()


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


class Imu:
    def __init__(self, chip, rate):
        self.chip = chip
        self.spec = CHIPS[chip]
        self.rate = rate
        self.motion = Motion()
        self.writes = 0
        self.stopping = False
        self.bus_number = stub_bus()
        self.bus = Bus(self.bus_number, self.spec['addr'])
        for reg, value in self.spec['preload'].items():
            self.bus.write_byte(reg, value)
        self.write_values(*self.motion.sample(time.monotonic()), scales=None)
        names = self.spec['devices']
        with uevents() as ev:
            with open(f'{I2C}/i2c-{self.bus_number}/new_device', 'w') as f:
                f.write(f'{chip} 0x{self.spec["addr"]:02x}')
            # Without udev nothing loads the driver (docs/lab.md).
            subprocess.run(['modprobe', self.spec['module']], check=True)
            self.iio = await_iio(ev, names, 30) and {n: iio_devices()[n][0] for n in names}
        if not self.iio:
            raise RuntimeError(f'no IIO devices {names} for {chip}')
        self.scales = {'accel': self.scale('in_accel_scale'), 'gyro': self.scale('in_anglvel_scale')}

    def scale(self, attr):
        for dev in self.iio.values():
            value = read(f'{IIO}/{dev}/{attr}')
            if value:
                return float(value)
        return None

    def write_values(self, g, w, scales):
        """Gravity's direction g (in g) and body rate w (deg/s) into the data registers; before the driver
        told its scales (scales None): face-up at the datasheet's default ranges."""
        scales = scales or {}
        # A real IMU measures the specific force, the opposite of gravity's direction (face up:
        # +1 g on z; the IIO ABI's convention, docs/sensors.md), and the body rate.
        for kind, values, si in (('accel', [-v for v in g], G), ('gyro', w, math.pi / 180)):
            layout = self.spec[kind]
            if layout is None:
                continue
            reg, fmt, shift = layout
            scale = scales.get(kind) or (G / 16384 if kind == 'accel' else math.pi / 180 / 16.4)
            bits = 16 - shift
            lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            raws = [max(lo, min(hi, round(v * si / scale))) for v in values]
            data = b''.join(struct.pack(fmt, r << shift) for r in raws)
            self.bus.write_block(reg, data)

    def run(self):
        period = 1.0 / self.rate
        next_t = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            self.write_values(*self.motion.sample(now), scales=self.scales)
            self.writes += 1
            next_t = max(next_t + period, now)
            time.sleep(max(0.0, next_t - time.monotonic()))

    def status(self):
        return dict(ok=True, chip=self.chip, bus=self.bus_number, addr=self.spec['addr'], iio=self.iio,
                    scales=self.scales, writes=self.writes)

    def handle(self, req):
        op = req.get('op')
        f = lambda k, d=0.0: float(req.get(k, d))   # noqa: E731
        if op == 'status':
            return self.status()
        if op == 'attitude':
            until = self.motion.ramp_to(f('x'), f('y'), f('seconds'))
            if int(req.get('wait', 0)):
                time.sleep(max(0.0, until - time.monotonic()))
            return dict(ok=True, until=until)
        if op == 'rate':
            self.motion.set_rate((f('x'), f('y'), f('z')))
            return dict(ok=True, t_ns=time.monotonic_ns())
        if op == 'quit':
            self.stopping = True
            with uevents() as ev:
                with open(f'{I2C}/i2c-{self.bus_number}/delete_device', 'w') as fh:
                    fh.write(f'0x{self.spec["addr"]:02x}')
                gone = await_iio(ev, self.spec['devices'], f('timeout', 10), absent=True)
            return dict(ok=gone is not None, gone_ns=gone)
        return dict(ok=False, error=f'unknown op {op!r}')


def serve(args):
    return serve_device(lambda: Imu(args.chip, args.rate), args.socket, args.background, args.log)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('serve')
    s.add_argument('--chip', choices=sorted(CHIPS), required=True)
    s.add_argument('--socket', default='/run/i2cimu.sock')
    s.add_argument('--log')
    s.add_argument('--background', action='store_true')
    s.add_argument('--rate', type=float, default=125.0)
    args = p.parse_args()
    return serve(args)


if __name__ == '__main__':
    sys.exit(main())
