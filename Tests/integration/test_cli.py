"""Command lines and systemd integration (parallaxd(8), parallaxctl(1), docs/configuration.md, docs/operations.md)."""
import json
import math
import os
import re
import shutil
import subprocess

import pytest

import plx
from helpers import SIGN_THRESHOLD, describe, expect_offset, subscribe_ready, tilt_x, trace

# sysexits.h EX_CONFIG: what --check-config returns for a bad file.
EX_CONFIG = 78


def run(argv, timeout=30, env=None):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


# --- --check-config -------------------------------------------------------------------------------

BAD_CONFIGS = {
    'bad-mode': ('[Daemon]\nSocket=/tmp/plx-unused.sock\n\n[Motion]\nMode=sideways\n', 5),
    'bad-boolean': ('# comment\n[Motion]\nReduceMotion=perhaps\n', 3),
    'not-ini': ('[Motion]\nMode=attitude\nthis line has neither an equals sign nor brackets\n', 3),
}


@pytest.mark.parametrize('name', list(BAD_CONFIGS))
def test_check_config_names_file_and_line(parallaxd_bin, workdir, name):
    text, line = BAD_CONFIGS[name]
    path = os.path.join(workdir, 'bad.conf')
    with open(path, 'w') as f:
        f.write(text)
    out = run([parallaxd_bin, '--check-config', '--config', path])
    assert out.returncode == EX_CONFIG, 'exit %d, expected 78\n%s%s' % (out.returncode, out.stdout, out.stderr)
    assert re.search(r'bad\.conf:%d: \S' % line, out.stdout + out.stderr), \
        'expected "bad.conf:%d: message":\n%s%s' % (line, out.stdout, out.stderr)


def test_check_config_accepts_a_good_file(parallaxd_bin, workdir):
    path = os.path.join(workdir, 'good.conf')
    with open(path, 'w') as f:
        f.write('# a comment\n[Daemon]\nSocket=%s/p.sock\n\n[Sensor]\nSource=auto\n\n[Motion]\nMode=rate\n'
                'ReduceMotion=false\n' % workdir)
    out = run([parallaxd_bin, '--check-config', '--config', path])
    assert out.returncode == 0, out.stdout + out.stderr


def test_check_config_accepts_the_documented_defaults(parallaxd_bin):
    # config/parallaxd.conf documents every key with its default: it must itself be valid.
    path = os.path.join(plx.REPO_ROOT, 'config', 'parallaxd.conf')
    assert os.path.isfile(path), 'config/parallaxd.conf is missing'
    out = run([parallaxd_bin, '--check-config', '--config', path])
    assert out.returncode == 0, out.stdout + out.stderr


def test_daemon_refuses_to_start_with_a_bad_config(parallaxd_bin, workdir):
    path = os.path.join(workdir, 'bad.conf')
    with open(path, 'w') as f:
        f.write('[Motion]\nMode=sideways\n')
    out = run([parallaxd_bin, '--config', path, '--socket', os.path.join(workdir, 's.sock')])
    assert out.returncode != 0, 'started with an invalid config\n' + out.stdout + out.stderr
    assert 'bad.conf:2:' in out.stdout + out.stderr


# --- socket activation ----------------------------------------------------------------------------

def test_socket_activation_adopts_listen_fds(parallaxd_bin, workdir, testbed):
    if shutil.which('systemd-socket-activate') is None:
        pytest.fail('systemd-socket-activate missing (package systemd)')
    testbed.add(plx.bmi160(0))
    sock = os.path.join(workdir, 'x.sock')
    unused = os.path.join(workdir, 'not-this.sock')
    notify = plx.NotifySocket(os.path.join(workdir, 'notify.sock'))
    activated = plx.SocketActivated(parallaxd_bin, sock, dict(testbed.env(), NOTIFY_SOCKET=notify.path),
                                    ['--socket', unused, '--config', '/dev/null', '--source', 'auto', '--log-level', 'debug'])
    try:
        activated.start()
        # The first connection starts parallaxd with LISTEN_FDS=1; it must answer on that socket.
        c = plx.Client(sock, timeout=5.0)
        hello = c.wait_hello(20.0)
        assert hello is not None and hello['protocol'] == 1, 'no hello over the activated socket\n' + activated.text()
        assert notify.wait_for(lambda m: m.get('READY') == '1', 5.0) is not None, 'no READY=1 when activated'
        assert not os.path.exists(unused), 'bound its own socket instead of adopting LISTEN_FDS'
        s = c.status()
        assert s is not None and s['type'] == 'status'
        c2 = plx.Client(sock)
        assert c2.wait_hello(5.0) is not None
        c.close()
        c2.close()
    finally:
        rc = activated.stop()
        notify.close()
    assert rc == 0, 'exit %s after SIGTERM\n%s' % (rc, activated.text())


# --- replay and simulate --------------------------------------------------------------------------

def test_replay_source(start_daemon):
    daemon = start_daemon(source='replay:' + trace('ngimu.csv'))
    c = daemon.connect()
    subscribe_ready(c, rate=30, settle=False)
    moved = c.wait_offset(lambda x, y: max(abs(x), abs(y)) > 0.05, 10.0)
    assert moved is not None, 'a replayed recording produced no motion; ' + describe(c)


def test_simulate_prints_offset_lines(parallaxctl_bin):
    # "offset JSON lines": one object per line with t, x, y (other fields, e.g. a type, seq or the
    # attitude, are allowed); t is the trace time of the sample behind it.
    path = trace('ngimu.csv')
    _, rows = plx.read_trace(path)
    out = run([parallaxctl_bin, 'simulate', path], timeout=60)
    assert out.returncode == 0, out.stderr
    frames = []
    for line in out.stdout.splitlines():
        obj = json.loads(line, parse_constant=lambda c: pytest.fail('%s in simulate output' % c))
        assert isinstance(obj, dict) and obj.get('type', 'offset') == 'offset', line
        obj.setdefault('seq', len(frames))
        assert plx.offset_problem(obj) is None, line
        frames.append(obj)
    assert len(frames) >= 10, out.stdout[:500]
    for o in frames:
        assert rows[0].t_ns <= o['t'] <= rows[-1].t_ns, 't %d outside the trace' % o['t']
    assert all(b['seq'] > a['seq'] and b['t'] >= a['t'] for a, b in zip(frames, frames[1:]))
    assert max(math.hypot(o['x'], o['y']) for o in frames) > 0.05
    again = run([parallaxctl_bin, 'simulate', path], timeout=60)
    assert again.stdout == out.stdout, 'simulate is not deterministic'


def test_parallaxctl_status(imu_daemon, parallaxctl_bin):
    daemon, _ = imu_daemon
    out = run([parallaxctl_bin, '--socket', daemon.socket_path, 'status'])
    assert out.returncode == 0, out.stdout + out.stderr
    sensor = [line for line in out.stdout.splitlines() if line.startswith('sensor ')]
    assert len(sensor) == 1 and re.search(r'^sensor +(ok|lost|none), (open|closed)', sensor[0]), out.stdout


def test_parallaxctl_monitor_shows_motion(imu_daemon, testbed, parallaxctl_bin):
    daemon, dev = imu_daemon
    proc = subprocess.Popen([parallaxctl_bin, '--socket', daemon.socket_path, 'monitor', '--seconds', '3'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watcher = daemon.connect()
    subscribe_ready(watcher)
    tilt_x(testbed, dev, dev, 20.0)
    expect_offset(watcher, lambda x, y: y > SIGN_THRESHOLD, 'y > %.2f' % SIGN_THRESHOLD)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert out.strip(), 'monitor printed nothing during motion'
