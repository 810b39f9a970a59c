"""Start, readiness, hello, status, signals and the systemd notify protocol (docs/operations.md)."""
import os
import re
import shutil
import signal
import socket
import subprocess

import pytest

import plx
from helpers import describe, subscribe_ready

SEMVER = re.compile(r'^\d+\.\d+\.\d+')


def test_ready_then_hello(imu_daemon):
    daemon, _ = imu_daemon
    assert any(m.get('READY') == '1' for m in daemon.notify_messages())
    c = daemon.connect()
    assert c.objects[0] is c.hello, 'hello must be the first line'
    h = c.hello
    assert h['type'] == 'hello' and h['protocol'] == 1 and h['server'] == 'parallaxd'
    assert isinstance(h['version'], str) and SEMVER.match(h['version']), h
    assert isinstance(h['max_rate'], (int, float)) and not isinstance(h['max_rate'], bool) and h['max_rate'] >= 60, h
    if os.geteuid() != 0:
        assert h['max_rate'] == 60, 'unprivileged clients are capped at 60 Hz'


def test_status_reply(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    s = c.request({'cmd': 'status', 'id': 'st-1'}, 'status')
    assert s is not None and s['type'] == 'status', s
    assert s.get('id') == 'st-1'
    for key in ('sensors', 'source', 'mode', 'subscribers', 'reduce_motion', 'calibrated', 'uptime'):
        assert key in s, 'status lacks %r: %r' % (key, s)
    assert s['mode'] == 'attitude', 'default motion mode'
    assert s['reduce_motion'] is False
    assert isinstance(s['calibrated'], bool)
    assert isinstance(s['uptime'], (int, float)) and s['uptime'] >= 0


def test_sigterm_with_a_subscriber_exits_0(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    assert daemon.stop() == 0, daemon.stderr_tail()


def test_sighup_reloads_and_keeps_serving(imu_daemon):
    daemon, _ = imu_daemon
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    since = daemon.notify.count()
    daemon.signal(signal.SIGHUP)
    # A reload may announce RELOADING=1 and READY=1 again (systemd 252 does not require it).
    s = c.status()
    assert s is not None and s['type'] == 'status', 'no status after SIGHUP; ' + describe(c)
    assert daemon.alive()
    c2 = daemon.connect()
    assert c2.hello is not None
    msgs = daemon.notify_messages()[since:]
    if any(m.get('RELOADING') == '1' for m in msgs):
        assert daemon.wait_notify(lambda m: m.get('READY') == '1', 5, since=since) is not None, \
            'RELOADING=1 without a READY=1 after it'


def test_watchdog_pings_when_asked(start_daemon):
    # WATCHDOG_USEC set (as systemd does with WatchdogSec=): pings at least every half period.
    daemon = start_daemon(plx.bmi160(0), watchdog_usec=1_000_000)
    since = daemon.notify.count()
    first = daemon.wait_notify(lambda m: m.get('WATCHDOG') == '1', 2.0, since=since)
    assert first is not None, 'no WATCHDOG=1 within 2 s with WATCHDOG_USEC=1 s'
    since = daemon.notify.count()
    assert daemon.wait_notify(lambda m: m.get('WATCHDOG') == '1', 2.0, since=since) is not None, \
        'WATCHDOG=1 not repeated'


def test_version_flag_matches_hello(imu_daemon, parallaxd_bin):
    daemon, _ = imu_daemon
    hello = daemon.connect().hello
    out = subprocess.run([parallaxd_bin, '--version'], capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    assert hello['version'] in out.stdout + out.stderr


# --- systemd: notify, reload, shutdown, socket activation, journal ------------------------------------

# How long the daemon gets to exit after SIGTERM in these tests (s).
EXIT_TIMEOUT = 10


def write_config(path, text):
    with open(path, 'w') as f:
        f.write(text)
    return path


def terminate(daemon):
    """SIGTERM, wait for the exit, and return (exit code, notify messages up to the exit)."""
    daemon.signal(signal.SIGTERM)
    rc = daemon.proc.wait(EXIT_TIMEOUT)
    # The last datagrams may still be in the receiver's queue: wait for STOPPING=1 briefly.
    daemon.notify.wait_for(lambda m: m.get('STOPPING') == '1', 2)
    return rc, daemon.notify_messages()


def test_notify_sequence_ready_status_reloading_stopping(start_daemon, workdir):
    conf = write_config(os.path.join(workdir, 'p.conf'), '[Motion]\nMode=attitude\n')
    daemon = start_daemon(plx.bmi160(0), config=conf)
    ready = daemon.wait_notify(lambda m: m.get('READY') == '1', 1)
    assert ready['STATUS'].startswith('serving on ') and 'sensor ok' in ready['STATUS'], ready
    assert ready.get('MAINPID') == str(daemon.pid)
    since = daemon.notify.count()
    daemon.signal(signal.SIGHUP)
    reloading = daemon.wait_notify(lambda m: m.get('RELOADING') == '1', 5, since=since)
    assert reloading is not None and reloading['MONOTONIC_USEC'].isdigit(), daemon.notify_messages()[since:]
    after = daemon.wait_notify(lambda m: m.get('READY') == '1', 5, since=since)
    assert after is not None and 'serving on' in after['STATUS']
    rc, messages = terminate(daemon)
    assert rc == 0, daemon.stderr_tail()
    order = [k for m in messages for k in ('READY', 'RELOADING', 'STOPPING') if m.get(k) == '1']
    assert order == ['READY', 'RELOADING', 'READY', 'STOPPING'], messages


def test_reload_applies_a_good_config_without_dropping_clients(start_daemon, workdir):
    conf = write_config(os.path.join(workdir, 'p.conf'), '[Access]\nPrivilegedMaxRate=120\nMaxRate=50\n')
    daemon = start_daemon(plx.bmi160(0), config=conf)
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    write_config(conf, '[Access]\nPrivilegedMaxRate=90\nMaxRate=40\n[Motion]\nReduceMotion=yes\n')
    daemon.signal(signal.SIGHUP)
    state = c.wait_for(lambda o: o.get('type') == 'state' and o.get('reduce_motion') is True, 5)
    assert state is not None, 'the reloaded ReduceMotion=yes did not reach the client; ' + describe(c)
    assert not c.closed_by_server and c.status() is not None, 'a reload dropped the client'
    expected = 90 if os.geteuid() == 0 else 40
    assert daemon.connect().hello['max_rate'] == expected, 'new clients get the reloaded rate cap'
    assert 'configuration reloaded' in daemon.stderr_text()


def test_reload_refuses_a_bad_config_and_keeps_the_old_one(start_daemon, workdir):
    conf = write_config(os.path.join(workdir, 'p.conf'), '[Access]\nPrivilegedMaxRate=120\nMaxRate=50\n')
    daemon = start_daemon(plx.bmi160(0), config=conf)
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    write_config(conf, '[Access]\nPrivilegedMaxRate=77\n[Motion]\nMode=sideways\nReduceMotion=yes\n')
    since = daemon.notify.count()
    daemon.signal(signal.SIGHUP)
    ready = daemon.wait_notify(lambda m: m.get('READY') == '1', 5, since=since)
    assert ready is not None and 'reload refused' in ready.get('STATUS', ''), daemon.notify_messages()[since:]
    log = daemon.stderr_text()
    assert 'p.conf:4:' in log and 'reload refused' in log, log
    assert re.search(r'^<3>.*reload refused', log, re.M), 'the refusal is logged as an error'
    s = c.status()
    assert s is not None and s['reduce_motion'] is False, 'a refused config must not apply in part'
    expected = 120 if os.geteuid() == 0 else 50
    assert daemon.connect().hello['max_rate'] == expected


def test_sigterm_closes_clients_and_removes_the_socket(start_daemon):
    daemon = start_daemon(plx.bmi160(0))
    c = daemon.connect()
    subscribe_ready(c, settle=False)
    rc, messages = terminate(daemon)
    assert rc == 0, daemon.stderr_tail()
    assert any(m.get('STOPPING') == '1' for m in messages)
    assert c.wait_closed(2), 'the subscriber was not disconnected'
    assert not os.path.exists(daemon.socket_path), 'the socket file was left behind'
    assert 'stopped' in daemon.stderr_text()


def test_socket_activation_with_notify(parallaxd_bin, workdir, testbed):
    """systemd-socket-activate holds the socket; the first client starts parallaxd (LISTEN_FDS=1);
    the notify datagrams come to the test's own NOTIFY_SOCKET; SIGTERM ends it with 0 and the
    socket, which the activator owns, stays."""
    activate = shutil.which('systemd-socket-activate')
    if activate is None:
        pytest.skip('systemd-socket-activate missing (package systemd)')
    testbed.add(plx.bmi160(0))
    sock = os.path.join(workdir, 'activated.sock')
    notify = plx.NotifySocket(os.path.join(workdir, 'notify.sock'))
    activated = plx.SocketActivated(parallaxd_bin, sock,
                                    dict(testbed.env(), NOTIFY_SOCKET=notify.path, WATCHDOG_USEC='1000000'),
                                    ['--config', '/dev/null', '--log-level', 'debug'])
    try:
        activated.start()
        assert notify.count() == 0, 'parallaxd started before anyone connected'
        c = plx.Client(sock)
        assert c.wait_hello(20) is not None, activated.text()
        ready = notify.wait_for(lambda m: m.get('READY') == '1', 10)
        assert ready is not None and 'socket from systemd' in ready.get('STATUS', ''), ready
        assert notify.wait_for(lambda m: m.get('WATCHDOG') == '1', 3) is not None, 'no watchdog pings'
        c.close()
        rc = activated.stop(EXIT_TIMEOUT)   # the activator exec'd parallaxd: same pid
        assert notify.wait_for(lambda m: m.get('STOPPING') == '1', 2) is not None
        assert rc == 0, activated.text()
        assert os.path.exists(sock), 'parallaxd removed a socket that systemd owns'
    finally:
        activated.stop()
        notify.close()


def test_stderr_lines_carry_priorities_and_log_level_filters(start_daemon):
    daemon = start_daemon(plx.bmi160(0), log_level='notice')
    daemon.connect().status()
    lines = [l for l in daemon.stderr_text().splitlines() if l]
    assert lines and all(re.match(r'^<[0-7]>', l) for l in lines), lines
    assert all(int(l[1]) <= 5 for l in lines), 'info and debug lines despite --log-level notice: %r' % lines
    assert any(l.startswith('<5>') and 'serving on' in l for l in lines)


def test_journal_entries_when_stderr_is_the_journal(parallaxd_bin, workdir, testbed):
    """With JOURNAL_STREAM naming its stderr, every message goes to journald's native socket as
    a structured entry. The test's own datagram socket stands in for journald, bind-mounted over
    /run/systemd/journal/socket in a private mount namespace."""
    if os.geteuid() != 0:
        pytest.skip('needs root for a private mount namespace')
    if shutil.which('unshare') is None:
        pytest.skip('unshare missing (package util-linux)')
    testbed.add(plx.bmi160(0))
    journal_dir = os.path.join(workdir, 'journal')
    os.mkdir(journal_dir)
    jsock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    jsock.bind(os.path.join(journal_dir, 'socket'))
    jsock.settimeout(10)
    notify = plx.NotifySocket(os.path.join(workdir, 'notify.sock'))
    stderr_path = os.path.join(workdir, 'stderr')
    # stderr is a file here; JOURNAL_STREAM names that file's device and inode, as systemd
    # names the stream socket it connects.
    script = ('mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && touch /run/systemd/journal/socket && '
              'mount --bind "$1/socket" /run/systemd/journal/socket && '
              'st=$(stat -c "%d:%i" "$2") && JOURNAL_STREAM=$st exec "$3" --socket "$4" --config /dev/null --log-level debug')
    env = dict(os.environ)
    env.update(testbed.env())
    env['NOTIFY_SOCKET'] = notify.path
    with open(stderr_path, 'wb') as err:
        proc = subprocess.Popen(['unshare', '--mount', 'sh', '-c', script, 'sh', journal_dir, stderr_path, parallaxd_bin,
                                 os.path.join(workdir, 'j.sock')], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        assert notify.wait_for(lambda m: m.get('READY') == '1', 20) is not None, open(stderr_path).read()
        entries = []
        while len(entries) < 3:
            data = jsock.recv(65536).decode()
            entries.append(dict(line.split('=', 1) for line in data.split('\n') if '=' in line))
        serving = [e for e in entries if 'serving on' in e.get('MESSAGE', '')]
        assert serving, entries
        e = serving[0]
        assert e['PRIORITY'] == '5' and e['SYSLOG_IDENTIFIER'] == 'parallaxd' and e['PARALLAXD_LOGGER'] == 'parallaxd'
        assert e['CODE_FILE'].endswith('.swift') and e['CODE_LINE'].isdigit() and e['CODE_FUNC']
        assert all(x['PRIORITY'] in '01234567' for x in entries)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(EXIT_TIMEOUT) == 0
        with open(stderr_path) as f:
            assert 'serving on' not in f.read(), 'messages went to stderr as well as to the journal'
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        notify.close()
        jsock.close()
