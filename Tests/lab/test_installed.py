"""The project's Debian packages on a booted system (systemd as PID 1, udev, journald, dbus) on
the real kernel drivers: installed with apt-get offline, nothing by hand; a member of group
parallax watching `parallaxctl monitor` while our HID hub turns; reload, the journal's fields,
`systemd-analyze security`, stop and socket activation, the hub unplugged and plugged back, the
watchdog, a stranger refused, iio-sensor-proxy beside it; then purged, nothing left.

The tests are one scenario in order on one guest (the `booted` session fixture): each step
starts from the state the previous one left (the packages installed, the hub created once).
"""
import json
import os
import subprocess
import threading
import time
import weakref

import pytest

from labkit import GuestHub, PLXRUN as PLXRUN_SHARED, offsets

GUEST_COPY = '/run/lab-guest'
# The guests whose programs were copied to GUEST_COPY (stage_guest_programs), each with its copy
# of plxrun.py. Per guest: the 6.12 scenario's guest, which uses these helpers too, has no copy.
STAGED = weakref.WeakKeyDictionary()
from labvm import LabError

UNIT = 'parallaxd.service'
SOCKET_UNIT = 'parallaxd.socket'
SOCKET = '/run/parallaxd/parallaxd.sock'
MEMBER, STRANGER = 'alice', 'bob'   # in group parallax / in no group of the daemon's
DROPIN = '/etc/parallaxd/parallaxd.conf.d/50-lab.conf'


# The guest's disk is a throw-away snapshot: dpkg need not fsync every file (TCG is slow at it).
APT = ['apt-get', '-y', '-o', 'DPkg::Options::=--force-unsafe-io']


def package_names(debs):
    return [subprocess.check_output(['dpkg-deb', '-f', p, 'Package'], text=True).strip() for p in debs]


def show(lab, unit, *props):
    """systemctl show's properties of unit as a dict."""
    out = lab.check(['systemctl', 'show', unit, '-p', ','.join(props)])
    return dict(line.split('=', 1) for line in out.splitlines() if '=' in line)


def await_unit(lab, unit, state='active', other_than_pid=None, timeout=60):
    """Waits until unit is in state (and, with other_than_pid, has another main process); returns
    its MainPID."""
    cond = f'[ "$(systemctl is-active {unit})" = {state} ]'
    if other_than_pid:
        cond += f' && [ "$(systemctl show -p MainPID --value {unit})" != {other_than_pid} ]'
    lab.check(f'timeout {timeout} bash -c \'until {cond}; do sleep 0.2; done\'', timeout=timeout + 10)
    return int(show(lab, unit, 'MainPID')['MainPID'])


def journal(lab, since_cursor=None, *match):
    """parallaxd's journal entries (dicts of `journalctl -o json`), after the cursor if given."""
    argv = ['journalctl', '-u', UNIT, '-o', 'json', '--no-pager'] + list(match)
    if since_cursor:
        argv += ['--after-cursor', since_cursor]
    return [json.loads(line) for line in lab.check(argv).splitlines() if line.strip()]


def cursor(lab):
    out = lab.check(['journalctl', '-n', '1', '-o', 'json', '--no-pager'])
    return json.loads(out.splitlines()[-1])['__CURSOR'] if out.strip() else None


def monitor(lab, user=MEMBER, seconds=30, until=None, then=None, hub=None):
    """`parallaxctl monitor --json` as user in the guest (guest/plxrun.py monitor): its lines with
    arrival times, exit status and stderr. then: a hub request sent once the first offset is in."""
    argv = ['python3', plxrun(lab), 'monitor', '--user', user, '--seconds', str(seconds)]
    if until:
        argv += ['--until', until]
    if then:
        argv += ['--then', json.dumps({k: str(v) for k, v in then.items()}), '--hub', hub.socket]
    r = lab.run(argv, timeout=seconds + 60)
    assert r.rc == 0, r
    return json.loads(r.stdout.strip().splitlines()[-1])


def status(lab):
    return json.loads(lab.check(['parallaxctl', 'status', '--json']))


@pytest.fixture(scope='module')
def installed(booted):
    """The packages' names once test_install has installed them."""
    return package_names(booted.debs)


@pytest.fixture(scope='module')
def hub(booted):
    """Our HID hub in the booted guest, created once for the scenario (udev loads its drivers)."""
    h = GuestHub(booted, socket='/run/sensorhub-booted.sock')
    yield h
    h.stop()


def test_install_with_apt_offline(booted, installed, capsys):
    t0 = time.monotonic()
    r = booted.run(APT + ['install', '--no-install-recommends'] + booted.debs, timeout=600,
                   env={'DEBIAN_FRONTEND': 'noninteractive'})
    seconds = time.monotonic() - t0
    assert r.rc == 0, r.stdout[-3000:] + r.stderr[-3000:]
    states = booted.check(['dpkg-query', '-W', '-f=${Package} ${db:Status-Abbrev}\n'] + installed)
    assert all(line.split()[1] == 'ii' for line in states.splitlines()), states
    # The Swift runtime is linked in: /opt/swift is not shared into this guest.
    libs = booted.check(['ldd', '/usr/bin/parallaxd'])
    assert 'not found' not in libs and 'swift' not in libs, libs
    # Accounts from sysusers.d, the socket enabled and listening, the service not started.
    assert booted.run(['getent', 'passwd', 'parallaxd']).rc == 0
    assert booted.run(['getent', 'group', 'parallax']).rc == 0
    assert show(booted, SOCKET_UNIT, 'UnitFileState', 'ActiveState') == {'UnitFileState': 'enabled', 'ActiveState': 'active'}
    assert show(booted, UNIT, 'ActiveState')['ActiveState'] == 'inactive'
    assert booted.check(['stat', '-c', '%a %U', SOCKET]).split() == ['666', 'root']
    booted.check(f'useradd -M -G parallax {MEMBER} && useradd -M {STRANGER}')
    with capsys.disabled():
        print(f'\n  apt-get install of {len(installed)} packages ({", ".join(installed)}): {seconds:.1f} s')


def test_a_client_before_any_sensor_starts_it(booted, installed):
    # No IIO driver is loaded yet: the first connection starts the service (socket activation),
    # which has the IIO core loaded first, or DeviceAllow=char-iio would allow no device for the
    # whole run (/proc/devices has no "iio" line until then).
    assert booted.run(['grep', '-qw', 'iio', '/proc/devices']).rc != 0
    report = json.loads(booted.check(['runuser', '-u', MEMBER, '--', 'parallaxctl', 'status', '--json']))
    assert report['sensor'] == 'none' and report['sensors'] == [], report
    assert show(booted, UNIT, 'ActiveState')['ActiveState'] == 'active'
    assert booted.run(['grep', '-qw', 'iio', '/proc/devices']).rc == 0


# The booted scenario's hub starts at a change sensitivity above 0, as much hub firmware does
# (raw: accel 0.001 g, gyro 0.01 °/s units): the service must set it to 0 while moving.
HUB_DEFAULT_SENSITIVITY = {'accel': 20, 'gyro': 50}


def test_a_hub_appearing_later_is_opened_by_the_hardened_service(booted, installed, hub):
    pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
    hub.start(sensitivity=HUB_DEFAULT_SENSITIVITY)
    booted.check(['udevadm', 'settle'])
    assert await_unit(booted, UNIT) == pid
    # The account, no capabilities, the hardened unit as shipped.
    proc = booted.check(f'grep -E "^(Uid|CapEff|CapBnd|NoNewPrivs):" /proc/{pid}/status')
    uid = booted.check(['id', '-u', 'parallaxd']).strip()
    fields = dict(line.split(':', 1) for line in proc.splitlines())
    assert fields['Uid'].split()[0] == uid and int(fields['CapEff'], 16) == 0 and fields['NoNewPrivs'].strip() == '1', proc
    # The rule gave the daemon's group both device nodes and the attributes it writes.
    nodes = booted.check('stat -c "%n %G %a" /dev/iio:device*').split('\n')
    assert all(n.split()[1:] == ['parallaxd', '660'] for n in nodes if n), nodes
    enable = booted.check('stat -c "%G %A" /sys/bus/iio/devices/iio:device*/buffer/enable').split('\n')
    assert all(e.startswith('parallaxd -rw-rw') for e in enable if e), enable


def test_member_of_parallax_monitors_moving_offsets(booted, installed, hub):
    # Top edge away from the viewer by 30°: y ≈ −0.33 (docs/frames.md; the shipped config
    # re-centres slowly, so less once held), read through the hardened service from the real
    # drivers' buffers.
    sub = monitor(booted, until='y is not None and y < -0.2', then=dict(op='attitude', x=-30, seconds=1), hub=hub)
    frames = offsets(sub)
    assert frames and frames[-1]['y'] < -0.2, (sub['stderr'], sub['lines'][-5:])
    assert all(f['y'] < 0.02 for f in frames), frames
    back = monitor(booted, until='y is not None and y > -0.03', then=dict(op='attitude', x=0, seconds=1), hub=hub)
    assert offsets(back)[-1]['y'] > -0.03, back['lines'][-3:]
    # Captured through the buffers: the device cgroup (DeviceAllow=char-iio) let the service open them.
    messages = [e['MESSAGE'] for e in journal(booted)]
    assert any(m.startswith('capture: buffered (accel ') and 'gyro ' in m for m in messages), messages[-20:]


# The service under strace, as shipped but for what strace itself needs: the notify socket open
# to its child, no system call filter (ptrace); the account, groups, file permissions and mount
# namespace (what decides a sysfs write) are the unit's own.
STRACE_LOG = '/run/parallaxd/sysfs-writes.strace'
STRACE_DROPIN = '/run/systemd/system/parallaxd.service.d/lab-strace.conf'


def sysfs_writes(text):
    """(path, errno name or None) of every sysfs file strace saw opened for writing."""
    import re
    out = []
    for line in text.splitlines():
        m = re.search(r'openat\(AT_FDCWD, "(/sys/[^"]+)", ([A-Z_|]+)[^)]*\) = (-?\d+)(?: ([A-Z]+))?', line)
        if m and ('O_WRONLY' in m.group(2) or 'O_RDWR' in m.group(2)):
            out.append((m.group(1), m.group(4) if int(m.group(3)) < 0 else None))
    return out


def end_monitors(lab):
    """Ends every `parallaxctl monitor` in the guest (a holder thread's monitor() then returns)."""
    lab.run(['pkill', '-TERM', '-f', 'parallaxctl monitor'])


def test_every_sysfs_write_of_the_service_is_allowed(booted, installed, hub, capsys):
    """Every sysfs attribute the installed service writes, recorded from outside by strace:
    opening, moving, coming to rest at the hub and waking. None may be refused, and the clock and
    the hub's sensitivities must be among them (the daemon never claims what it did not get)."""
    booted.check(['mkdir', '-p', os.path.dirname(STRACE_DROPIN)])
    # sd_listen_fds() and sd_watchdog_enabled() answer only the PID systemd started (strace's):
    # the traced shell names its own, which parallaxd keeps by exec ($$$$: systemd's "$$"), and
    # drops LISTEN_PIDFDID, which systemd 258 and later add and their libsystemd checks (strace's
    # pidfd: forky's parallaxd then found no socket and exited, "another parallaxd is serving").
    # No watchdog under strace: each system call stops for the tracer, and a loaded machine's TCG
    # guest could miss a ping, restarting the service (a new trace, a new open); the watchdog has
    # its own test. Any restart fails this one (NRestarts below).
    booted.write(STRACE_DROPIN, '[Service]\nNotifyAccess=all\nSystemCallFilter=\nWatchdogSec=0\nExecStart=\n'
                 f'ExecStart=/usr/bin/strace -f -qq -e trace=openat -o {STRACE_LOG} /bin/sh -c '
                 '"export LISTEN_PID=$$$$ WATCHDOG_PID=$$$$; unset LISTEN_PIDFDID; '
                 'exec /usr/bin/parallaxd"\n')
    # The clock as a fresh boot has it (the kernel keeps what an earlier open set), so that the
    # open writes it again.
    booted.check(f'systemctl stop {UNIT} && for d in /sys/bus/iio/devices/iio:device*; do '
                 'echo realtime > $d/current_timestamp_clock; done && systemctl daemon-reload')
    clock_before = booted.check('grep -H . /sys/bus/iio/devices/iio:device*/current_timestamp_clock; '
                                f'systemctl is-active {UNIT} iio-sensor-proxy.service; true')
    try:
        booted.check(['systemctl', 'start', UNIT])
        mark = cursor(booted)
        # Moving, then still until both sensors rest at the hub, then moving again.
        monitor(booted, until='y is not None and y < -0.2', then=dict(op='attitude', x=-30, seconds=1), hub=hub)
        hub.ctl('attitude', x=0, seconds=1, wait=1)
        # A subscriber holds the sensors open while the device lies still (RestAfter=2) for as
        # long as coming to rest takes (the slow re-centring after the tilt sends frames for a
        # while, and the service runs under strace); it is ended once the hub has both raised.
        holder = threading.Thread(target=monitor, args=(booted,), kwargs=dict(seconds=120), daemon=True)
        holder.start()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            resting_sensitivity = {n: hub.sensor(n)['sensitivity_raw'] for n in ('accel', 'gyro')}
            if all(v > 0 for v in resting_sensitivity.values()):
                break
            time.sleep(0.2)
        end_monitors(booted)
        holder.join()
        # Waking: a steady turn, read while it lasts (still again, the hub would rest within RestAfter=).
        holder = threading.Thread(target=monitor, args=(booted,), kwargs=dict(seconds=10), daemon=True)
        holder.start()
        hub.ctl('rate', x=20)
        deadline = time.monotonic() + 20
        while status(booted).get('resting') is not False and time.monotonic() < deadline:
            time.sleep(0.1)
        moving_sensitivity = {n: hub.sensor(n)['sensitivity_raw'] for n in ('accel', 'gyro')}
        hub.ctl('rate', x=0)
        end_monitors(booted)
        holder.join()
        report = status(booted)
        restarts = show(booted, UNIT, 'NRestarts')['NRestarts']
        booted.check(['systemctl', 'stop', UNIT])
        trace = booted.read(STRACE_LOG)
        writes = sysfs_writes(trace)
        said = [e['MESSAGE'] for e in journal(booted, mark)]
    finally:
        booted.check(f'rm -f {STRACE_DROPIN} && systemctl daemon-reload && systemctl start {UNIT}')
    refused = sorted({(p, e) for p, e in writes if e})
    attributes = sorted({p.split('/iio:device')[-1].split('/', 1)[-1] for p, _ in writes})
    with capsys.disabled():
        print(f'\n  the service wrote {len(writes)} times to {len(attributes)} attributes: {", ".join(attributes)}; '
              f'refused: {refused or "none"}; hub sensitivity (raw) at rest {resting_sensitivity}, moving {moving_sensitivity}')
    assert not refused, refused
    assert restarts == '0', ('the traced service restarted', restarts, said[-20:])
    for wanted in ('current_timestamp_clock', 'in_accel_hysteresis', 'in_anglvel_hysteresis', 'buffer/enable'):
        if wanted not in attributes:
            with capsys.disabled():
                print('\n  '.join(['', 'journal:'] + [m for m in said if 'clock' in m or 'capture' in m or 'open' in m]
                                  + ['trace:'] + [line for line in trace.splitlines() if 'timestamp_clock' in line]
                                  + ['clock before the start:', clock_before]))
        assert wanted in attributes, (wanted, attributes)
    # What the writes did at the hub: silent at rest, a report every interval while moving (its
    # own default was not 0), and nothing said to be refused.
    assert all(v > 0 for v in resting_sensitivity.values()) and all(v == 0 for v in moving_sensitivity.values()), \
        (resting_sensitivity, moving_sensitivity)
    assert not any(s.get('limits') for s in report['sensors']), report


def test_a_stranger_is_refused_with_the_reason(booted, installed):
    r = booted.run(['runuser', '-u', STRANGER, '--', 'parallaxctl', 'monitor', '--seconds', '5'], timeout=30)
    assert r.rc != 0, r
    assert 'permission_denied' in r.stderr and 'parallax' in r.stderr, r


def test_reload_reads_the_config_again(booted, installed):
    pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
    assert status(booted)['mode'] == 'attitude'
    mark = cursor(booted)
    booted.write(DROPIN, '[Motion]\nMode=rate\n')
    booted.check(['systemctl', 'reload', UNIT])
    assert status(booted)['mode'] == 'rate'
    assert int(show(booted, UNIT, 'MainPID')['MainPID']) == pid
    assert any('reload' in e['MESSAGE'].lower() for e in journal(booted, mark)), journal(booted, mark)
    # A broken config is refused and said so in the unit's status line; the running one stays.
    booted.write(DROPIN, '[Motion]\nMode=sideways\n')
    booted.check(['systemctl', 'reload', UNIT])
    text = show(booted, UNIT, 'StatusText')['StatusText']
    assert 'reload refused' in text and '50-lab.conf:2' in text, text
    assert status(booted)['mode'] == 'rate'
    booted.check(['rm', DROPIN])
    booted.check(['systemctl', 'reload', UNIT])
    assert status(booted)['mode'] == 'attitude' and int(show(booted, UNIT, 'MainPID')['MainPID']) == pid


def test_journal_entries_carry_the_daemons_fields(booted, installed):
    entries = journal(booted)
    ours = [e for e in entries if e.get('SYSLOG_IDENTIFIER') == 'parallaxd' and 'PARALLAXD_LOGGER' in e]
    assert ours, entries[-5:]
    uid = booted.check(['id', '-u', 'parallaxd']).strip()
    for e in ours:
        for field in ('MESSAGE', 'PRIORITY', 'CODE_FILE', 'CODE_LINE', 'CODE_FUNC'):
            assert e.get(field), (field, e)
        assert e['_UID'] == uid and e['_SYSTEMD_UNIT'] == UNIT, e
    assert {e['PARALLAXD_LOGGER'] for e in ours} >= {'parallaxd', 'parallaxd.sensors'}
    sensors = journal(booted, None, 'PARALLAXD_LOGGER=parallaxd.sensors')
    assert sensors and all(e['PARALLAXD_LOGGER'] == 'parallaxd.sensors' for e in sensors)


def test_security_exposure_as_shipped(booted, installed, capsys):
    out = booted.check(['systemd-analyze', 'security', UNIT, '--no-pager'])
    last = [l for l in out.splitlines() if 'Overall exposure level' in l][-1]
    exposure = float(last.split(':')[1].split()[0])
    with capsys.disabled():
        print(f'\n  {last.strip()}')
    # docs/operations.md "Hardening": 0.6 SAFE.
    assert exposure == 0.6, out


def test_stop_then_a_connection_starts_it_again(booted, installed, hub):
    pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
    booted.check(['systemctl', 'stop', UNIT])
    after = show(booted, UNIT, 'ActiveState', 'Result', 'ExecMainStatus')
    assert after == {'ActiveState': 'inactive', 'Result': 'success', 'ExecMainStatus': '0'}, after
    assert show(booted, SOCKET_UNIT, 'ActiveState')['ActiveState'] == 'active'
    # The first connection starts it (socket activation), and the member gets frames again.
    sub = monitor(booted, until="type == 'offset'")
    assert offsets(sub), sub
    assert await_unit(booted, UNIT, other_than_pid=pid) != pid


def test_hub_unplugged_and_plugged_back(booted, installed, hub, capsys):
    pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
    # While running: the daemon follows the kernel's uevents (lost, then ok with both sensors).
    # It opens the hub again when it appears, not at a retry: heard from the kernel (udev's events
    # never reach the service's network namespace) and opened once udev's rules ran, unrefused.
    mark = cursor(booted)
    sub = monitor(booted, seconds=40, until="type == 'offset' and lost_ns and t > lost_ns and states[-1] == 'ok'",
                  then=dict(op='recreate', unplugged=1), hub=hub)
    states = [l['msg']['sensor'] for l in sub['lines'] if l['msg'].get('type') == 'state']
    assert sub['then_reply']['ok'] and 'lost' in states and states[-1] == 'ok', (states, sub['stderr'])
    said = [e['MESSAGE'] for e in journal(booted, mark)]
    if not any('motion devices appeared: opening the sensors now' in m for m in said) or any('denied' in m.lower() for m in said):
        with capsys.disabled():
            print('\n  journal since the unplug:\n    ' + '\n    '.join(said))
    assert any('motion devices appeared: opening the sensors now' in m for m in said), said[-15:]
    assert not any('denied' in m.lower() for m in said), said[-15:]
    assert int(show(booted, UNIT, 'MainPID')['MainPID']) == pid
    assert [s['kind'] for s in status(booted)['sensors']] == ['accel', 'gyro']
    # While stopped: plugging the hub in starts the service through the udev rule (SYSTEMD_WANTS).
    booted.check(['systemctl', 'stop', UNIT])
    reply = hub.ctl('recreate', unplugged=0)
    assert reply['ok'], reply
    new = await_unit(booted, UNIT)
    booted.check(['udevadm', 'settle'])
    nodes = booted.check('stat -c "%G %a" /dev/iio:device*').split('\n')
    assert new != pid and all(n.split() == ['parallaxd', '660'] for n in nodes if n), nodes


def test_watchdog_restarts_a_stopped_loop(booted, installed, hub, capsys):
    assert show(booted, UNIT, 'WatchdogUSec')['WatchdogUSec'] == '30s'
    # The shipped 30 s, shortened for the test by a runtime drop-in (the daemon pings every half
    # of whatever WATCHDOG_USEC systemd gives it). 10 s, not less: the restarted service must
    # come up and ping within it on an emulated CPU beside a loaded host (at 4 s the CI's lab once
    # saw the new process killed as well, NRestarts +2).
    booted.check('mkdir -p /run/systemd/system/parallaxd.service.d && printf "[Service]\\nWatchdogSec=10s\\n" '
                 '> /run/systemd/system/parallaxd.service.d/lab-watchdog.conf && systemctl daemon-reload '
                 '&& systemctl restart parallaxd.service')
    try:
        before = show(booted, UNIT, 'MainPID', 'NRestarts')
        pid = int(before['MainPID'])
        t0 = time.monotonic()
        booted.check(['kill', '-STOP', str(pid)])
        new = await_unit(booted, UNIT, other_than_pid=pid, timeout=60)
        seconds = time.monotonic() - t0
        after = show(booted, UNIT, 'NRestarts')
        assert int(after['NRestarts']) == int(before['NRestarts']) + 1, (before, after)
        messages = [e['MESSAGE'] for e in journal(booted)]
        assert any('Watchdog timeout' in m for m in messages), messages[-10:]
        sub = monitor(booted, until="type == 'offset'")
        assert offsets(sub), sub
        with capsys.disabled():
            print(f'\n  SIGSTOP → a new main process {seconds:.1f} s later (WatchdogSec=10s); pid {pid} → {new}')
    finally:
        booted.check('rm -rf /run/systemd/system/parallaxd.service.d && systemctl daemon-reload')


# A new subscriber's first frame is the current offset, at once (docs/protocol.md "subscribe",
# docs/power.md "A new subscriber at rest"), CONNECTIONS in a row on each path. What the test
# asserts are events, whatever the load: a frame comes (within FIRST_FRAME_BOUND: the bug it
# guards against sent one 6 s late), and its sample was taken no more than CURRENT_BEFORE before
# the subscribe (the daemon's own rule, Hub.currentAge: never an old sample as the current
# offset). How soon, and how old on arrival, are measured (printed, BENCHMARKS.md) against the
# targets FIRST_FRAME_TARGET and AGE_TARGET: on the emulated CPU they depend on the machine's load.
FIRST_FRAME_BOUND = 1.5
CURRENT_BEFORE = 0.020
FIRST_FRAME_TARGET = 0.100
AGE_TARGET = 0.050
CONNECTIONS = 20
HUB_SOCKET = '/run/sensorhub-booted.sock'
# How a path's subscribers come (guest/plxrun.py firsts): `dropin`, a [Sensor] drop-in applied by
# reload for the path; the rest, plxrun's options (before each connection, or once).
FIRST_FRAME_PATHS = {
    # The installed service as it is, the sensors open (each connection within Linger= of the last).
    'buffered': dict(warmup=True),
    'polled': dict(dropin='[Sensor]\nCapture=polled\n', warmup=True),
    # The first client of a service the connection itself starts.
    # (reset-failed: 20 starts in a row would hit systemd's start limit, 5 in 10 s.)
    'socket-activated': dict(before=f'systemctl stop {UNIT} && systemctl reset-failed {UNIT} {SOCKET_UNIT}'),
    # The first client of a service started by udev for a hub plugged in.
    'udev-started': dict(before=f'systemctl stop {UNIT} && systemctl reset-failed {UNIT} {SOCKET_UNIT}',
                         replug_hub=HUB_SOCKET, await_active=UNIT),
    # Another subscriber holds the sensors open; each newcomer comes while the hub rests (silent).
    # RestAfter=0.5 only so that 20 rests take seconds.
    'at rest at the hub': dict(dropin='[Sensor]\nRestAfter=0.5\n', hold=True, await_rest=True),
}


def first_frames(lab, path, count=CONNECTIONS, dropin=None, **options):
    """count new subscribers in a row on a path (FIRST_FRAME_PATHS); (seconds from each subscribe
    to its first offset frame, that frame's age on arrival), both the guest's CLOCK_MONOTONIC."""
    if dropin:
        lab.write(DROPIN, dropin)
        lab.check(['systemctl', 'reload-or-restart', UNIT])
    try:
        argv = ['python3', plxrun(lab), 'firsts', '--socket', SOCKET, '--count', str(count), '--timeout', '30',
                '--connect-retry', '30']
        for key, value in options.items():
            flag = '--' + key.replace('_', '-')
            argv += [flag] if value is True else [flag, str(value)]
        r = lab.run(argv, timeout=count * 60)
        result = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else {}
        assert r.rc == 0 and result.get('ok'), (path, r.rc, result.get('error'), r.stderr[-2000:])
    finally:
        if dropin:
            lab.check(['rm', '-f', DROPIN])
            lab.check(['systemctl', 'reload-or-restart', UNIT])
    connections = result['connections']
    assert len(connections) == count
    missing = [c['lines'] for c in connections if c['recv_ns'] is None]
    assert not missing, f'{path}: {len(missing)} of {count} subscribers got no frame: {missing[0]}'
    return [((c['recv_ns'] - c['subscribe_ns']) / 1e9, (c['recv_ns'] - c['t']) / 1e9, (c['t'] - c['subscribe_ns']) / 1e9)
            for c in connections]


def assert_first_frames_current(lab, path, capsys, **options):
    """Asserts a path of FIRST_FRAME_PATHS (or one given by options) and prints its numbers."""
    measured = first_frames(lab, path, **(options or FIRST_FRAME_PATHS[path]))
    waits, ages = sorted(w for w, _, _ in measured), sorted(a for _, a, _ in measured)
    with capsys.disabled():
        print(f'\n  first frames, {path}: {len(measured)} subscribers, after the subscribe median '
              f'{waits[len(waits) // 2] * 1e3:.1f} ms, max {waits[-1] * 1e3:.1f} ms '
              f'({sum(w <= FIRST_FRAME_TARGET for w in waits)} within {FIRST_FRAME_TARGET * 1e3:.0f} ms); sample age on '
              f'arrival median {ages[len(ages) // 2] * 1e3:.1f} ms, max {ages[-1] * 1e3:.1f} ms '
              f'({sum(a <= AGE_TARGET for a in ages)} within {AGE_TARGET * 1e3:.0f} ms)')
    late = [round(w * 1e3, 1) for w, _, _ in measured if w > FIRST_FRAME_BOUND]
    if late:
        with capsys.disabled():
            print('\n  journal (monotonic) of the late path:\n' + lab.run(
                ['journalctl', '-u', UNIT, '-u', SOCKET_UNIT, '-o', 'short-monotonic', '--no-pager', '-n', '80']).stdout)
    stale = [round(lead * 1e3, 1) for _, _, lead in measured if lead < -CURRENT_BEFORE]
    assert not late, f'{path}: first frames later than {FIRST_FRAME_BOUND:.1f} s (ms): {late}'
    assert not stale, f'{path}: first frames whose sample was taken more than {CURRENT_BEFORE * 1e3:.0f} ms before the subscribe (ms): {stale}'


@pytest.mark.parametrize('path', list(FIRST_FRAME_PATHS))
def test_first_frame_is_current_at_once(booted, installed, hub, path, capsys):
    booted.check(f'systemctl reset-failed {UNIT} {SOCKET_UNIT}; systemctl start {SOCKET_UNIT} {UNIT}')
    assert_first_frames_current(booted, path, capsys)


def await_file_line(lab, path, text, timeout=30):
    """Waits until the guest file path has a line containing text; returns the file's text."""
    lab.check(f'timeout {timeout} bash -c \'until grep -qF "{text}" {path} 2>/dev/null; do sleep 0.2; done\'',
              timeout=timeout + 10)
    return lab.read(path)


# Beside iio-sensor-proxy, what the hub may be asked (synchronous GET_REPORTs a second, both
# sensors together; docs/operations.md "Beside iio-sensor-proxy"): the accelerometer read through
# sysfs 25 times a second while moving (IIOSettings.defaultPolledAccelerometerRate), three
# GET_REPORTs a reading, and 0.5 times a second at rest; the gyroscope buffered (none).
POLLED_READINGS_MOVING = 25
GET_REPORTS_PER_READING = 3
GET_REPORTS_MOVING = 75
GET_REPORTS_AT_REST = 2
# The rate applied, seen at the hub: at least a tenth of the intervals between readings this
# short (s), 20 readings a second or more. Not the count over the window: in the TCG guest on a
# shared 2-core host the daemon (debug build), the hub and iio-sensor-proxy share what CPU the
# guest gets, and readings come late (5.9-15.2 a second in four runs at host loads of 7-14); the
# 8 Hz of before never read twice within 50 ms unless a reading came over 75 ms late.
POLLED_BEAT_SECONDS = 1 / 20
# How long each measurement window lasts (s): one reading more or less at an edge is 3 GET_REPORTs.
MOVING_WINDOW_SECONDS = 10.0
RESTING_WINDOW_SECONDS = 10.0
# iio-sensor-proxy stopping: the accelerometer's buffer is parallaxd's once the unit's state
# change reached it (issue 30: about 1 s on an idle machine, 2.7 s with two CPU burners beside the
# TCG guest). How long it took is printed; the wait is only a bound for a hang (s).
HANDOVER_SECONDS = 30.0
# iio-sensor-proxy starting: once its start returned, parallaxd's new capture (the accelerometer
# polled) is open within (s); its open may first wait for the capture it replaces to let go of the
# gyroscope's buffer (PreviousCaptureHold, up to 2 s).
GIVE_BACK_SECONDS = 5.0


# Suspend and resume (docs/operations.md "Suspend and resume"): S3 through logind (`systemctl
# suspend`: PrepareForSleep, the service's delay inhibitor, systemd-sleep), woken by QEMU's
# system_wakeup. On odd cycles the device lies tipped the other way after the sleep, as if moved
# while the lid was shut (the hub's attitude_after_sleep: no sensor sees the way there).
SLEEP_CYCLES = int(os.environ.get('PARALLAX_LAB_SLEEP_CYCLES', '20'))  # ≈ 11 s each under TCG (docs/lab.md)
SLEEP_TILT = 15            # degrees about device X, one way or the other
ASLEEP = 2.0               # seconds in S3: a measurement's length, not a wait for an event
SWEEP_BOUND = 0.05         # the first frame after a resume within this of the offset it settles at
WATCHDOG_DROPIN_DIR = '/etc/systemd/system/parallaxd.service.d'
WATCHDOG_DROPIN = WATCHDOG_DROPIN_DIR + '/50-lab-watchdog.conf'


def suspend_and_wake(lab, asleep=ASLEEP, timeout=60):
    """Suspends the guest through logind and wakes it `asleep` s after QEMU says it sleeps."""
    lab.check(['systemctl', 'suspend', '--no-block'])
    deadline = time.monotonic() + timeout
    while lab.qmp('query-status')['status'] != 'suspended':
        assert time.monotonic() < deadline, 'the guest did not reach S3:\n' + lab.run(
            'dmesg | grep -v -E "audit|usb" | tail -n 80').stdout
        time.sleep(0.05)
    time.sleep(asleep)
    lab.qmp('system_wakeup')


def sleep_inhibitors(lab):
    """logind's inhibitors of sleep: (who, mode, pid) of each (ListInhibitors on the system bus)."""
    reply = json.loads(lab.check(['busctl', '--json=short', 'call', 'org.freedesktop.login1', '/org/freedesktop/login1',
                                  'org.freedesktop.login1.Manager', 'ListInhibitors']))
    return [(who, mode, pid) for what, who, _why, mode, _uid, pid in reply['data'][0] if 'sleep' in what.split(':')]


def await_sleep_inhibitor(lab, timeout=20):
    """Waits until the service's main process holds its delay inhibitor for sleep (logind answers
    the service's Inhibit on its own time); asserts it does within `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        pid = int(show(lab, UNIT, 'MainPID')['MainPID'])
        held = sleep_inhibitors(lab)
        if ('parallaxd', 'delay', pid) in held:
            return
        assert time.monotonic() < deadline, (pid, held, [e['MESSAGE'] for e in journal(lab)][-10:])
        time.sleep(0.2)


def journal_monotonic_ns(entry):
    return int(entry['__MONOTONIC_TIMESTAMP']) * 1000


WATCH_SECONDS = 97      # a watcher's `parallaxctl monitor --seconds`, which end_watchers looks for


def end_watchers(lab):
    """Ends the watchers' monitors, not a holder's."""
    lab.run(['pkill', '-TERM', '-f', f'parallaxctl monitor --json --seconds {float(WATCH_SECONDS)}$'])


def await_subscribers(lab, count, timeout=60):
    """Waits until the service has `count` subscribers: their monitors run (a process started
    from the 9p share as the system freezes can be caught in a 9p request, uninterruptible, and
    the freeze fails)."""
    deadline = time.monotonic() + timeout
    while status(lab).get('subscribers', 0) < count:
        assert time.monotonic() < deadline, (count, status(lab).get('subscribers'), lab.run(
            'ps -eo pid,stat,etime,cmd | grep -E "monitor|plxrun" | grep -v grep').stdout,
            [e['MESSAGE'] for e in journal(lab)][-15:])
        time.sleep(0.1)


def await_resume(lab, mark, timeout=60):
    """Waits for the service's journal to say it resumed (after the cursor mark)."""
    deadline = time.monotonic() + timeout
    while not any(e['MESSAGE'].startswith('resumed after') for e in journal(lab, mark)):
        if time.monotonic() > deadline:
            print('\n'.join(e['MESSAGE'] for e in journal(lab, mark)))
            print(lab.run('journalctl -b -n 60 --no-pager -o short-monotonic').stdout)
            raise AssertionError('no resume in the journal within %d s' % timeout)
        time.sleep(0.2)


def watch_a_sleep(lab, suspend_timeout=60):
    """One sleep watched by a member of group parallax (a watcher beside the caller's holder): the
    service's journal entries from just before it, the resume's time (the guest's CLOCK_MONOTONIC
    ns of its `resumed after` entry, None without one) and the offset frames after it."""
    mark = cursor(lab)
    watch = {}
    watcher = threading.Thread(target=lambda: watch.update(monitor(lab, seconds=WATCH_SECONDS, until='False')),
                               daemon=True)
    watcher.start()
    await_subscribers(lab, 2)
    suspend_and_wake(lab, timeout=suspend_timeout)
    await_resume(lab, mark)
    time.sleep(3)       # frames after the resume: a window, then the watcher ends
    end_watchers(lab)
    watcher.join(60)
    entries = journal(lab, mark)
    resumed = [e for e in entries if e['MESSAGE'].startswith('resumed after')]
    resume_ns = journal_monotonic_ns(resumed[0]) if resumed else None
    after = [f for f in offsets(watch) if resume_ns is not None and f['recv_ns'] > resume_ns]
    return [e['MESSAGE'] for e in entries], resume_ns, after


def fell_back(messages):
    """What of the journal says the sleep was taken for a loss or a reason to poll, or for a hang
    (systemd's watchdog: user space is frozen while devices suspend)."""
    return [m for m in messages if 'unavailable' in m or 'polling instead' in m or 'state: lost' in m
            or 'Watchdog timeout' in m]


def last_freeze_seconds(lab):
    """How long user space was frozen in the last sleep (the kernel's log, CLOCK_MONOTONIC: from
    `Freezing user space processes` to `Restarting tasks`), or None."""
    out = lab.check('journalctl -k -b -o short-monotonic --no-pager | grep -E "Freezing user space processes$|Restarting tasks"')
    times = [float(line.split(']', 1)[0].strip('[ ')) for line in out.splitlines()[-2:]]
    return times[1] - times[0] if len(times) == 2 else None


def await_rest_after_resume(lab, mark, timeout=20):
    """Whether both sensors came to rest at the hub after the resume logged since the cursor mark
    (the service's `… at rest at the hub` entries), within `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        messages = [e['MESSAGE'] for e in journal(lab, mark)]
        resumed = next((i for i, m in enumerate(messages) if m.startswith('resumed after')), None)
        if resumed is not None and sum('at rest at the hub' in m for m in messages[resumed:]) >= 2:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)


def runtime_suspend_at_once(lab):
    """The hub's sensors powered down as soon as they are closed: their platform devices'
    runtime-PM autosuspend delay 0 (the HID sensor drivers' default is 3 s). Why: a sensor closed
    less than 3 s before the freeze is still powered, and the kernel's system suspend then asks
    the hub to power it down; our hub is a user-space process, frozen by then, so each of those
    requests times out after 5 s (30.6 s of device suspend for two sensors, seen). A hub's
    firmware answers at once. A device not closed since it appeared refuses the write (EIO: no
    autosuspend yet), so this is asked again before every sleep. Returns each device's delay."""
    return lab.check('for d in /sys/bus/iio/devices/iio:device*; do p=$(readlink -f "$d/.."); f="$p/power/autosuspend_delay_ms"; '
                     '[ -e "$f" ] || continue; echo 0 2>/dev/null > "$f"; echo "${p##*/} $(cat "$f" 2>&1)"; done')


def stage_guest_programs(lab):
    """The guest programs (guest/plxrun.py and its siblings) copied to the guest's /run, and used
    from there from now on: after an S3 resume under QEMU 7.2 a new open on the 9p share waits
    (docs/lab.md "Suspend and resume"), so nothing started after a sleep may come from it."""
    if lab in STAGED:
        return      # staged already (and the share may hang now)
    lab.check(f'mkdir -p {GUEST_COPY} && cp {os.path.dirname(PLXRUN_SHARED)}/*.py {GUEST_COPY}/')
    STAGED[lab] = os.path.join(GUEST_COPY, 'plxrun.py')


def plxrun(lab):
    """guest/plxrun.py as lab runs it: its copy in /run once staged, else from the share."""
    return STAGED.get(lab, PLXRUN_SHARED)


def hub_rates(hub, seconds):
    """GET_REPORTs (input) and input reports a second of each hub sensor over a window."""
    before = hub.status()
    t0 = time.monotonic()
    time.sleep(seconds)     # a measurement window
    after = hub.status()
    dt = time.monotonic() - t0
    return {(n, c): (after['sensors'][n][c] - before['sensors'][n][c]) / dt
            for n in ('accel', 'gyro') for c in ('get_input', 'input_sent')}


def accel_capture(lab):
    return next(s['capture'] for s in status(lab)['sensors'] if s['kind'] == 'accel')


def await_accel_capture(lab, pred, timeout):
    """Seconds until the accelerometer's capture satisfies pred (polling status), or None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            if pred(accel_capture(lab)):
                return time.monotonic() - t0
        except (StopIteration, LabError, ValueError):
            pass        # reopening: no sensors listed for a moment
        time.sleep(0.05)
    return None


def polled_reading_times(hub, since_seq):
    """The readings of the accelerometer through sysfs since the hub's report since_seq, from the
    hub's record of its input GET_REPORTs (three a reading, x, y, z, one after the other): (start,
    end) of each, the times its first and third GET_REPORT reached the hub (guest monotonic s)."""
    gets = [r['t_ns'] / 1e9 for r in hub.ctl('sent', since=since_seq)['reports']
            if r['sensor'] == 'accel' and r['kind'] == 'get']
    # The window may begin inside a reading: the grouping whose threes are the tightest.
    phase = min(range(3), key=lambda p: sum(gets[i + 2] - gets[i] for i in range(p, len(gets) - 2, 3)))
    return [(gets[i], gets[i + 2]) for i in range(phase, len(gets) - 2, 3)]


def test_beside_iio_sensor_proxy_both_keep_working(booted, installed, hub, capsys):
    # The desktop's screen rotation as Debian installs it: its udev rule marks the accelerometer
    # and starts it, udev starts parallaxd for the same device at the same time (the boot race),
    # and monitor-sensor claims the accelerometer as a desktop session does.
    booted.check(['systemctl', 'stop', UNIT])
    hub.ctl('attitude', x=0, y=0, seconds=0.5, wait=1)
    mark = cursor(booted)
    booted.check('rm /etc/udev/rules.d/80-iio-sensor-proxy.rules && systemctl unmask iio-sensor-proxy '
                 '&& udevadm control --reload && udevadm trigger --subsystem-match=iio --action=add && udevadm settle')
    await_unit(booted, 'iio-sensor-proxy.service')
    await_unit(booted, UNIT)
    booted.run_background('monitor-sensor --accel', '/tmp/monitor-sensor.log')
    await_file_line(booted, '/tmp/monitor-sensor.log', 'Has accelerometer')
    # A turn about +Y, 80°: the member's offsets move right (x > 0) and the desktop hears "left-up".
    sub = monitor(booted, until='x is not None and x > 0.3', then=dict(op='attitude', y=80, seconds=1), hub=hub)
    assert offsets(sub) and offsets(sub)[-1]['x'] > 0.3, (sub['stderr'], sub['lines'][-5:])
    rotation = await_file_line(booted, '/tmp/monitor-sensor.log', 'orientation changed: left-up')
    # The gyroscope (which iio-sensor-proxy never reads) through its buffer, the accelerometer
    # through sysfs at 25 Hz; both said in status and parallaxctl status.
    assert await_accel_capture(booted, lambda c: c.startswith('polled at '), 30) is not None, status(booted)
    report = status(booted)
    by_kind = {s['kind']: s for s in report['sensors']}
    assert by_kind['gyro']['capture'] == 'buffered' and 'left to iio-sensor-proxy' in by_kind['accel']['capture'], report
    assert by_kind['accel']['rate'] == POLLED_READINGS_MOVING, report
    text = booted.check(['parallaxctl', 'status'])
    assert any(l.startswith('capture') and f'accel: polled at {POLLED_READINGS_MOVING} Hz' in l
               and 'left to iio-sensor-proxy' in l for l in text.splitlines()), text
    assert_first_frames_current(booted, 'beside iio-sensor-proxy', capsys, warmup=True)
    # What the hub is asked, moving (a steady turn) and at rest; a subscriber holds the sensors
    # open through that and the hand-overs after it (closed sensors hand nothing over).
    holder = threading.Thread(target=monitor, args=(booted,), kwargs=dict(seconds=80), daemon=True)
    holder.start()
    hub.ctl('rate', x=15)
    since = hub.status()['seq']
    moving = hub_rates(hub, MOVING_WINDOW_SECONDS)
    times = polled_reading_times(hub, since)
    hub.ctl('rate', x=0)
    # At rest RestAfter (2 s) after the last published frame: the filter settles first from
    # the turn, which took 29-32 s here (the offset still publishing; not explained further, so
    # 30 s ran out now and then): 60 s, the time it took printed, and what stood in the way if not.
    stopped = time.monotonic()
    while not status(booted).get('resting') and time.monotonic() < stopped + 60:
        time.sleep(0.2)
    report = status(booted)
    assert report.get('resting') is True, (json.dumps(report), hub.status(),
                                           [e['MESSAGE'] for e in journal(booted, mark)][-25:])
    with capsys.disabled():
        print(f'\n  beside iio-sensor-proxy: at rest {time.monotonic() - stopped:.1f} s after the turn stopped', end='')
    # The samples kept while coming to rest drain within the rest's drain interval (2 s).
    time.sleep(2.5)
    resting = hub_rates(hub, RESTING_WINDOW_SECONDS)
    gets = {label: r['accel', 'get_input'] + r['gyro', 'get_input'] for label, r in (('moving', moving), ('at rest', resting))}
    readings = {label: r['accel', 'get_input'] / GET_REPORTS_PER_READING for label, r in (('moving', moving), ('at rest', resting))}
    with capsys.disabled():
        for label, r in (('moving', moving), ('at rest', resting)):
            print(f"\n  beside iio-sensor-proxy, {label}: accelerometer readings/s {readings[label]:.1f}; "
                  f"GET_REPORT(input)/s accel {r['accel', 'get_input']:.1f}, "
                  f"gyro {r['gyro', 'get_input']:.1f}; input reports/s accel {r['accel', 'input_sent']:.1f}, "
                  f"gyro {r['gyro', 'input_sent']:.1f}")
    # How the readings came (at the hub): each reading's span (first to third GET_REPORT), the
    # time between readings, and the hub idle between them.
    spans = sorted(end - start for start, end in times)
    intervals = sorted(b[0] - a[0] for a, b in zip(times, times[1:]))
    idle = sorted(b[0] - a[1] for a, b in zip(times, times[1:]))
    def pct(v, q):
        return v[min(len(v) - 1, int(q * len(v)))] * 1e3
    with capsys.disabled():
        print(f"\n  beside iio-sensor-proxy, moving: {len(times)} readings seen by the hub; span (3 GET_REPORTs) median "
              f"{pct(spans, 0.5):.1f} ms p90 {pct(spans, 0.9):.1f} ms; interval p10 {pct(intervals, 0.1):.1f} median "
              f"{pct(intervals, 0.5):.1f} p90 {pct(intervals, 0.9):.1f} ms; idle between readings p10 {pct(idle, 0.1):.1f} "
              f"median {pct(idle, 0.5):.1f} p90 {pct(idle, 0.9):.1f} ms")
    # The budget; moving, where 75 is the rate itself, with one reading more at a window's edge.
    assert gets['moving'] <= GET_REPORTS_MOVING + GET_REPORTS_PER_READING / MOVING_WINDOW_SECONDS, (gets, moving)
    assert gets['at rest'] <= GET_REPORTS_AT_REST, (gets, resting)
    # The rate applied: never more than 25 readings a second, and the 25 Hz beat where the guest
    # keeps up (the count is printed above).
    assert readings['moving'] <= POLLED_READINGS_MOVING + 1 / MOVING_WINDOW_SECONDS, (readings, moving)
    assert len(intervals) >= 10 and intervals[len(intervals) // 10] <= POLLED_BEAT_SECONDS, \
        f'the shortest tenth of the intervals between readings is over {POLLED_BEAT_SECONDS * 1e3:.0f} ms: {intervals[:20]}'
    # Still read at rest: a tilt slower than the gyroscope's rest sensitivity shows only there.
    assert readings['at rest'] > 0, (readings, resting)
    assert moving['gyro', 'get_input'] == 0 and moving['gyro', 'input_sent'] > 10, moving
    messages = [e['MESSAGE'] for e in journal(booted, mark)]
    assert any(m.startswith('capture: accel ') and 'polled at' in m and 'gyro ' in m for m in messages), messages[-20:]
    # It stops (the administrator, an upgrade): its buffer is taken, no restart.
    pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
    booted.check(['systemctl', 'stop', 'iio-sensor-proxy'])
    taken = await_accel_capture(booted, lambda c: c == 'buffered', HANDOVER_SECONDS)
    # It starts again (monitor-sensor still claims): the drop-in's ExecStartPre holds its start
    # until parallaxd has let go of the accelerometer's node, so `systemctl start` returns with
    # iio-sensor-proxy reading its own buffer; parallaxd's new capture (the accelerometer polled)
    # follows. Both keep working (the next test).
    t0 = time.monotonic()
    booted.check(['systemctl', 'start', 'iio-sensor-proxy'])
    starting = time.monotonic() - t0
    given = await_accel_capture(booted, lambda c: c.startswith('polled at '), GIVE_BACK_SECONDS)
    with capsys.disabled():
        print(f'\n  monitor-sensor: {rotation.strip().splitlines()[-1].strip()}; iio-sensor-proxy stopped: buffer taken '
              f'after {taken} s; started: systemctl start took {starting:.2f} s, parallaxd polling {given} s after it')
    assert taken is not None, status(booted)
    assert given is not None, status(booted)
    assert int(show(booted, UNIT, 'MainPID')['MainPID']) == pid
    proxy_log = booted.check(['journalctl', '-u', 'iio-sensor-proxy', '--no-pager', '--after-cursor', mark])
    with capsys.disabled():
        print('\n  iio-sensor-proxy said: ' + ' | '.join(l.split(': ', 1)[-1] for l in proxy_log.splitlines()[-6:]))


def test_iio_sensor_proxy_started_again_hears_orientation(booted, installed, hub, capsys):
    # The previous test started it again while parallaxd held the buffer: the drop-in's
    # ExecStartPre waited for the hand-back, so it set up and reads its buffer, monitor-sensor
    # claimed it again and hears the next turn.
    assert booted.run(['systemctl', 'is-active', 'iio-sensor-proxy']).stdout.strip() == 'active', \
        booted.run(['journalctl', '-u', 'iio-sensor-proxy', '--no-pager', '-n', '20']).stdout
    again = booted.run("timeout 10 bash -c 'until [ $(grep -c \"Has accelerometer\" /tmp/monitor-sensor.log) -ge 2 ]; "
                       "do sleep 0.1; done'", timeout=20)
    assert again.rc == 0, booted.read('/tmp/monitor-sensor.log')[-2000:]
    # A turn to the other side (about +Y, -80°): right-up for the desktop, x < 0 for the member.
    # (Lying flat would not do: iio-sensor-proxy keeps the last orientation while flat.)
    heard = booted.read('/tmp/monitor-sensor.log').count('orientation changed: right-up')
    sub = monitor(booted, until='x is not None and x < 0', then=dict(op='attitude', x=0, y=-80, seconds=1), hub=hub)
    assert offsets(sub) and offsets(sub)[-1]['x'] < 0, (sub['stderr'], sub['lines'][-5:])
    heard_again = booted.run(f"timeout 30 bash -c 'until [ $(grep -c \"orientation changed: right-up\" /tmp/monitor-sensor.log) -gt {heard} ]; "
                             f"do sleep 0.2; done'", timeout=40)
    if heard_again.rc != 0:
        with capsys.disabled():
            print('\n  after the restart, monitor-sensor: ' + booted.read('/tmp/monitor-sensor.log')[-1200:]
                  + '\n  iio-sensor-proxy: ' + booted.run(['journalctl', '-u', 'iio-sensor-proxy', '--no-pager', '-n', '15']).stdout
                  + '\n  buffers: ' + booted.run('grep -H . /sys/bus/iio/devices/iio:device*/buffer/enable '
                                                 '/sys/bus/iio/devices/iio:device*/trigger/current_trigger').stdout)
    assert heard_again.rc == 0, ('no orientation change heard; monitor-sensor: ' + booted.read('/tmp/monitor-sensor.log')[-1500:]
                                 + '\niio-sensor-proxy: ' + booted.run(['journalctl', '-u', 'iio-sensor-proxy', '--no-pager', '-n', '30']).stdout
                                 + '\nbuffer: ' + booted.run('grep -H . /sys/bus/iio/devices/iio:device*/buffer/enable '
                                                             '/sys/bus/iio/devices/iio:device*/trigger/current_trigger').stdout)


def test_a_resume_beside_iio_sensor_proxy(booted, installed, hub, capsys):
    # iio-sensor-proxy keeps the accelerometer's buffer across the sleep (its requests to the hub
    # while user space is frozen time out: the suspend takes longer here than on a hub whose
    # firmware answers); parallaxd's gyroscope is closed before it and buffered again after it,
    # its accelerometer read through sysfs again, and the first frame comes at once.
    #
    # The accelerometer iio-sensor-proxy holds is powered through the sleep, so the kernel's
    # requests to our frozen hub time out at suspend and at resume (user space frozen ≥ 15 s):
    # under a 10 s watchdog the service shows it stretches its watchdog across a sleep (no
    # `Watchdog timeout`, the same process after it).
    stage_guest_programs(booted)
    booted.check(['mkdir', '-p', WATCHDOG_DROPIN_DIR])
    booted.write(WATCHDOG_DROPIN, '[Service]\nWatchdogSec=10s\n')
    booted.check('systemctl daemon-reload && systemctl restart parallaxd.service')
    holder = threading.Thread(target=monitor, args=(booted,), kwargs=dict(seconds=120, until='False'), daemon=True)
    holder.start()
    try:
        await_subscribers(booted, 1)
        assert await_accel_capture(booted, lambda c: 'left to iio-sensor-proxy' in c, 30) is not None, status(booted)
        pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
        messages, resume_ns, after = watch_a_sleep(booted, suspend_timeout=120)
        assert resume_ns is not None, messages[-20:]
        assert not fell_back(messages), messages[-20:]
        assert int(show(booted, UNIT, 'MainPID')['MainPID']) == pid, messages[-20:]
        assert after, messages[-20:]
        first = after[0]
        frozen = last_freeze_seconds(booted)
        with capsys.disabled():
            print(f"\n  a resume beside iio-sensor-proxy: first frame {(first['t'] - resume_ns) / 1e6:.0f} ms after the resume "
                  f"(its sample), {(first['recv_ns'] - first['t']) / 1e6:.1f} ms from its sample to the client; "
                  f"user space frozen {frozen} s under a 10 s watchdog")
        # Within 2 s, not the 1 s of the buffered path: the accelerometer is read through sysfs
        # here, three GET_REPORTs a reading to a hub just thawed (0.26-1.02 s measured, loaded).
        assert first['t'] >= resume_ns and (first['t'] - resume_ns) / 1e9 <= 2.0, (first, resume_ns)
        assert (first['recv_ns'] - first['t']) / 1e9 <= 0.1, first
        by_kind = {s['kind']: s for s in status(booted)['sensors']}
        assert by_kind['gyro']['capture'] == 'buffered' and 'left to iio-sensor-proxy' in by_kind['accel']['capture'], by_kind
        assert booted.run(['systemctl', 'is-active', 'iio-sensor-proxy']).stdout.strip() == 'active'
    finally:
        end_monitors(booted)
        booted.check(['rm', '-f', WATCHDOG_DROPIN])
        booted.check('systemctl daemon-reload && systemctl restart parallaxd.service')


def test_iio_sensor_proxy_masked_gives_the_buffer_for_good(booted, installed, hub):
    # Released for good: iio-sensor-proxy masked by the administrator, service and rule (what
    # removing the package does to the mark, without dpkg's time under TCG): buffered again.
    booted.check('pkill -x monitor-sensor; systemctl stop iio-sensor-proxy && systemctl mask iio-sensor-proxy '
                 '&& ln -s /dev/null /etc/udev/rules.d/80-iio-sensor-proxy.rules && udevadm control --reload '
                 '&& udevadm trigger --subsystem-match=iio --action=change && udevadm settle', timeout=120)
    hub.ctl('attitude', x=0, y=0, seconds=1, wait=1)
    monitor(booted, until="type == 'offset'")
    assert await_accel_capture(booted, lambda c: c == 'buffered', 30) is not None, status(booted)


def test_suspend_and_resume_come_back_buffered_at_once_without_a_sweep(booted, installed, hub, capsys):
    stage_guest_programs(booted)
    # Re-centring off: the reference stays the pose the sensors first opened in, so a sweep (the
    # old attitude slid toward the new pose) and a wrong reference both show in the offset.
    booted.write(DROPIN, '[Motion]\nRecenter=no\n')
    booted.check(['systemctl', 'reload-or-restart', UNIT])
    # S3 only: when a freeze fails, systemd-sleep tries its next state, suspend-to-idle, which
    # QEMU's system_wakeup cannot end (docs/lab.md "Suspend and resume").
    booted.check(['mkdir', '-p', '/etc/systemd/sleep.conf.d'])
    booted.write('/etc/systemd/sleep.conf.d/lab.conf', '[Sleep]\nSuspendState=mem\n')
    hub.ctl('attitude', x=0, seconds=0)
    results, problems = [], []
    try:
        # A subscriber holds the sensors open throughout (a desktop's wallpaper).
        holder = threading.Thread(target=monitor, args=(booted,),
                                  kwargs=dict(seconds=SLEEP_CYCLES * 40 + 60, until='False'), daemon=True)
        holder.start()
        await_subscribers(booted, 1)
        # The sensors are open: logind waits for the service before a sleep (its delay inhibitor).
        await_sleep_inhibitor(booted)
        pid = int(show(booted, UNIT, 'MainPID')['MainPID'])
        pose = 0
        for cycle in range(SLEEP_CYCLES):
            moved = cycle % 2 == 1
            if moved:
                pose = SLEEP_TILT if pose <= 0 else -SLEEP_TILT
                hub.ctl('attitude_after_sleep', x=pose, y=0)
            delays = runtime_suspend_at_once(booted)
            mark = cursor(booted)
            messages, resume_ns, after = watch_a_sleep(booted)
            if resume_ns is None:
                problems.append((cycle, 'no resume in the journal', messages[-12:]))
                continue
            if fell_back(messages) or not after:
                problems.append((cycle, fell_back(messages), 'frames after the resume: %d' % len(after), messages[-12:]))
                continue
            # Once both sensors rest again after this resume: not one GET_REPORT (nothing polls).
            if not await_rest_after_resume(booted, mark):
                problems.append((cycle, 'not at rest at the hub within 20 s of the resume', messages[-12:]))
                continue
            gets = hub_rates(hub, 1)
            if gets['accel', 'get_input'] or gets['gyro', 'get_input']:
                problems.append((cycle, 'GET_REPORTs at rest after the resume', gets))
            first, settled = after[0], after[-1]
            results.append(dict(cycle=cycle, moved=moved, pose=pose, autosuspend=delays.split('\n'),
                                first_after_resume_s=(first['t'] - resume_ns) / 1e9,
                                sample_to_client_s=(first['recv_ns'] - first['t']) / 1e9,
                                first_y=first['y'], settled_y=settled['y']))
            if first['t'] < resume_ns:
                problems.append((cycle, 'a frame from before the sleep after the resume', first, resume_ns))
        capture = status(booted)['sensors']
        # Taken again after the last resume, for the next sleep; the same process throughout.
        await_sleep_inhibitor(booted)
        if int(show(booted, UNIT, 'MainPID')['MainPID']) != pid:
            problems.append(('the service was restarted during the cycles', [e['MESSAGE'] for e in journal(booted)][-30:]))
        # At rest after the last resume: the hub silent, not one GET_REPORT (nothing fell back to
        # polling). The rest comes RestAfter (2 s) after the last motion; the window follows it.
        deadline = time.monotonic() + 20
        while 'at rest at the hub' not in ' '.join(e['MESSAGE'] for e in journal(booted)[-6:]) \
                and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        at_rest = hub_rates(hub, 2)
    finally:
        end_monitors(booted)
        booted.check(['rm', '-f', DROPIN])
        booted.check(['systemctl', 'reload-or-restart', UNIT])
    with capsys.disabled():
        firsts = sorted(r['first_after_resume_s'] for r in results)
        print(f"\n  user space frozen in the last sleep: {last_freeze_seconds(booted)} s", end='')
        print(f'\n  {len(results)} of {SLEEP_CYCLES} suspend cycles measured; resume → first buffered frame (sample time): '
              + (f'median {firsts[len(firsts) // 2] * 1e3:.0f} ms, worst {firsts[-1] * 1e3:.0f} ms' if firsts else '-'))
        for r in results:
            print('   ', r)
    assert not problems, problems
    assert len(results) == SLEEP_CYCLES
    for r in results:
        assert r['first_after_resume_s'] <= 1.0, r               # buffered again within 1 s
        assert r['sample_to_client_s'] <= 0.1, r                 # the first frame at once
        assert abs(r['first_y'] - r['settled_y']) <= SWEEP_BOUND, r   # no sweep
        if r['pose']:
            assert r['settled_y'] * r['pose'] > 0 and abs(r['settled_y']) > 0.1, r   # the new pose, not re-centred
    assert all(s['capture'] == 'buffered' for s in capture), capture
    assert at_rest['accel', 'get_input'] == 0 and at_rest['gyro', 'get_input'] == 0, at_rest


def test_purge_leaves_nothing(booted, installed):
    files = booted.check(['dpkg-query', '-L'] + installed).split('\n')
    r = booted.run(APT + ['purge'] + installed, timeout=300, env={'DEBIAN_FRONTEND': 'noninteractive'})
    assert r.rc == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # Not installed, no config files kept: "un" or not known at all.
    states = booted.run(['dpkg-query', '-W', '-f=${Package} ${db:Status-Abbrev}\n'] + installed).stdout
    assert all(line.split()[1:] in ([], ['un']) for line in states.splitlines()), states
    # Every file the packages had is gone (directories shared with others stay).
    leftover = booted.check(['bash', '-c', 'for f in "$@"; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done; true', '-']
                            + [f for f in files if f.startswith('/')])
    assert leftover.strip() == '', leftover
    for path in ('/etc/parallaxd', '/var/lib/parallaxd', '/run/parallaxd', '/usr/lib/parallaxd',
                 '/etc/systemd/system/sockets.target.wants/parallaxd.socket'):
        assert booted.run(['test', '-e', path]).rc != 0, f'{path} is left after the purge'
    units = booted.run(['systemctl', 'list-unit-files', '--no-legend', 'parallaxd*'])   # rc 1: none
    assert units.stdout.strip() == '', units
    assert show(booted, SOCKET_UNIT, 'LoadState')['LoadState'] == 'not-found'
    # The accounts go too (debian/parallaxd.postrm: nothing stays behind), and the sensors are root's again.
    for what in (['passwd', 'parallaxd'], ['group', 'parallaxd'], ['group', 'parallax']):
        assert booted.run(['getent'] + what).rc != 0, f'{what} is left after the purge'
    nodes = booted.check('stat -c "%G %a" /dev/iio:device*').split('\n')
    assert all(n.split()[0] == 'root' for n in nodes if n), nodes
