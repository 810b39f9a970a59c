"""`parallaxd --calibrate` and the `calibrate` command (parallaxd(8), docs/protocol.md "calibrate"):
the gyroscope bias of an emulated still device is recovered, a moving device or a missing sensor is
refused, the file is replaced atomically (a crash while writing leaves the old one), and the daemon
applies the calibration at start, on reload and right after calibrating."""
import math
import os
import shutil
import signal
import subprocess
import threading

import pytest

import accounts
import plx
from helpers import build_preload, describe

# Measuring time for these tests (s): 100 samples at the daemon's 100 Hz poll rate.
SECONDS = '1'
# The bar: the bias comes back within 5 %.
BIAS_TOLERANCE = 0.05
# Exit statuses of --calibrate (parallaxd(8)).
EXIT_REFUSED = 1
EXIT_USAGE = 64
EXIT_UNAVAILABLE = 69


def config(workdir, extra=''):
    """A config whose calibration file lives in the test's directory."""
    path = os.path.join(workdir, 'parallaxd.conf')
    cal = os.path.join(workdir, 'state', 'calibration.conf')
    with open(path, 'w') as f:
        f.write('[Calibration]\nFile=%s\n%s' % (cal, extra))
    return path, cal


def calibrate(parallaxd_bin, testbed, conf, socket_path, seconds=SECONDS, extra_env=None, timeout=60):
    """Runs `parallaxd --calibrate` under the testbed; returns the CompletedProcess."""
    env = dict(os.environ)
    for k in ('PARALLAXD_SOCKET', 'NOTIFY_SOCKET', 'LISTEN_FDS', 'LISTEN_PID', 'JOURNAL_STREAM'):
        env.pop(k, None)
    env.update(testbed.env())
    env.update(extra_env or {})
    return subprocess.run([parallaxd_bin, '--calibrate', '--seconds', seconds, '--config', conf, '--socket', socket_path],
                          env=env, capture_output=True, text=True, timeout=timeout)


def read_ini(path):
    out, section = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('['):
                section = line.strip('[]')
            elif line and not line.startswith('#') and '=' in line:
                k, v = line.split('=', 1)
                out[(section, k)] = v
    return out


def vector(text):
    return tuple(float(x) for x in text.split(','))


def quantized(dev, kind, v):
    """The device-frame value the emulated device really holds for `v` (raw values are integers)."""
    raws = dev.raw_values(kind, v)
    return dev.value_from_raw(kind, [int(raws['in_%s_%s_raw' % (kind, a)]) for a in 'xyz'])


def assert_bias_recovered(measured, truth, tolerance=BIAS_TOLERANCE):
    err = math.sqrt(sum((m - t) ** 2 for m, t in zip(measured, truth)))
    norm = math.sqrt(sum(t * t for t in truth))
    assert err <= tolerance * norm, 'bias %r, expected %r (error %.2g%% > %.0f%%)' % (
        measured, truth, 100 * err / norm, 100 * tolerance)


class NoisyStill:
    """Keeps a device still with white noise on both sensors (a real sensor at rest), in a thread."""

    def __init__(self, testbed, dev, accel, gyro, gyro_sigma=0.004, accel_sigma=0.03, rate_hz=200, seed=3):
        import random
        self.rng = random.Random(seed)
        self.args = (testbed, dev, accel, gyro, gyro_sigma, accel_sigma, 1.0 / rate_hz)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        testbed, dev, accel, gyro, gs, as_, period = self.args
        while not self.stop_event.wait(period):
            testbed.set_gyro(dev, tuple(g + self.rng.gauss(0, gs) for g in gyro))
            testbed.set_accel(dev, tuple(a + self.rng.gauss(0, as_) for a in accel))

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        self.thread.join(5)


# --- directly (no daemon answers) -------------------------------------------------------------------

@pytest.mark.parametrize('bias', [(0.0213, -0.0152, 0.0087), (-0.047, 0.0031, 0.0265)], ids=['small', 'mixed'])
def test_direct_calibration_recovers_the_bias(parallaxd_bin, workdir, testbed, bias):
    dev = testbed.add(plx.bmi160(0, initial_accel=plx.FACE_UP, initial_gyro=bias))
    conf, cal = config(workdir)
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'nobody-here.sock'))
    assert out.returncode == 0, out.stdout + out.stderr
    assert 'directly' in out.stdout + out.stderr and '100 %' in out.stderr, out.stderr
    ini = read_ini(cal)
    truth = quantized(dev, plx.GYRO, bias)
    assert_bias_recovered(vector(ini[('Gyroscope', 'Bias')]), truth, tolerance=0.001)
    mean = vector(ini[('Accelerometer', 'Mean')])
    assert all(abs(m - t) < 0.01 for m, t in zip(mean, quantized(dev, plx.ACCEL, plx.FACE_UP))), mean
    assert ('Accelerometer', 'ScaleError') in ini and ('Gyroscope', 'Noise') in ini
    assert not [f for f in os.listdir(os.path.dirname(cal)) if f != 'calibration.conf'], 'a temporary file was left'


def test_direct_calibration_with_sensor_noise_and_a_mount_matrix(parallaxd_bin, workdir, testbed):
    # A rotated sensor: the bias is measured in the device frame, after the mount matrix.
    bias = (0.031, -0.022, 0.012)
    upright = plx.UPRIGHT
    dev = testbed.add(plx.bmi160(0, accel_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1',
                                 gyro_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1', initial_gyro=bias))
    conf, cal = config(workdir)
    with NoisyStill(testbed, dev, upright, bias):
        out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'), seconds='2')
    assert out.returncode == 0, out.stdout + out.stderr
    ini = read_ini(cal)
    assert_bias_recovered(vector(ini[('Gyroscope', 'Bias')]), bias)
    noise = vector(ini[('Gyroscope', 'Noise')])
    assert all(0 < n < 0.02 for n in noise), 'gyro noise %r' % (noise,)


def test_moving_device_is_refused_and_nothing_written(parallaxd_bin, workdir, testbed):
    dev = testbed.add(plx.bmi160(0, initial_gyro=(0.02, 0.0, 0.0)))
    conf, cal = config(workdir)
    os.makedirs(os.path.dirname(cal))
    with open(cal, 'w') as f:
        f.write('[Gyroscope]\nBias=0.001, 0.002, 0.003\n')
    # Someone picks the device up: turns of 20° back and forth about X and Y, over and over.
    rows = []
    accel = plx.UPRIGHT
    t0 = 0
    for axis, deg in (('x', 20), ('x', -20), ('y', 20), ('y', -20)):
        part, accel = plx.rotation_rows(accel, axis, deg, 0.3)
        rows += [plx.Row(r.t_ns + t0, r.accel, r.gyro) for r in part]
        t0 = rows[-1].t_ns + 1
    player = plx.TracePlayer(testbed, dev, dev, rows, loop=True).start()
    try:
        out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'))
    finally:
        player.stop()
    assert out.returncode == EXIT_REFUSED, out.stdout + out.stderr
    assert 'moved' in out.stderr, out.stderr
    with open(cal) as f:
        assert f.read() == '[Gyroscope]\nBias=0.001, 0.002, 0.003\n', 'a refused calibration changed the file'


def test_missing_gyroscope_is_refused(parallaxd_bin, workdir, testbed):
    testbed.add(plx.hid_accel_3d(0))
    conf, cal = config(workdir)
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'))
    assert out.returncode == EXIT_UNAVAILABLE, out.stdout + out.stderr
    assert 'no gyroscope' in out.stderr, out.stderr
    assert not os.path.exists(cal)


def test_no_sensors_at_all_is_refused(parallaxd_bin, workdir, testbed):
    conf, cal = config(workdir)
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'))
    assert out.returncode == EXIT_UNAVAILABLE, out.stdout + out.stderr
    assert 'cannot open the sensors' in out.stderr, out.stderr


@pytest.mark.parametrize('seconds', ['0', '121', 'abc'])
def test_seconds_out_of_range(parallaxd_bin, workdir, testbed, seconds):
    conf, _ = config(workdir)
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'), seconds=seconds)
    assert out.returncode != 0 and out.returncode != EXIT_REFUSED, out.stdout + out.stderr


# --- a crash while writing the file ----------------------------------------------------------------

CRASH_PRELOAD = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Simulates a crash while parallaxd replaces the calibration file: SIGKILL in the middle of the
   write to the temporary file (PLX_CRASH_AT=write, after half of it), or just before the rename
   (PLX_CRASH_AT=rename). */
static int is_temporary(int fd) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return strstr(path, "/.calibration.conf.tmp") != NULL;
}

ssize_t write(int fd, const void *buf, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *at = getenv("PLX_CRASH_AT");
    if (at && strcmp(at, "write") == 0 && is_temporary(fd)) {
        real(fd, buf, count / 2);
        raise(SIGKILL);
    }
    return real(fd, buf, count);
}

int rename(const char *from, const char *to) {
    static int (*real)(const char *, const char *);
    if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *at = getenv("PLX_CRASH_AT");
    if (at && strcmp(at, "rename") == 0 && strstr(from, "/.calibration.conf.tmp")) raise(SIGKILL);
    return real(from, to);
}
'''


@pytest.fixture
def crash_preload(workdir):
    return build_preload(workdir, 'crash', CRASH_PRELOAD)


@pytest.mark.parametrize('at', ['write', 'rename'])
def test_crash_while_writing_keeps_the_old_file(parallaxd_bin, workdir, testbed, crash_preload, at):
    dev = testbed.add(plx.bmi160(0, initial_gyro=(0.03, -0.02, 0.01)))
    conf, cal = config(workdir)
    os.makedirs(os.path.dirname(cal))
    old = '# an earlier calibration\n[Gyroscope]\nBias=0.001000, 0.002000, 0.003000\n' + '#' * 2000 + '\n'
    with open(cal, 'w') as f:
        f.write(old)
    # First in the list: umockdev's own write() wrapper calls libc directly, past anything after it.
    env = {'LD_PRELOAD': crash_preload + ' ' + testbed.env()['LD_PRELOAD'], 'PLX_CRASH_AT': at}
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'), extra_env=env)
    assert out.returncode == -signal.SIGKILL, 'the injected crash did not happen:\n' + out.stdout + out.stderr
    with open(cal) as f:
        assert f.read() == old, 'the crash tore or replaced the calibration file'
    # The next calibration (no crash) replaces it, and a leftover temporary file does not matter.
    out = calibrate(parallaxd_bin, testbed, conf, os.path.join(workdir, 'none.sock'))
    assert out.returncode == 0, out.stdout + out.stderr
    assert_bias_recovered(vector(read_ini(cal)[('Gyroscope', 'Bias')]), quantized(dev, plx.GYRO, (0.03, -0.02, 0.01)))
    assert os.listdir(os.path.dirname(cal)) == ['calibration.conf']


# --- through the running daemon ---------------------------------------------------------------------

def test_calibration_through_the_daemon_is_applied_at_once(start_daemon, workdir, testbed, parallaxd_bin):
    bias = (-0.0187, 0.0254, 0.0093)
    conf, cal = config(workdir)
    dev = plx.bmi160(0, initial_gyro=bias)
    daemon = start_daemon(dev, config=conf)
    watcher = daemon.connect()
    watcher.subscribe()
    assert watcher.wait_for(lambda o: o.get('type') == 'state', 5, old=True)['calibrated'] is False
    out = calibrate(parallaxd_bin, testbed, conf, daemon.socket_path)
    assert out.returncode == 0, out.stdout + out.stderr + daemon.stderr_tail()
    assert 'running parallaxd' in out.stdout, out.stdout
    assert_bias_recovered(vector(read_ini(cal)[('Gyroscope', 'Bias')]), bias)
    state = watcher.wait_for(lambda o: o.get('type') == 'state' and o.get('calibrated') is True, 5)
    assert state is not None, 'subscribers were not told; ' + describe(watcher)
    assert watcher.status()['calibrated'] is True
    assert daemon.wait_notify(lambda m: m.get('STATUS', '').startswith('calibrating'), 1) is not None


def test_calibrate_command_lines(start_daemon, workdir, testbed):
    """The protocol: progress lines (with the id), then one done line with the measurements."""
    bias = (0.0411, 0.0, -0.0122)
    conf, cal = config(workdir)
    daemon = start_daemon(plx.bmi160(0, initial_gyro=bias), config=conf)
    c = daemon.connect()
    c.send({'cmd': 'calibrate', 'seconds': 1, 'id': 7})
    done = c.wait_for(lambda o: o.get('type') in ('calibration', 'error') and o.get('done', o['type'] == 'error'), 15)
    assert done is not None and done['type'] == 'calibration', describe(c)
    lines = [o for o in c.objects if o.get('type') == 'calibration']
    progress = [o['progress'] for o in lines if 'progress' in o]
    assert progress and progress[0] == 0 and progress == sorted(progress) and all(0 <= p <= 1 for p in progress)
    assert all(o.get('id') == 7 for o in lines)
    assert 'failed' not in done, done
    assert_bias_recovered(done['gyro_bias'], bias)
    for key in ('gyro_noise', 'accel_mean', 'accel_noise'):
        assert len(done[key]) == 3, done
    assert isinstance(done['accel_scale_error'], (int, float)) and done['file'] == cal
    assert done['samples'] >= 50 and 0.9 <= done['seconds'] <= 1.5, done


def test_calibration_through_the_daemon_refuses_motion(start_daemon, workdir, testbed, parallaxd_bin):
    conf, cal = config(workdir)
    dev = plx.bmi160(0, initial_gyro=(0.01, 0.01, 0.01))
    daemon = start_daemon(dev, config=conf)
    rows, _ = plx.rotation_rows(plx.UPRIGHT, 'y', 60, 0.6)
    back, _ = plx.rotation_rows(plx.UPRIGHT, 'y', -60, 0.6)
    player = plx.TracePlayer(testbed, dev, dev, rows + [plx.Row(r.t_ns + rows[-1].t_ns + 1, r.accel, r.gyro) for r in back],
                             loop=True).start()
    try:
        out = calibrate(parallaxd_bin, testbed, conf, daemon.socket_path)
    finally:
        player.stop()
    assert out.returncode == EXIT_REFUSED, out.stdout + out.stderr
    assert 'moved' in out.stderr
    assert not os.path.exists(cal)
    assert daemon.connect().status()['calibrated'] is False


def test_calibrate_without_a_gyroscope_through_the_daemon(start_daemon, workdir):
    conf, cal = config(workdir)
    daemon = start_daemon(plx.hid_accel_3d(0), config=conf)
    c = daemon.connect()
    done = c.request({'cmd': 'calibrate', 'seconds': 1}, 'calibration', timeout=1)  # the progress line
    assert done is not None and done['type'] == 'calibration'
    end = c.wait_for(lambda o: o.get('type') == 'calibration' and o.get('done'), 10)
    assert end is not None and end['failed'] == 'missing_sensor', describe(c)
    assert 'gyroscope' in end['message']


def test_one_calibration_at_a_time(start_daemon, workdir):
    conf, _ = config(workdir)
    daemon = start_daemon(plx.bmi160(0), config=conf)
    a, b = daemon.connect(), daemon.connect()
    a.send({'cmd': 'calibrate', 'seconds': 2})
    assert a.wait_for(lambda o: o.get('type') == 'calibration', 5) is not None
    reply = b.request({'cmd': 'calibrate', 'seconds': 1}, 'calibration')
    assert reply is not None and reply['type'] == 'error' and reply['code'] == 'unavailable', reply
    assert a.wait_for(lambda o: o.get('type') == 'calibration' and o.get('done'), 10) is not None


# --- applied at start and on reload ---------------------------------------------------------------------

def test_calibration_file_applied_at_start_and_on_reload(start_daemon, workdir):
    conf, cal = config(workdir)
    os.makedirs(os.path.dirname(cal))
    with open(cal, 'w') as f:
        f.write('[Gyroscope]\nBias=0.01, -0.02, 0.005\n')
    daemon = start_daemon(plx.bmi160(0), config=conf)
    c = daemon.connect()
    c.subscribe()
    assert c.wait_for(lambda o: o.get('type') == 'state', 5, old=True)['calibrated'] is True
    assert 'calibration from %s' % cal in daemon.stderr_text()
    # The file goes away; on reload the daemon is no longer calibrated and says so.
    os.unlink(cal)
    daemon.signal(signal.SIGHUP)
    state = c.wait_for(lambda o: o.get('type') == 'state' and o.get('calibrated') is False, 5)
    assert state is not None, describe(c)
    # A new one appears; the next reload applies it.
    with open(cal, 'w') as f:
        f.write('[Gyroscope]\nBias=0.002, 0.002, 0.002\n')
    daemon.signal(signal.SIGHUP)
    assert c.wait_for(lambda o: o.get('type') == 'state' and o.get('calibrated') is True, 5) is not None
    assert c.status()['calibrated'] is True


def test_calibrate_needs_a_controller(start_daemon, workdir, testbed, parallaxd_bin):
    """Through the daemon the command is privileged: an ordinary user gets permission_denied
    (exit 77) and nothing is measured or written, not even by falling back to measuring directly."""
    if os.geteuid() != 0:
        pytest.skip('needs root to run the command as another user')
    setpriv = shutil.which('setpriv')
    if setpriv is None:
        pytest.skip('setpriv missing (package util-linux)')
    conf, cal = config(workdir)
    daemon = start_daemon(plx.bmi160(0), config=conf)
    os.chmod(workdir, 0o755)
    os.chmod(conf, 0o644)
    env = dict(os.environ)
    env.update(testbed.env())
    # nobody runs a shared copy of the binary: the clone may be in a folder it cannot enter.
    out = subprocess.run([setpriv, '--reuid=nobody', '--regid=nogroup', '--clear-groups', accounts.shared_copy(parallaxd_bin), '--calibrate',
                          '--seconds', SECONDS, '--config', conf, '--socket', daemon.socket_path],
                         env=env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=60)
    assert out.returncode == 77, out.stdout + out.stderr
    assert 'refused' in out.stderr and 'directly' not in out.stderr, out.stderr
    assert not os.path.exists(cal)


def test_unwritable_calibration_directory_is_named_before_measuring(parallaxd_bin, workdir, testbed):
    if os.geteuid() != 0:
        pytest.skip('needs root to run the command as another user')
    setpriv = shutil.which('setpriv')
    if setpriv is None:
        pytest.skip('setpriv missing (package util-linux)')
    testbed.add(plx.bmi160(0))
    conf, cal = config(workdir)
    os.makedirs(os.path.dirname(cal))
    for path in (workdir, os.path.dirname(cal), testbed.root):
        os.chmod(path, 0o755)
    os.chmod(conf, 0o644)
    env = dict(os.environ)
    env.update(testbed.env())
    # nobody runs a shared copy of the binary: the clone may be in a folder it cannot enter.
    out = subprocess.run([setpriv, '--reuid=nobody', '--regid=nogroup', '--clear-groups', accounts.shared_copy(parallaxd_bin), '--calibrate',
                          '--seconds', '5', '--config', conf, '--socket', os.path.join(workdir, 'none.sock')],
                         env=env, cwd=accounts.NEUTRAL_CWD, capture_output=True, text=True, timeout=60)
    assert out.returncode == 73, out.stdout + out.stderr
    assert 'Permission denied' in out.stderr and 'calibrating:' not in out.stderr, out.stderr


# --- the disk is slow: the daemon keeps serving while the file is written ----------------------------

# fsync that waits while the file $PLX_FSYNC_GATE exists, as a busy or failing disk would; it
# creates $PLX_FSYNC_GATE.entered when it starts waiting.
SLOW_FSYNC_PRELOAD = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    const char *gate = getenv("PLX_FSYNC_GATE");
    if (gate && access(gate, F_OK) == 0) {
        char entered[4096];
        snprintf(entered, sizeof entered, "%s.entered", gate);
        close(open(entered, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        while (access(gate, F_OK) == 0) usleep(10000);
    }
    return real(fd);
}
'''


@pytest.fixture
def slow_fsync_preload(workdir):
    return build_preload(workdir, 'slowfsync', SLOW_FSYNC_PRELOAD)


def test_the_daemon_serves_while_the_calibration_is_written(start_daemon, workdir, testbed, slow_fsync_preload):
    import time
    conf, cal = config(workdir)
    gate = os.path.join(workdir, 'fsync-gate')
    env = {'LD_PRELOAD': slow_fsync_preload + ' ' + testbed.env()['LD_PRELOAD'], 'PLX_FSYNC_GATE': gate}
    daemon = start_daemon(plx.bmi160(0, initial_gyro=(0.02, 0.0, 0.0)), config=conf, env=env)
    c = daemon.connect()
    open(gate, 'w').close()
    try:
        c.send({'cmd': 'calibrate', 'seconds': 1, 'id': 1})
        deadline = time.monotonic() + 30
        while not os.path.exists(gate + '.entered') and time.monotonic() < deadline:
            time.sleep(0.02)    # the marker is a file: polled
        assert os.path.exists(gate + '.entered'), 'the calibration never reached fsync; ' + describe(c)
        # The file waits for the disk; newcomers are greeted and answered meanwhile.
        other = daemon.connect()
        assert other.status() is not None, 'no status while the calibration file is being written'
        assert c.wait_for(lambda o: o.get('type') == 'calibration' and o.get('done'), 0.5) is None, \
            'the calibration was reported done before its file was on disk'
    finally:
        os.unlink(gate)
    done = c.wait_for(lambda o: o.get('type') == 'calibration' and o.get('done'), 10)
    assert done is not None and 'failed' not in done and done['file'] == cal, describe(c)
    assert os.path.exists(cal)
    assert other.status()['calibrated'] is True
