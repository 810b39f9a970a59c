"""Start, readiness, hello, status, signals and the systemd notify protocol (DESIGN.md "systemd")."""
import os
import re
import signal
import subprocess

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
