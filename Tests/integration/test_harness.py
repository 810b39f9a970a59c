"""Self-tests of the harness (the plx package), the bundled traces and the trace converter. They need no
parallaxd binary: they prove that what the other tests feed the daemon is what they claim."""
import ctypes.util
import importlib.util
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

import accounts
import plx

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, 'fake_parallaxd.py')
SCRIPTS = os.path.join(plx.REPO_ROOT, 'scripts')


def preload_run(testbed, argv):
    env = dict(os.environ, **testbed.env())
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)


def need(tool):
    if shutil.which(tool) is None:
        pytest.skip('%s not installed (apt-get install libiio-utils)' % tool)


def iio_attr_raw(testbed, device, channel):
    out = preload_run(testbed, ['iio_attr', '-u', 'local:', '-c', device.node, channel, 'raw'])
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip())


def read_back(testbed, device, kind):
    """The device-frame SI vector libiio would give, from raws read through the preload."""
    raws = [iio_attr_raw(testbed, device, ch) for ch in device.channels(kind)]
    return device.value_from_raw(kind, raws)


def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


# --- emulated devices -------------------------------------------------------------------------

def test_iio_info_lists_combined_and_split_devices(testbed):
    need('iio_info')
    testbed.add(plx.bmi160(0))
    testbed.add(plx.hid_accel_3d(1))
    testbed.add(plx.hid_gyro_3d(2))
    out = preload_run(testbed, ['iio_info', '-u', 'local:'])
    assert out.returncode == 0, out.stderr
    assert 'IIO context has 3 devices' in out.stdout
    for name in ('iio:device0: bmi160', 'iio:device1: accel_3d', 'iio:device2: gyro_3d'):
        assert name in out.stdout
    # bmi160 has 6 channels, the HID devices 3 each
    assert out.stdout.count('6 channels found') == 1
    assert out.stdout.count('3 channels found') == 2


def test_set_raw_writes_in_place_and_libiio_sees_it(testbed):
    need('iio_attr')
    dev = testbed.add(plx.bmi160(0))
    path = testbed.attr_path(dev, 'in_accel_y_raw')
    inode = os.stat(path).st_ino
    with open(path, 'rb') as held:  # a reader keeping its fd open (pread) must see changes
        testbed.set_raw(dev, 'in_accel_y_raw', 7)
        assert os.pread(held.fileno(), 64, 0) == b'7\n'
        testbed.set_raw(dev, 'in_accel_y_raw', -1234567)
        assert os.pread(held.fileno(), 64, 0) == b'-1234567\n'
    assert os.stat(path).st_ino == inode
    assert iio_attr_raw(testbed, dev, 'accel_y') == -1234567
    testbed.set_raw(dev, 'in_accel_y_raw', 'abc')
    assert testbed.get_raw(dev, 'in_accel_y_raw') == 'abc'


@pytest.mark.parametrize('make', [
    lambda: plx.bmi160(0),
    lambda: plx.bmi160(0, mount_matrix='0, -1, 0; -1, 0, 0; 0, 0, -1'),
    lambda: plx.bmi160(0, accel_mount_matrix='0, 1, 0; -1, 0, 0; 0, 0, 1',
                       gyro_mount_matrix='-1, 0, 0; 0, -1, 0; 0, 0, 1',
                       channel_scale={'anglvel_y': 0.0005}, accel_offset=-20),
    lambda: plx.bmi160(0, in_mount_matrix='1, 0, 0; 0, 0, 1; 0, -1, 0'),
    lambda: plx.hid_accel_3d(0, accel_mount_matrix='0, 1, 0; -1, 0, 0; 0, 0, 1'),
    lambda: plx.hid_gyro_3d(0, gyro_mount_matrix='0.7071068, -0.7071068, 0; 0.7071068, 0.7071068, 0; 0, 0, 1',
                            channel_offset={'anglvel_x': 3}),
    lambda: plx.IIODevice('mma8452', 0, gyro=False, accel_scale=0.009576, raw_bits=12,
                          udev_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1',
                          accel_mount_matrix='1, 0, 0; 0, 1, 0; 0, 0, 1'),
], ids=['bmi160', 'mount_matrix', 'per-type-matrices', 'in_mount_matrix', 'hid-accel', 'hid-gyro-45deg', 'udev'])
def test_set_accel_and_gyro_round_trip_through_libiio(testbed, make):
    need('iio_attr')
    dev = testbed.add(make())
    if dev.has[plx.ACCEL]:
        v = (1.5, -8.25, 4.0)
        testbed.set_accel(dev, v)
        tol = 1.5 * max(dev.channel_scale_of(c) for c in dev.channels(plx.ACCEL))
        assert close(read_back(testbed, dev, plx.ACCEL), v, tol)
        testbed.set_accel(dev, (None, None, -2.0))  # partial update keeps x and y
        assert close(read_back(testbed, dev, plx.ACCEL), (1.5, -8.25, -2.0), tol)
    if dev.has[plx.GYRO]:
        w = (0.25, -1.0, 2.5)
        testbed.set_gyro(dev, w)
        tol = 1.5 * max(dev.channel_scale_of(c) for c in dev.channels(plx.GYRO))
        assert close(read_back(testbed, dev, plx.GYRO), w, tol)


def test_initial_values_are_upright_in_the_device_frame(testbed):
    need('iio_attr')
    dev = testbed.add(plx.bmi160(0, accel_mount_matrix='0, 1, 0; -1, 0, 0; 0, 0, 1'))
    assert close(read_back(testbed, dev, plx.ACCEL), plx.UPRIGHT, 0.001)
    # A kernel matrix is a rotation of specific force (IIO ABI): upright the chip feels +g along
    # device +Y, and the matrix's row y = −x_sensor says that is the chip's −X: raw x = −g/scale.
    assert iio_attr_raw(testbed, dev, 'accel_x') == -round(plx.GRAVITY / 0.000598)


def test_raw_values_clamp_to_the_sensor_range():
    dev = plx.bmi160(0)  # ±2 g at 16 bits; no matrix: the chip reports specific force (A = −I)
    raws = dev.raw_values(plx.ACCEL, (100.0, -100.0, 0.0))
    assert raws == {'in_accel_x_raw': '-32768', 'in_accel_y_raw': '32767', 'in_accel_z_raw': '0'}


def test_udev_mount_matrix_is_visible_through_sd_device(testbed):
    if ctypes.util.find_library('systemd') is None:
        pytest.skip('libsystemd not installed')
    testbed.add(plx.IIODevice('mma8452', 0, gyro=False, udev_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1'))
    code = ('import ctypes,sys\nlib=ctypes.CDLL("libsystemd.so.0")\nd=ctypes.c_void_p()\n'
            'assert lib.sd_device_new_from_syspath(ctypes.byref(d), b"/sys/bus/iio/devices/iio:device0")==0\n'
            'v=ctypes.c_char_p()\nassert lib.sd_device_get_property_value(d,b"ACCEL_MOUNT_MATRIX",ctypes.byref(v))==0\n'
            'print(v.value.decode())')
    out = preload_run(testbed, [sys.executable, '-c', code])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '0, -1, 0; 1, 0, 0; 0, 0, 1'


def test_frame_rules_of_the_harness():
    """The harness's plain statement of docs/sensors.md's rules: hwdb keeps x and y rows and
    completes z as −(x × y); the gyroscope of the chip gets det(A)·A; a kernel rotation R gives
    −R and R; a physically described chip overrides whatever its matrices claim."""
    dev = plx.bmi160(0, udev_mount_matrix='0, 1, 0; -1, 0, 0; 0, 0, 1')
    accel, gyro, source = dev.frame()
    assert source == 'hwdb'
    assert close(sum(accel, ()), (0, 1, 0, -1, 0, 0, 0, 0, -1), 1e-12)
    assert close(sum(gyro, ()), (0, -1, 0, 1, 0, 0, 0, 0, 1), 1e-12)
    k = plx.bmi160(0, mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1')
    assert close(sum(k.matrix_for(plx.GYRO), ()), (0, -1, 0, 1, 0, 0, 0, 0, 1), 1e-12)
    assert close(sum(k.matrix_for(plx.ACCEL), ()), (0, 1, 0, -1, 0, 0, 0, 0, -1), 1e-12)
    # No matrix anywhere: a chip's driver reports specific force (the kernel rule on the
    # identity), a HID hub the direction of gravity.
    accel, gyro, source = plx.bmi160(0).frame()
    assert source == 'chip' and close(sum(accel, ()), (-1, 0, 0, 0, -1, 0, 0, 0, -1), 1e-12)
    assert close(sum(gyro, ()), sum(plx.IDENTITY, ()), 1e-12)
    assert plx.hid_accel_3d(0).frame() == (plx.IDENTITY, plx.IDENTITY, 'identity')
    chip = plx.bmi160(0, udev_mount_matrix='1, 0, 0; 0, 1, 0; 0, 0, 1', chip_rotation=plx.IDENTITY)
    assert chip.matrix_for(plx.GYRO) == plx.IDENTITY
    with pytest.raises(plx.HarnessError):
        plx.bmi160(0, chip_rotation=((1, 0, 0), (0, 1, 0), (0, 0, -1)))


def test_remove_unplugs_the_device(testbed):
    need('iio_info')
    a = testbed.add(plx.bmi160(0))
    testbed.remove(a)
    out = preload_run(testbed, ['iio_info', '-u', 'local:'])
    assert 'bmi160' not in out.stdout
    with pytest.raises(plx.HarnessError):
        testbed.add(plx.bmi160(0))  # umockdev would abort on the reused node
    testbed.add(plx.bmi160(1))
    out = preload_run(testbed, ['iio_info', '-u', 'local:'])
    assert 'iio:device1: bmi160' in out.stdout


# --- motion synthesis ---------------------------------------------------------------------------

def test_gravity_after_a_positive_turn_about_x():
    g = plx.gravity_after_rotation(plx.UPRIGHT, 'x', 15)
    s, c = math.sin(math.radians(15)), math.cos(math.radians(15))
    assert close(g, (0.0, -plx.GRAVITY * c, plx.GRAVITY * s), 1e-9)
    # a turn about Y while upright leaves gravity alone
    assert close(plx.gravity_after_rotation(plx.UPRIGHT, '-y', 30), plx.UPRIGHT, 1e-9)


def test_rotation_rows_hold_the_rate_then_stop():
    rows, end = plx.rotation_rows(plx.UPRIGHT, 'x', 15, 0.25, rate_hz=200)
    assert rows[0].t_ns == 0 and rows[-1].t_ns == 250_000_000
    omega = math.radians(15) / 0.25
    assert all(close(r.gyro, (omega, 0, 0), 1e-12) for r in rows[:-1])
    assert rows[-1].gyro == (0.0, 0.0, 0.0)
    assert close(rows[-1].accel, end, 1e-12)
    # integrating the held rate over the rows gives the full turn
    turned = sum(r.gyro[0] * (b.t_ns - r.t_ns) / 1e9 for r, b in zip(rows, rows[1:]))
    assert abs(turned - math.radians(15)) < 1e-6
    assert all(abs(math.sqrt(sum(x * x for x in r.accel)) - plx.GRAVITY) < 1e-9 for r in rows)


def test_trace_player_writes_rows_at_their_timing(testbed):
    dev = testbed.add(plx.bmi160(0))
    rows = [plx.Row(0, (0.0, -9.0, 1.0), (0.5, 0.0, 0.0)),
            plx.Row(100_000_000, None, (None, 0.25, None)),
            plx.Row(400_000_000, (None, None, 3.0), None)]
    player = plx.TracePlayer(testbed, dev, dev, rows, speed=2.0)
    t0 = time.monotonic()
    player.start()
    assert player.join(5)
    took = time.monotonic() - t0
    assert 0.19 <= took < 1.0  # 0.4 s of trace at speed 2
    assert player.rows_played == 3
    assert close(testbed.last(dev, plx.ACCEL), (0.0, -9.0, 3.0), 1e-12)
    assert close(testbed.last(dev, plx.GYRO), (0.5, 0.25, 0.0), 1e-12)
    assert testbed.get_raw(dev, 'in_accel_z_raw') == str(round(-3.0 / 0.000598))   # specific force
    assert testbed.get_raw(dev, 'in_anglvel_y_raw') == str(round(0.25 / 0.001065))


def test_trace_player_loops_until_stopped_and_splits_devices(testbed):
    acc = testbed.add(plx.hid_accel_3d(0))
    gyr = testbed.add(plx.hid_gyro_3d(1))
    player = plx.TracePlayer(testbed, acc, gyr, os.path.join(plx.TRACES_DIR, 'ngimu.csv'), speed=20.0, loop=True)
    player.start()
    assert not player.join(1.2)  # 10 s at ×20 = 0.5 s per loop: still looping
    player.stop()
    assert player.loops >= 1 and player.rows_played > 499
    assert testbed.last(gyr, plx.GYRO) != (0.0, 0.0, 0.0)


def test_trace_files_round_trip(workdir):
    rows = [plx.Row(1_000_000_000, (0.0, -9.81, 0.0), (0.0, 0.0, 0.0)),
            plx.Row(1_010_000_000, None, (0.1, None, 0.0))]
    path = os.path.join(workdir, 't.csv')
    plx.write_trace(path, rows, ['made by a test'])
    comments, back = plx.read_trace(path)
    assert comments == ['made by a test']
    assert [(r.t_ns, r.accel, r.gyro) for r in back] == [(r.t_ns, r.accel, r.gyro) for r in rows]


# --- bundled recordings and the converter -----------------------------------------------------

@pytest.mark.parametrize('name', ['ngimu.csv', 'xio3.csv'])
def test_bundled_trace_is_well_formed_real_motion(name):
    comments, rows = plx.read_trace(os.path.join(plx.TRACES_DIR, name))
    assert any('scikit-kinematics' in c and 'BSD-3-Clause' in c for c in comments)
    assert len(rows) >= 450
    assert rows[0].t_ns == 1_000_000_000
    assert all(b.t_ns > a.t_ns for a, b in zip(rows, rows[1:]))
    span = (rows[-1].t_ns - rows[0].t_ns) / 1e9
    assert 9.5 < span < 10.5
    assert 45 < (len(rows) - 1) / span < 55
    assert all(r.accel is not None and r.gyro is not None for r in rows)
    # both recordings start lying face-up at rest: |a| ≈ g, pointing into the screen
    for r in rows[:2]:
        assert abs(math.sqrt(sum(x * x for x in r.accel)) - plx.GRAVITY) < 0.15
        assert r.accel[2] < -9.5
        assert max(abs(w) for w in r.gyro) < 0.1
    assert max(max(abs(w) for w in r.gyro) for r in rows) > 1.0  # there is real motion (rad/s)


def test_converter_number_format():
    spec = importlib.util.spec_from_file_location('convert_skinematics', os.path.join(SCRIPTS, 'convert_skinematics.py'))
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    assert conv.fmt(-9.80704123) == '-9.80704'
    assert conv.fmt(0.0000349849123) == '0.0000349849'
    assert conv.fmt(123456.7) == '123457'
    assert conv.fmt(-0.0) == '0' and conv.fmt(1e-12) == '0'
    accel, gyro = conv.to_device([180.0, 0.0, -90.0], [0.0, 0.0, 1.0])
    assert close(accel, (0.0, 0.0, -9.80665), 1e-12)
    assert close(gyro, (math.pi, 0.0, -math.pi / 2), 1e-12)


def test_converter_reproduces_the_bundled_traces(workdir):
    spec = importlib.util.find_spec('skinematics')
    data = os.environ.get('SKINEMATICS_DATA')
    if data is None and spec is not None:
        data = os.path.join(os.path.dirname(os.path.dirname(spec.origin)), 'tests', 'data')
    if data is None or not os.path.isdir(data):
        pytest.skip('scikit-kinematics 0.10.4 data not available (pip install --no-deps --target DIR '
                    'scikit-kinematics==0.10.4; SKINEMATICS_DATA=DIR/tests/data)')
    out = subprocess.run([sys.executable, os.path.join(SCRIPTS, 'convert_skinematics.py'), '--data', data,
                          '--out', workdir], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for name in ('ngimu.csv', 'xio3.csv'):
        with open(os.path.join(workdir, name)) as a, open(os.path.join(plx.TRACES_DIR, name)) as b:
            assert a.read() == b.read(), name


# --- daemon wrapper and client, against a stand-in daemon -------------------------------------

def fake_daemon(workdir, testbed, mode=''):
    return plx.Daemon(workdir, testbed, binary=sys.executable, args=[FAKE, '--socket', os.path.join(workdir, 's.sock')],
                      env={'FAKE_MODE': mode}, socket_path=os.path.join(workdir, 's.sock'))


def test_daemon_wrapper_readiness_environment_and_stop(workdir, testbed):
    testbed.add(plx.bmi160(0))
    testbed.add(plx.hid_gyro_3d(1))
    d = fake_daemon(workdir, testbed).start(timeout=10)
    try:
        # the child saw the emulated devices through the preload
        assert any(m.get('STATUS') == 'devices bmi160,gyro_3d' for m in d.notify_messages())
        c = d.connect()
        assert c.hello['protocol'] == 1
        reply = c.request({'cmd': 'status', 'id': 4}, 'status')
        assert reply['id'] == 4 and reply['devices'] == ['bmi160', 'gyro_3d']
        assert c.violations == []
    finally:
        rc = d.stop()
    assert rc == 0


def test_daemon_wrapper_reports_an_early_exit(workdir, testbed):
    d = fake_daemon(workdir, testbed, 'exit-early')
    with pytest.raises(plx.DaemonError, match='exited with 3 before READY=1(.|\n)*exiting early on purpose'):
        d.start(timeout=10)
    assert d.stop() == 3


def test_daemon_wrapper_kills_what_ignores_sigterm(workdir, testbed):
    d = fake_daemon(workdir, testbed, 'ignore-term').start(timeout=10)
    assert d.stop(timeout=0.5) == plx.KILLED


def test_client_flags_nan_on_the_wire(workdir, testbed):
    d = fake_daemon(workdir, testbed, 'nan').start(timeout=10)
    try:
        c = d.connect()
        c.pump(0.3)
        assert any('non-finite' in v for v in c.violations)
    finally:
        d.stop()


def test_shared_copies_reach_an_account_that_cannot_enter_the_clone():
    """What tests run as `nobody` comes from accounts.shared_copy: from a 0700 folder (a clone
    under /root) nobody can run neither the original script nor a module beside it; the copies
    it can (and an executable stays executable)."""
    if os.geteuid() != 0:
        pytest.skip('needs root to run a program as nobody')
    private = tempfile.mkdtemp(prefix='plx-private-', dir='/tmp')
    try:
        os.chmod(private, 0o700)
        script = os.path.join(private, 'hello.py')
        with open(script, 'w') as f:
            f.write('#!/usr/bin/python3\nimport sys\nsys.path.insert(0, sys.argv[1])\nimport greeting\nprint(greeting.WORD)\n')
        os.chmod(script, 0o755)
        package = os.path.join(private, 'lib')
        os.mkdir(package, 0o700)
        with open(os.path.join(package, 'greeting.py'), 'w') as f:
            f.write('WORD = "hello"\n')
        os.chmod(os.path.join(package, 'greeting.py'), 0o600)
        as_nobody = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']

        def run(program, lib):
            return subprocess.run(as_nobody + [program, lib], cwd=accounts.NEUTRAL_CWD,
                                  capture_output=True, text=True, timeout=30)
        assert run(script, package).returncode != 0, 'nobody ran a script in a 0700 folder: the test proves nothing'
        out = run(accounts.shared_copy(script), accounts.shared_copy(package))
        assert out.returncode == 0 and out.stdout == 'hello\n', out.stderr
        assert accounts.shared_copy(script) == accounts.shared_copy(script), 'copied again though unchanged'
    finally:
        shutil.rmtree(private, ignore_errors=True)
