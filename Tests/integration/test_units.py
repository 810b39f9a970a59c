"""The systemd units, the udev rule and its helper, the sysusers file (docs/operations.md).

Without systemd as PID 1 the units are checked offline (systemd-analyze verify and security), the
udev rule with `udevadm test` against emulated devices, and what the hardening takes away is
checked against what the daemon needs: an unprivileged account that may only write the sysfs
attributes the udev helper opened to its group."""
import glob
import grp
import os
import pwd
import re
import shutil
import stat
import subprocess

import pytest

import accounts
import plx
from helpers import TURN_PEAK_LIMIT, TURN_THRESHOLD, expect_offset, wait_log, wait_resting

SYSTEMD_DIR = os.path.join(plx.REPO_ROOT, 'systemd')
SERVICE = os.path.join(SYSTEMD_DIR, 'parallaxd.service')
SOCKET = os.path.join(SYSTEMD_DIR, 'parallaxd.socket')
RULES = os.path.join(SYSTEMD_DIR, '61-parallaxd.rules')
SYSUSERS = os.path.join(SYSTEMD_DIR, 'parallaxd.sysusers')
HELPER = os.path.join(SYSTEMD_DIR, 'parallaxd-iio-access')
# The bar for `systemd-analyze security --offline=true` (iio-sensor-proxy scores 7.7).
MAX_EXPOSURE = 1.5
# Where the standard targets the units refer to live on Debian.
SYSTEM_UNIT_DIR = '/lib/systemd/system'


def need(tool):
    path = shutil.which(tool)
    if path is None:
        pytest.skip('%s missing (package systemd)' % tool)
    return path


def unit_settings(path):
    """{key: [values]} of a unit file (sections merged; enough for these checks)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(('#', ';', '[')) and '=' in line:
                k, v = line.split('=', 1)
                out.setdefault(k.strip(), []).append(v.strip())
    return out


def verify_root(tmp, binary):
    """A root for `systemd-analyze verify --root`: the units, the standard targets they pull in,
    the commands they run (verify checks that ExecStart= and ExecReload= exist)."""
    unit_dir = os.path.join(tmp, 'usr/lib/systemd/system')
    os.makedirs(unit_dir)
    for target in glob.glob(os.path.join(SYSTEM_UNIT_DIR, '*.target')) + glob.glob(os.path.join(SYSTEM_UNIT_DIR, '*.slice')):
        if os.path.isfile(target):
            shutil.copy(target, unit_dir)
    for unit in (SERVICE, SOCKET):
        shutil.copy(unit, unit_dir)
    for exe, src in (('usr/bin/parallaxd', binary), ('bin/kill', shutil.which('kill') or '/bin/kill'),
                     ('usr/lib/parallaxd/parallaxd-iio-access', HELPER)):     # ExecStartPre=+ (software triggers)
        os.makedirs(os.path.dirname(os.path.join(tmp, exe)), exist_ok=True)
        shutil.copy(src, os.path.join(tmp, exe))
    return tmp


def test_units_verify_without_warnings(parallaxd_bin, workdir):
    tool = need('systemd-analyze')
    root = verify_root(os.path.join(workdir, 'root'), parallaxd_bin)
    out = subprocess.run([tool, 'verify', '--man=no', '--root=' + root, 'parallaxd.service', 'parallaxd.socket'],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == '' and out.stderr.strip() == '', \
        'systemd-analyze verify complained:\n%s%s' % (out.stdout, out.stderr)


def exposure(tool, unit):
    out = subprocess.run([tool, 'security', '--offline=true', unit], capture_output=True, text=True, timeout=60)
    m = re.search(r'Overall exposure level for \S+: (\d+\.\d+)', out.stdout + out.stderr)
    assert m, 'no exposure level in:\n%s%s' % (out.stdout, out.stderr)
    return float(m.group(1)), out.stdout


def test_security_exposure_is_at_most_1_5():
    tool = need('systemd-analyze')
    level, report = exposure(tool, SERVICE)
    assert level <= MAX_EXPOSURE, 'exposure %.1f > %.1f:\n%s' % (level, MAX_EXPOSURE, report)


def test_hardening_leaves_what_the_daemon_needs():
    """The settings the daemon cannot work without, each for a reason the daemon has."""
    s = unit_settings(SERVICE)
    assert s['Type'] == ['notify'] and s['WatchdogSec'] and 'HUP' in s['ExecReload'][0]
    assert s['User'] == ['parallaxd'], 'runs as the account the udev rule gives the sensors to'
    assert 'char-iio rw' in s['DeviceAllow'], 'buffered capture opens /dev/iio:deviceN'
    # ProtectKernelTunables makes /sys read-only; sampling_frequency and buffer/enable live in
    # /sys/devices, which must stay writable (file permissions then decide, see below).
    if s.get('ProtectKernelTunables') == ['yes']:
        assert '/sys/devices' in ' '.join(s.get('ReadWritePaths', [])).split()
    assert 'AF_UNIX' in ' '.join(s['RestrictAddressFamilies']).split(), 'clients, sd_notify and the journal'
    assert s['StateDirectory'] == ['parallaxd'], 'the calibration file lives in /var/lib/parallaxd'
    sock = unit_settings(SOCKET)
    assert sock['ListenStream'] == ['/run/parallaxd/parallaxd.sock']


def test_sysusers_creates_the_accounts(workdir):
    tool = need('systemd-sysusers')
    root = os.path.join(workdir, 'root')
    os.makedirs(os.path.join(root, 'etc'))
    out = subprocess.run([tool, '--root=' + root, SYSUSERS], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    with open(os.path.join(root, 'etc/passwd')) as f:
        users = {line.split(':')[0]: line.split(':') for line in f}
    with open(os.path.join(root, 'etc/group')) as f:
        groups = {line.split(':')[0] for line in f}
    assert 'parallaxd' in users and int(users['parallaxd'][2]) < 1000, 'a system account for the service'
    assert users['parallaxd'][5] == '/var/lib/parallaxd'
    assert {'parallaxd', 'parallax'} <= groups


# --- the udev rule ----------------------------------------------------------------------------------

def udevadm():
    path = os.environ.get('UDEVADM') or shutil.which('udevadm') or \
        next((p for p in ('/bin/udevadm', '/usr/bin/udevadm') if os.path.exists(p)), None)
    if path is None:
        pytest.skip('udevadm missing (package udev, or UDEVADM=path to the binary)')
    return path


# Runs in a private mount namespace (`unshare --mount`, private propagation): a tmpfs /run for our
# rule and udev's database, and a private /dev whose `char/` directory takes the symlink that
# `udevadm test` creates. Why a whole private /dev rather than a tmpfs over /dev/char: many
# containers and CI runners have no /dev/char to mount over, and creating it on the host would
# leave it behind. The private /dev is a tmpfs holding the host's entries bind-mounted one by one
# (except `char`), so udevadm and umockdev-run see the real null, pts, shm, ... . /dev/ptmx becomes
# the link `pts/ptmx`, as in containers: the kernel finds a ptmx's devpts instance through a `pts`
# directory beside it, which a bind-mounted single file does not have (openpty() would fail).
PRIVATE_UDEV_SCRIPT = r"""
set -e
rules=$1 desc=$2 tool=$3 device=$4 hostdev=$5
mount -t tmpfs tmpfs /run
mkdir -p /run/udev/rules.d
cp "$rules" /run/udev/rules.d/
mkdir -p "$hostdev"
mount --rbind /dev "$hostdev"
mount -t tmpfs -o mode=0755 tmpfs /dev
for entry in "$hostdev"/* "$hostdev"/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=/dev/${entry##*/}
    [ "$name" = /dev/char ] && continue
    [ "$name" = /dev/ptmx ] && continue
    if [ -L "$entry" ]; then cp -P "$entry" "$name"
    elif [ -d "$entry" ]; then mkdir "$name" && mount --rbind "$entry" "$name"
    else : > "$name" && mount --bind "$entry" "$name"
    fi
done
ln -s pts/ptmx /dev/ptmx
mkdir /dev/char
exec umockdev-run -d "$desc" -- "$tool" test --action=add "$device"
"""


def udev_test(tool, workdir, device):
    """`udevadm test --action=add` for one emulated device with only our rule added, in a private
    mount namespace (PRIVATE_UDEV_SCRIPT): nothing of the host's udev state or /dev is touched, and
    the host needs no /dev/char."""
    desc = os.path.join(workdir, 'dev.umockdev')
    with open(desc, 'w') as f:
        f.write(device.to_umockdev())
    hostdev = os.path.join(workdir, 'hostdev')
    had_dev_char = os.path.exists('/dev/char')
    out = subprocess.run(['unshare', '--mount', '--propagation', 'private', 'sh', '-c', PRIVATE_UDEV_SCRIPT,
                          'sh', RULES, desc, tool, '/sys' + device.sysfs_path, hostdev],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert os.path.exists('/dev/char') == had_dev_char, 'the host /dev is left as it was'
    return out.stdout + out.stderr


@pytest.mark.parametrize('make', [plx.bmi160, plx.hid_accel_3d, plx.hid_gyro_3d], ids=['imu', 'hid-accel', 'hid-gyro'])
def test_udev_rule_takes_motion_sensors(workdir, make):
    if os.geteuid() != 0:
        pytest.skip('needs root for a private mount namespace')
    text = udev_test(udevadm(), workdir, make())
    assert 'SYSTEMD_WANTS=parallaxd.service' in text, text
    assert re.search(r"61-parallaxd.rules:\d+ MODE 0660", text), text
    assert re.search(r"run: '/usr/lib/parallaxd/parallaxd-iio-access /sys/devices/\S+ parallaxd'", text), text


def test_udev_rule_leaves_other_iio_devices_alone(workdir):
    if os.geteuid() != 0:
        pytest.skip('needs root for a private mount namespace')

    class ADC(plx.IIODevice):
        """An ADC: voltage channels only."""
        def attributes(self):
            return {'dev': '246:3', 'name': 'ads1015', 'in_voltage0_raw': '1234', 'in_voltage_scale': '1'}

    text = udev_test(udevadm(), workdir, ADC('ads1015', 3))
    assert 'SYSTEMD_WANTS' not in text and 'PARALLAXD_SENSOR' not in text, text
    assert not re.search(r'61-parallaxd.rules:\d+ (GROUP|MODE|RUN)', text), text


# --- what the helper opens, and that the unprivileged daemon can then write ---------------------------

def buffered_imu(index=0, **kw):
    """A BMI160 with the attributes of buffered capture (scan elements, buffer, trigger)."""
    extra = {'buffer/enable': '0', 'buffer/length': '2', 'buffer/watermark': '1', 'trigger/current_trigger': '',
             'current_timestamp_clock': 'realtime', 'in_accel_hysteresis': '0', 'in_anglvel_hysteresis': '0',
             'in_accel_hysteresis_relative': '0',
             'scan_elements/in_accel_x_en': '0', 'scan_elements/in_anglvel_z_en': '0',
             'scan_elements/in_accel_x_index': '0', 'scan_elements/in_accel_x_type': 'le:s16/16>>0'}
    extra.update(kw.pop('extra_attrs', {}))
    return plx.bmi160(index, extra_attrs=extra, **kw)


def test_helper_opens_exactly_the_written_attributes(testbed):
    dev = testbed.add(buffered_imu(0))
    sysdir = testbed.attr_path(dev, '')
    # Root may give a file to any group; anyone else only to a group of their own.
    group = 'nogroup' if os.geteuid() == 0 else grp.getgrgid(os.getgid()).gr_name
    gid = grp.getgrnam(group).gr_gid
    out = subprocess.run([HELPER, sysdir, group], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    writable = ['sampling_frequency', 'buffer/enable', 'buffer/length', 'buffer/watermark', 'trigger/current_trigger',
                'scan_elements/in_accel_x_en', 'scan_elements/in_anglvel_z_en',
                'current_timestamp_clock', 'in_accel_hysteresis', 'in_anglvel_hysteresis']
    for attr in writable:
        st = os.stat(os.path.join(sysdir, attr))
        assert st.st_gid == gid and st.st_mode & stat.S_IWGRP, '%s not opened to %s' % (attr, group)
    # What the daemon never writes stays closed (a relative sensitivity included).
    for attr in ('in_accel_x_raw', 'name', 'scan_elements/in_accel_x_index', 'in_accel_scale', 'in_accel_hysteresis_relative'):
        st = os.stat(os.path.join(sysdir, attr))
        assert not (st.st_gid == gid and st.st_mode & stat.S_IWGRP), '%s must stay as it was' % attr


def start_as_nobody(parallaxd_bin, workdir, testbed):
    """A ready daemon run as nobody/nogroup (standing in for the parallaxd account, no
    capabilities) on the testbed, with a way to the testbed, its socket and the notify socket."""
    setpriv = need('setpriv')
    nobody, nogroup = pwd.getpwnam('nobody').pw_uid, grp.getgrnam('nogroup').gr_gid
    for d in (workdir, testbed.root):
        os.chmod(d, 0o755)
    sockdir = os.path.join(workdir, 'run')
    os.mkdir(sockdir)
    os.chown(sockdir, nobody, nogroup)
    old = os.umask(0)  # the notify socket the harness binds must be writable for nobody
    try:
        d = plx.Daemon(workdir, testbed, binary=setpriv,
                       args=['--reuid=%d' % nobody, '--regid=%d' % nogroup, '--clear-groups', accounts.shared_copy(parallaxd_bin),
                             '--socket', os.path.join(sockdir, 's.sock'), '--config', '/dev/null',
                             '--source', 'auto', '--log-level', 'debug'],
                       socket_path=os.path.join(sockdir, 's.sock'))
        d.start()
    finally:
        os.umask(old)
    return d


@pytest.mark.parametrize('helper_ran', [True, False], ids=['after-udev-helper', 'without-helper'])
def test_unprivileged_daemon_raises_sampling_frequency(parallaxd_bin, workdir, testbed, helper_ran):
    """The service runs as an account without capabilities: sysfs writes work exactly where the
    udev helper gave its group write access (here nobody/nogroup stands in for parallaxd)."""
    if os.geteuid() != 0:
        pytest.skip('needs root to start the daemon under another account')
    nobody = pwd.getpwnam('nobody').pw_uid
    # A device that idles at 1 Hz: the daemon raises it to its poll rate (a sysfs write).
    dev = testbed.add(buffered_imu(0, sampling_frequency=1.0))
    if helper_ran:
        subprocess.run([HELPER, testbed.attr_path(dev, ''), 'nogroup'], check=True, timeout=30)
    d = start_as_nobody(parallaxd_bin, workdir, testbed)
    try:
        assert os.stat(d.socket_path).st_uid == nobody, 'the daemon does not run as the unprivileged account'
        c = d.connect()
        c.subscribe()
        log = d.stderr_text()
        rate = float(testbed.get_raw(dev, 'sampling_frequency'))
        if helper_ran:
            assert rate >= 10, 'sampling_frequency still %s\n%s' % (rate, log)
            assert 'raised to' in log
        else:
            assert rate == 1.0, 'an unprivileged daemon wrote a root-only attribute'
            assert 'could not be raised' in log, log
        s = c.status()
        assert s['sensor'] == 'ok', s
    finally:
        assert d.stop() == 0, d.stderr_tail()


# A steady turn about Y (gravity unchanged while upright): 17.2° over 1 s, x ≈ 0.19 after it.
STEADY_TURN_DEGREES, STEADY_TURN_SECONDS = 17.2, 1.0


@pytest.mark.parametrize('granted', ['everything', 'not-clock-or-sensitivity'])
def test_unprivileged_daemon_says_what_a_refused_write_costs(parallaxd_bin, workdir, testbed, feeders, granted):
    """A HID hub read by the unprivileged account: with everything the helper grants, it sets the
    kernel's clock to monotonic and the hub's sensitivity to 0 (its default here is not), and
    claims no limit. Without those two attributes (a helper from before they were granted) it
    says what each refusal costs in status and the log, and never claims a rest at the hub."""
    if os.geteuid() != 0:
        pytest.skip('needs root to start the daemon under another account')
    accel = plx.buffered_hid_accel_3d(0, sysfs_raw=False, hysteresis={plx.ACCEL: 0.05})
    gyro = plx.buffered_hid_gyro_3d(1, sysfs_raw=False, hysteresis={plx.GYRO: 0.02})
    for dev in (accel, gyro):
        testbed.add(dev)
        subprocess.run([HELPER, testbed.attr_path(dev, ''), 'nogroup'], check=True, timeout=30)
        if granted != 'everything':
            for attr in ('current_timestamp_clock', 'in_accel_hysteresis', 'in_anglvel_hysteresis'):
                path = testbed.attr_path(dev, attr)
                if os.path.exists(path):
                    os.chown(path, 0, 0)
                    os.chmod(path, 0o644)
        feeders.append(plx.ScanFeeder(testbed, dev, rate_hz=100.0, hub=True).start())
    # The account opens the emulated nodes as udev would let the service: the PTYs behind
    # /dev/iio:deviceN and umockdev's ioctl socket.
    for dev in (accel, gyro):
        os.chmod(os.path.realpath(os.path.join(testbed.root, 'dev', 'iio:device%d' % dev.index)), 0o666)
    for sock in glob.glob(os.path.join(testbed.root, 'ioctl', '*')):
        os.chmod(sock, 0o777)
    d = start_as_nobody(parallaxd_bin, workdir, testbed)
    try:
        c = d.connect()
        c.subscribe()
        status = c.status()
        log = d.stderr_text()
        assert 'capture: buffered' in log, log
        limits = {s['kind']: s.get('limits', []) for s in status['sensors']}
        clocks = [testbed.get_raw(dev, 'current_timestamp_clock') for dev in (accel, gyro)]
        sensitivities = [float(testbed.get_raw(accel, 'in_accel_hysteresis')), float(testbed.get_raw(gyro, 'in_anglvel_hysteresis'))]
        if granted == 'everything':
            assert limits == {'accel': [], 'gyro': []}, status
            assert clocks == ['monotonic', 'monotonic'] and sensitivities == [0.0, 0.0], (clocks, sensitivities)
            assert 'no kernel timestamps' not in log and 'the hub cannot rest' not in log, log
        else:
            assert clocks == ['realtime', 'realtime'] and sensitivities == [0.05, 0.02], (clocks, sensitivities)
            for kind, attr in (('accel', 'in_accel_hysteresis'), ('gyro', 'in_anglvel_hysteresis')):
                assert any(l.startswith('the hub cannot rest: reading at full rate while still (%s: Permission denied' % attr)
                           for l in limits[kind]), status
                assert any(l.startswith('no kernel timestamps: sample times from the read time (the clock stays realtime)')
                           and 'current_timestamp_clock: Permission denied' in l for l in limits[kind]), status
            assert log.count('the hub cannot rest') == 2, log
            # parallaxctl status shows each limit once.
            text = subprocess.run([plx.find_binary('parallaxctl'), '--socket', d.socket_path, 'status'],
                                  capture_output=True, text=True, timeout=30).stdout
            assert sum(1 for line in text.splitlines() if line.startswith('limit')) == 3, text
        # A steady turn about Y with gravity unchanged: the gyroscope's reading changes once and
        # then holds. At sensitivity 0 the hub reports it every interval; a hub that kept its
        # sensitivity reports once, and its silence must count as that rate held (HID), not as
        # a gap the fusion skips.
        gyro_scans = feeders[1].scans
        plx.turn(testbed, accel, gyro, 'y', STEADY_TURN_DEGREES, STEADY_TURN_SECONDS)
        during = feeders[1].scans - gyro_scans
        f = expect_offset(c, lambda x, y: x > TURN_THRESHOLD, 'x > %.2f' % TURN_THRESHOLD)
        assert f['x'] < TURN_PEAK_LIMIT, f
        if granted == 'everything':
            assert during >= 100.0 * STEADY_TURN_SECONDS / 2, 'the hub sent %d gyroscope reports during a steady turn' % during
        else:
            assert during <= 3, 'the emulated hub reported a steady turn %d times at sensitivity 0.02' % during
        # Still for longer than RestAfter=: a rest at the hub is claimed only where it was had.
        assert wait_resting(c).get('resting') is True, d.stderr_tail()
        rested = d.stderr_text()
        assert ('at rest at the hub' in rested) == (granted == 'everything'), rested
    finally:
        assert d.stop() == 0, d.stderr_tail()
