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

`import plx` gives every name below as plx.NAME; each lives in one module of this package:
- common: REPO_ROOT, TRACES_DIR, GRAVITY, UPRIGHT, FACE_UP, ACCEL, GYRO, HarnessError
- geometry: vectors and mount matrices (mat_*, parse/format_mount_matrix, rotate,
  gravity_after_rotation, the daemon's frame rules hwdb_frame, kernel_frame, chip_frame; AXES, IDENTITY)
- devices: IIODevice and the models bmi160, bmi160_16g, hid_accel_3d, hid_gyro_3d
- testbed: Testbed (the umockdev testbed; in-place raw writes, set_accel / set_gyro)
- buffered: scan types, BufferedIIODevice, buffered_bmi160, buffered_hid_accel_3d / gyro_3d, ScanFeeder
- notify: NotifySocket (stand-in for systemd's NOTIFY_SOCKET)
- daemon: find_binary, binary_missing, Daemon, DaemonError, SocketActivated, timeouts, KILLED
- client: Client (strict protocol v1 client), offset_problem
- traces: Row, read_trace, write_trace, rotation_rows, TracePlayer, turn
- namespaces: remote sensors (NetNamespace, IIOServer, remote_daemon, find_system_binary)
Dependencies run one way: common ← geometry ← devices ← buffered; traces ← buffered;
client, notify ← daemon ← namespaces.
"""
from .common import ACCEL, FACE_UP, GRAVITY, GYRO, REPO_ROOT, TRACES_DIR, UPRIGHT, HarnessError
from .geometry import (AXES, IDENTITY, chip_frame, format_mount_matrix, gravity_after_rotation, hwdb_frame,
                       kernel_frame, mat_det, mat_inverse, mat_scaled, mat_vec, parse_mount_matrix, rotate)
from .devices import HID_PARENT, UNREADABLE_RAW, IIODevice, bmi160, bmi160_16g, hid_accel_3d, hid_gyro_3d
from .testbed import Testbed
from .client import Client, offset_problem
from .notify import NotifySocket
from .daemon import (KILLED, READY_TIMEOUT, STOP_TIMEOUT, Daemon, DaemonError, SocketActivated, binary_missing,
                     find_binary)
from .traces import TRACE_HEADER, Row, TracePlayer, read_trace, rotation_rows, turn, write_trace
from .buffered import (HID_SCAN_TYPE, HID_UPPER_JUNK, BufferedIIODevice, ScanFeeder, buffered_bmi160,
                       buffered_hid_accel_3d, buffered_hid_gyro_3d, encode_scan_value, parse_scan_type)
from .namespaces import (IIOD_LISTEN_POLL, IIOD_LISTEN_TIMEOUT, IIOD_PORT, IIOServer, NetNamespace,
                         find_system_binary, remote_daemon)

__all__ = [
    # common
    'REPO_ROOT', 'TRACES_DIR', 'GRAVITY', 'UPRIGHT', 'FACE_UP', 'ACCEL', 'GYRO', 'HarnessError',
    # geometry
    'AXES', 'IDENTITY', 'mat_vec', 'mat_inverse', 'parse_mount_matrix', 'format_mount_matrix', 'rotate',
    'gravity_after_rotation', 'mat_det', 'mat_scaled', 'hwdb_frame', 'kernel_frame', 'chip_frame',
    # devices, testbed
    'IIODevice', 'bmi160', 'bmi160_16g', 'HID_PARENT', 'UNREADABLE_RAW', 'hid_accel_3d', 'hid_gyro_3d', 'Testbed',
    # client, notify, daemon
    'Client', 'offset_problem', 'NotifySocket',
    'READY_TIMEOUT', 'STOP_TIMEOUT', 'KILLED', 'find_binary', 'binary_missing', 'DaemonError', 'Daemon',
    'SocketActivated',
    # traces
    'Row', 'TRACE_HEADER', 'read_trace', 'write_trace', 'rotation_rows', 'TracePlayer', 'turn',
    # buffered
    'parse_scan_type', 'encode_scan_value', 'BufferedIIODevice', 'buffered_bmi160', 'ScanFeeder',
    'HID_SCAN_TYPE', 'HID_UPPER_JUNK', 'buffered_hid_accel_3d', 'buffered_hid_gyro_3d',
    # namespaces
    'IIOD_PORT', 'IIOD_LISTEN_TIMEOUT', 'IIOD_LISTEN_POLL', 'find_system_binary', 'NetNamespace', 'IIOServer',
    'remote_daemon',
]
