"""Remote sensors (issue 4 item 6): `parallaxd --source iio:ip:HOST` reads a device through iiod,
libiio's network server. iiod 0.24 listens on every address, so it runs only inside a private
network namespace (Tests/integration/README.md "Remote sensors"), preloaded with the umockdev testbed; parallaxd
joins that namespace WITHOUT the preload, so every sample it fuses came over TCP. The test talks
to parallaxd over its Unix socket from outside the namespace."""
import os

import pytest

import plx
from helpers import SIGN_THRESHOLD, describe, expect_offset, is_root, subscribe_ready, test_failed, tilt_x

# The remote host as parallaxd sees it: loopback of the private namespace.
HOST = '127.0.0.1'
SOURCE = 'iio:ip:' + HOST
# Time for the daemon to notice that iiod is gone (s): the next poll fails at once on a reset
# connection; libiio's own network timeout bounds a silent one.
LOST_TIMEOUT = 8.0
# Time for the sensor to come back after iiod restarts (s): the supervisor's back-off tops out
# at 10 s, plus the reconnect and the first samples.
BACK_TIMEOUT = 15.0


def _state(sensor):
    return lambda o: o.get('type') == 'state' and o.get('sensor') == sensor


@pytest.fixture
def netns():
    if not is_root():
        pytest.skip('a private network namespace needs root here')
    try:
        ns = plx.NetNamespace()
    except plx.HarnessError as e:
        pytest.skip(str(e))
    yield ns
    ns.close()


@pytest.fixture
def serve_remote(request, workdir, parallaxd_bin, testbed, netns):
    """serve_remote(*devices) → (daemon, iiod): the devices in the testbed served by iiod,
    parallaxd ready and reading them over ip:127.0.0.1. Teardown: parallaxd must exit 0 on
    SIGTERM, no client may have seen a protocol violation; iiod and the namespace are ended."""
    if plx.find_system_binary('iiod') is None:
        pytest.skip('iiod not installed (apt-get install iiod)')
    started = []

    def serve(*devices, server_first=True, **daemon_kw):
        for d in devices:
            testbed.add(d)
        server = plx.IIOServer(netns, testbed, workdir)
        daemon = plx.remote_daemon(workdir, netns, HOST, binary=parallaxd_bin, **daemon_kw)
        started.append((daemon, server))
        if server_first:
            server.start()
        daemon.start()
        return daemon, server

    yield serve
    problems = []
    for daemon, server in started:
        problems += daemon.finish(test_failed(request), extra_log=server.log_tail)
        server.kill()
    if problems:
        pytest.fail('; '.join(problems))



@pytest.fixture
def remote(serve_remote):
    """(daemon, iiod, device): a bmi160 standing upright, served remotely."""
    dev = plx.bmi160(0)
    daemon, server = serve_remote(dev)
    return daemon, server, dev


def test_daemon_is_not_preloaded(remote):
    """The premise of every other test here: parallaxd cannot see the testbed's sysfs itself."""
    daemon, _, _ = remote
    with open('/proc/%d/environ' % daemon.pid, 'rb') as f:
        env = dict(kv.split(b'=', 1) for kv in f.read().split(b'\0') if b'=' in kv)
    assert b'LD_PRELOAD' not in env and b'UMOCKDEV_DIR' not in env, env
    assert os.readlink('/proc/%d/exe' % daemon.pid) == os.path.realpath(daemon.parallaxd)
    assert os.readlink('/proc/%d/ns/net' % daemon.pid) != os.readlink('/proc/self/ns/net'), \
        'parallaxd runs in the test\'s own network namespace'


def test_status_names_the_remote_source(remote):
    daemon, _, _ = remote
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    s = c.status()
    assert s is not None and s.get('type') == 'status', s
    assert s.get('source') == SOURCE, s
    sensors = s.get('sensors')
    assert sensors, 'status lists no sensors for %s: %s' % (SOURCE, s)
    kinds = sorted(str(sensor.get('kind')) for sensor in sensors)
    assert len(kinds) == 2 and kinds[0].startswith('accel') and kinds[1] in ('anglvel', 'gyro'), \
        'an accelerometer and a gyroscope expected: %s' % s


def test_tilt_arrives_over_the_network(remote, testbed):
    daemon, _, dev = remote
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev)
    frame = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f through iiod' % SIGN_THRESHOLD)
    assert abs(frame['x']) < SIGN_THRESHOLD, 'a tilt about X moved x too; ' + describe(c)


def test_iiod_killed_then_restarted(remote, testbed):
    daemon, server, dev = remote
    c = daemon.connect()
    subscribe_ready(c)
    mark = c.mark()
    server.kill()
    lost = c.wait_for(_state('lost'), LOST_TIMEOUT, since=mark)
    assert lost is not None, 'no state "lost" within %.0f s of iiod dying; %s' % (LOST_TIMEOUT, describe(c))
    # The daemon keeps serving while the remote end is gone.
    s = c.status()
    assert s is not None and s.get('type') == 'status', 'no status while iiod is down: %r' % (s,)
    assert daemon.alive()
    other = daemon.connect()
    assert other.status() is not None, 'a new client got no status while iiod is down'

    mark = c.mark()
    server.start()
    back = c.wait_for(_state('ok'), BACK_TIMEOUT, since=mark)
    assert back is not None, 'sensor not "ok" within %.0f s of iiod restarting; %s' % (BACK_TIMEOUT, describe(c))
    # And motion flows again through the new connection.
    assert c.settle(quiet=0.5), describe(c)
    tilt_x(testbed, dev, dev)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f after iiod came back' % SIGN_THRESHOLD)


# Mount matrices reach parallaxd only as IIO attributes over the network (the udev property is
# local knowledge): each variant puts the sensor's axes somewhere else, and the harness writes raw
# values through the inverse matrix, so a daemon that missed the matrix reads the wrong tilt.
REMOTE_MATRICES = {
    'mount_matrix': dict(mount_matrix='0, -1, 0; -1, 0, 0; 0, 0, -1'),
    'in_mount_matrix': dict(in_mount_matrix='1, 0, 0; 0, 0, 1; 0, -1, 0'),
    'per-type': dict(accel_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1', gyro_mount_matrix='0, -1, 0; 1, 0, 0; 0, 0, 1'),
}


@pytest.mark.parametrize('variant', sorted(REMOTE_MATRICES))
def test_mount_matrix_read_over_the_network(serve_remote, testbed, variant):
    dev = plx.bmi160(0, **REMOTE_MATRICES[variant])
    daemon, _ = serve_remote(dev)
    c = daemon.connect()
    subscribe_ready(c)
    tilt_x(testbed, dev, dev)
    frame = expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f with %s over iiod' % (SIGN_THRESHOLD, variant))
    assert abs(frame['x']) < SIGN_THRESHOLD, 'a tilt about X moved x too (matrix %s); %s' % (variant, describe(c))


def test_iiod_not_up_yet(serve_remote, testbed):
    """A daemon started before its remote end: the subscriber hears "lost", the daemon serves
    meanwhile, and the supervisor's retries find iiod once it listens."""
    dev = plx.bmi160(0)
    daemon, server = serve_remote(dev, server_first=False)
    c = daemon.connect()
    reply = c.subscribe()
    assert reply is not None and reply.get('type') == 'subscribed', reply
    first = c.wait_for(lambda o: o.get('type') == 'state', 5.0, old=True)
    assert first is not None and first.get('sensor') == 'lost', \
        'state on subscribe while iiod is down: %r (expected "lost"); %s' % (first, describe(c))
    s = c.status()
    assert s is not None and s.get('source') == SOURCE and s.get('sensor') == 'lost', s
    mark = c.mark()
    server.start()
    back = c.wait_for(_state('ok'), BACK_TIMEOUT, since=mark)
    assert back is not None, 'sensor not "ok" within %.0f s of iiod starting; %s' % (BACK_TIMEOUT, describe(c))
    assert c.settle(quiet=0.5), describe(c)
    tilt_x(testbed, dev, dev)
    expect_offset(c, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f once iiod is up' % SIGN_THRESHOLD)


def test_remote_buffered_device_is_polled(serve_remote, testbed, feeders):
    """docs/sensors.md: a network buffer has no poll fd, so a device with scan elements is read
    by polling its attributes through iiod (logged as such) and motion still arrives."""
    dev = plx.buffered_bmi160(0)
    testbed.add(dev)
    feeders.append(plx.ScanFeeder(testbed, dev).start())
    daemon, _ = serve_remote()
    c = daemon.connect()
    subscribe_ready(c)
    log = daemon.stderr_text()
    assert 'cannot be polled' in log and 'polled at' in log, daemon.stderr_tail()
    tilt_x(testbed, dev, dev, -15.0)
    expect_offset(c, lambda x, y: y < -SIGN_THRESHOLD, 'y < -%.2f from a buffered device over iiod' % SIGN_THRESHOLD)
