"""The devices people hold, through the installed service: the project's Debian packages on a
booted 6.12 system (bookworm-backports' kernel, systemd as PID 1, udev loading the drivers),
installed with apt-get offline as in test_installed.py, the service as shipped (the parallaxd
account, no capabilities, the hardened unit):
- an I2C IMU without an IRQ (bmi160 on i2c-stub, guest/i2cimu.py) captured buffered on the hrtimer
  trigger the service makes through configfs (its ExecStartPre=+ gave the account that directory;
  61-parallaxd.rules the trigger's rate), removed when the service closes the sensors;
- the Steam Deck (hid-steam over uhid, guest/steamdeck.py, lizard_mode=0) found through the udev
  rule and `DeviceAllow=char-input r`, the service holding that one input device open and no other;
- the other I2C chips of test_kernel_612.py, each the way it can be captured, through the same
  grants: mpu6050 without an IRQ (no buffer: polled), lsm6dso (st_lsm6dsx, two IIO devices, each
  on an hrtimer trigger the service made), mxc4005 (accelerometer only, hrtimer trigger) and
  bmc150 (accelerometer only; its driver refuses any trigger but its own: polled); and lsm6dso
  under `Capture=polled`, whose raw reads are slow, said in the journal and in `status`.
Signs, first frames, rest and wake as the plain lab shows them as root; per step, nothing refused
in the service's journal since the step began. One guest (the `booted_backports` session
fixture), one chip after another in it.
"""
import contextlib
import threading
import time

import pytest

from labkit import GuestDeck, GuestImu, offsets
# The scenario's tools on the Debian 12 kernel, used the same way here.
from test_installed import (APT, DROPIN, MEMBER, UNIT, assert_first_frames_current, await_unit, cursor, end_monitors, journal,
                            monitor, package_names, show, status)
# Each chip's path and whether it has a gyroscope, as the root tests find them.
from test_kernel_612 import CHIPS

HRTIMER = '/sys/kernel/config/iio/triggers/hrtimer'
# A rate the hrtimer trigger does not start at (its default is 100 Hz): the trigger firing at it
# shows the service's write of the trigger's rate was allowed (udev's rule gives it, a moment after
# the trigger appears). RestAfter= short so that resting takes seconds.
IMU_DROPIN = '[Sensor]\nRate=200\nRestAfter=2\n'
FIRST_FRAMES = 10


@pytest.fixture(scope='module')
def installed(booted_backports):
    """The packages installed (apt-get offline, nothing by hand) and a member of group parallax;
    the service not started yet. Returns the packages' names."""
    lab = booted_backports
    t0 = time.monotonic()
    r = lab.run(APT + ['install', '--no-install-recommends'] + lab.debs, timeout=600,
                env={'DEBIAN_FRONTEND': 'noninteractive'})
    assert r.rc == 0, r.stdout[-3000:] + r.stderr[-3000:]
    print(f'\n  6.12 booted: apt-get install {time.monotonic() - t0:.1f} s', flush=True)
    lab.check(f'useradd -M -G parallax {MEMBER}')
    assert show(lab, UNIT, 'ActiveState')['ActiveState'] == 'inactive'
    return package_names(lab.debs)


def service_pid(lab):
    return int(show(lab, UNIT, 'MainPID')['MainPID'])


def assert_hardened(lab, pid):
    """The service runs as the parallaxd account, with no capabilities and no new privileges."""
    fields = dict(line.split(':', 1) for line in lab.check(f'grep -E "^(Uid|CapEff|NoNewPrivs):" /proc/{pid}/status').splitlines())
    uid = lab.check(['id', '-u', 'parallaxd']).strip()
    assert fields['Uid'].split()[0] == uid and int(fields['CapEff'], 16) == 0 and fields['NoNewPrivs'].strip() == '1', fields


def refusals(lab, since=None):
    """The service's journal lines that say something was refused or denied (after the cursor
    `since`, when given: each step judges its own)."""
    return [e['MESSAGE'] for e in journal(lab, since)
            if any(w in e['MESSAGE'] for w in ('Permission denied', 'Operation not permitted', 'cannot set', 'refused'))]


def assert_nothing_refused(lab, since):
    said = refusals(lab, since)
    assert not said, said


def our_triggers(lab):
    return [t for t in lab.check(f'ls {HRTIMER} 2>/dev/null || true').split() if t.startswith('parallaxd-')]


def await_guest(lab, condition, timeout=30):
    """Waits (in the guest) until the shell condition holds; its exit status is the answer."""
    return lab.run(f"timeout {timeout} bash -c 'until {condition}; do sleep 0.2; done'", timeout=timeout + 10).rc == 0


def await_status(lab, field, value, timeout=30):
    """Waits until `parallaxctl status --json` says "field":value (value as JSON: true, 1, \\"ok\\")."""
    assert await_guest(lab, f'parallaxctl status --json | grep -q \\"{field}\\":{value}', timeout=timeout), status(lab)


def hold_subscriber(lab, seconds):
    """A member's subscriber in the background, holding the sensors open for `seconds` at most
    (a bound: end it with end_monitors() once what it held open for is seen)."""
    holder = threading.Thread(target=monitor, args=(lab,), kwargs=dict(seconds=seconds), daemon=True)
    holder.start()
    return holder


@contextlib.contextmanager
def held_open(lab, seconds=120):
    """A member subscribed in the background for the block: the sensors stay open; ended after.
    The block begins once the service counts the subscriber: on a loaded host the guest may start
    the monitor seconds later, and the sensors a start-up opened meanwhile linger, then close (a
    trigger gone, a status of other sensors) under a block that believed them held."""
    holder = hold_subscriber(lab, seconds)
    try:
        assert await_guest(lab, 'parallaxctl status --json | grep -q \\"subscribers\\":[1-9]', timeout=60), status(lab)
        yield holder
    finally:
        end_monitors(lab)
        holder.join()


@contextlib.contextmanager
def installed_imu(lab, chip, dropin=IMU_DROPIN):
    """A step with an I2C chip as installed: the service stopped, the drop-in written, the chip
    made (udev loads its driver, gives the account its node and attributes, 61-parallaxd.rules,
    and starts the service for it, SYSTEMD_WANTS); yields (the chip, the service's pid, the
    journal cursor the step began at). The chip and the drop-in go after the block."""
    since = cursor(lab)
    lab.check(f'systemctl stop {UNIT}')
    lab.write(DROPIN, dropin)
    imu = GuestImu(lab, socket=f'/run/i2cimu-{chip}.sock')
    try:
        imu.start(chip)
        lab.check(['udevadm', 'settle'])
        pid = await_unit(lab, UNIT)
        assert_hardened(lab, pid)
        yield imu, pid, since
    finally:
        imu.stop()
        lab.check(['rm', '-f', DROPIN])


def tilt_and_back(lab, hub):
    """Top edge away, 20°: y < 0, never the other way; then back to level. Returns the tilt's
    frames."""
    tilt = monitor(lab, until='y is not None and y < -0.15', then=dict(op='attitude', x=-20, seconds=1), hub=hub)
    frames = offsets(tilt)
    assert frames and frames[-1]['y'] < -0.15 and all(f['y'] < 0.02 for f in frames), (tilt['stderr'], frames[-5:])
    back = monitor(lab, until='y is not None and abs(y) < 0.03', then=dict(op='attitude', x=0, seconds=1), hub=hub)
    assert offsets(back) and abs(offsets(back)[-1]['y']) < 0.03, back['lines'][-3:]
    return frames


def turn_and_back(lab, hub):
    """Right edge away, 20° about +Y: x > 0 (the gyroscope's first frames), never the other way;
    then back. Returns the turn's frames."""
    turn = monitor(lab, until='x is not None and x > 0.15', then=dict(op='attitude', y=20, seconds=1), hub=hub)
    frames = offsets(turn)
    assert frames and frames[-1]['x'] > 0.15 and all(f['x'] > -0.02 for f in frames), (turn['stderr'], frames[-5:])
    hub.ctl('attitude', y=0, seconds=0.5, wait=1)
    return frames


def rest_and_wake(lab, hub):
    """Held open and still, the service rests (RestAfter=2); a tilt wakes it with the right sign,
    then the device is level again. Call inside held_open()."""
    await_status(lab, 'resting', 'true')
    woke = monitor(lab, until='y is not None and y < -0.1', then=dict(op='attitude', x=-15, seconds=0.5), hub=hub)
    frames = offsets(woke)
    assert frames and frames[-1]['y'] < -0.1 and all(f['y'] < 0.02 for f in frames), \
        ([(f['seq'], f['x'], f['y']) for f in frames][-20:], woke.get('then_reply'), woke['stderr'][-500:],
         status(lab), hub.status(), [e['MESSAGE'] for e in journal(lab)][-15:])
    hub.ctl('attitude', x=0, seconds=0.5, wait=1)


def assert_path(report, path, kinds):
    """`status` names the path each sensor takes: buffered on a trigger the service made, or polled."""
    assert {s['kind'] for s in report['sensors']} == kinds, report
    for s in report['sensors']:
        if path == 'polled':
            assert s['capture'].startswith('polled') and not s.get('trigger'), s
        else:
            assert s['capture'] == 'buffered' and s.get('trigger', '').startswith(f'{path}: parallaxd-'), s
        assert not s.get('limits'), s


def test_i2c_imu_buffered_on_the_services_hrtimer_trigger(booted_backports, installed, capsys):
    lab = booted_backports
    with installed_imu(lab, 'bmi160') as (imu, pid, since):
        # Opened with a subscriber: buffered on the trigger the service made, at the rate it asked.
        sub = monitor(lab, until="type == 'offset'")
        assert offsets(sub), sub
        report = status(lab)
        assert_path(report, 'hrtimer', {'accel', 'gyro'})
        for s in report['sensors']:
            assert 'at 200 Hz' in s['trigger'], s
        assert report['frame']['source'] in ('kernel', 'identity'), report['frame']
        messages = [e['MESSAGE'] for e in journal(lab)]
        # Kernel timestamps: the scans' times come from the kernel's stamps, not the read alone.
        assert any('sample times from' in m and 'kernel timestamp' in m for m in messages), messages[-20:]

        tilt_and_back(lab, imu)
        # First frames: current at once for each new subscriber (test_installed.py's measure).
        assert_first_frames_current(lab, 'I2C IMU, hrtimer trigger', capsys, count=FIRST_FRAMES, warmup=True)
        with held_open(lab):
            rest_and_wake(lab, imu)
            # While it captures, the service's trigger is there.
            triggers_open = our_triggers(lab)
            assert triggers_open, 'no trigger of the service in configfs while it captured'

        # The sensors closed (no subscriber for Linger=): the trigger is gone, the service runs on.
        assert await_guest(lab, f"[ -z \"$(ls {HRTIMER} | grep ^parallaxd-)\" ]", timeout=60), our_triggers(lab)
        assert service_pid(lab) == pid
        assert not [t for t in lab.check('cat /sys/bus/iio/devices/trigger*/name 2>/dev/null || true').split()
                    if t.startswith('parallaxd-')]
        assert_nothing_refused(lab, since)
        with capsys.disabled():
            print(f"\n  bmi160 as installed: {report['sensors'][0]['trigger']}; trigger {triggers_open} removed once closed")


def test_steam_deck_found_through_the_udev_rule_and_only_its_node_read(booted_backports, installed, capsys):
    lab = booted_backports
    since = cursor(lab)
    lab.check(f'systemctl stop {UNIT}')
    deck = GuestDeck(lab, socket='/run/steamdeck-booted.sock')
    try:
        # hid-steam makes the motion device; udev marks it ID_INPUT_ACCELEROMETER, gives the
        # account its node (read only) and starts the service for it.
        info = deck.start(lizard_mode=0)
        node = info['node']
        lab.check(['udevadm', 'settle'])
        pid = await_unit(lab, UNIT)
        assert_hardened(lab, pid)
        modes = dict(line.split(' ', 1) for line in lab.check('stat -c "%n %G %a" /dev/input/event*').splitlines())
        assert modes.pop(f'/dev/input/{node}') == 'parallaxd 640', modes
        assert modes and all(v.split()[0] != 'parallaxd' for v in modes.values()), modes

        # Tilt (top edge away: y < 0) and turn (right edge away: x > 0), as the plain lab shows.
        tilt_and_back(lab, deck)
        turn_and_back(lab, deck)

        # While it captures: status says evdev from that node, and the only input device the
        # service holds open is it (not the keyboard, the power button or the Deck's gamepad).
        with held_open(lab):
            # held_open waited for the holder to subscribe (status keeps the last capture's
            # sensors after a close, so their `evdev` alone does not say the device is open now).
            await_status(lab, 'capture', '\\"evdev\\"', timeout=20)
            report = status(lab)
            for s in report['sensors']:
                assert s['capture'] == 'evdev' and s['location'] == f'/dev/input/{node}', s
            now_pid = service_pid(lab)
            listing = lab.check(f'ls -l /proc/{now_pid}/fd')
        held = sorted(l.split(' -> ')[-1] for l in listing.splitlines() if '/dev/input/' in l)
        assert held == [f'/dev/input/{node}'], (held, pid, now_pid, report, listing)
        assert_nothing_refused(lab, since)

        # Steam takes the controller (holds its hidraw node): the motion device goes and the
        # service says so; let go, the device is made again and the same service reads it, for a
        # member who stayed subscribed: heard from the kernel's event (udev's never reach the
        # service's network namespace) and opened once udev's rules ran, never refused.
        box = {}
        follower = threading.Thread(target=lambda: box.update(sub=monitor(
            lab, seconds=60, until="type == 'offset' and lost_ns and t > lost_ns and states[-1] == 'ok'")), daemon=True)
        follower.start()
        await_status(lab, 'subscribers', 1, timeout=20)
        taken = deck.ctl('hidraw', hold=1)
        assert taken['ok'], taken
        assert await_guest(lab, "parallaxctl status --json | grep -qv \\\"sensor\\\":\\\"ok\\\"", timeout=20), status(lab)
        t0 = time.monotonic()
        mark = cursor(lab)
        back = deck.ctl('hidraw', hold=0)
        assert back['ok'], back
        follower.join()
        seconds = time.monotonic() - t0
        states = [l['msg']['sensor'] for l in box['sub']['lines'] if l['msg'].get('type') == 'state']
        assert 'ok' in states and states[-1] == 'ok' and offsets(box['sub']), (states, box['sub']['stderr'])
        assert service_pid(lab) == pid
        said = [e['MESSAGE'] for e in journal(lab, mark)]
        assert any('motion devices appeared: opening the sensors now' in m for m in said), said[-15:]
        assert not any('denied' in m.lower() for m in said), said[-15:]
        after = status(lab)
        assert all(s['location'] == f"/dev/input/{back['node']}" for s in after['sensors']), after
        with capsys.disabled():
            print(f'\n  Steam Deck as installed: {node} ({modes and "others: " + ", ".join(f"{k} {v}" for k, v in sorted(modes.items()))}); '
                  f'held open: {held}; hidraw let go: frames again {seconds:.1f} s later, states {states}, '
                  f'refused meanwhile: {refusals(lab, since) or "nothing"}')
    finally:
        deck.stop()


# lsm6dso under `Capture=polled`: st_lsm6dsx powers the chip up for each raw read while its
# buffer is off (250–320 ms a value); the service says once that its reads are too slow for
# the rate asked (SlowReadWatch.swift), and keeps answering meanwhile.
SLOW_DROPIN = '[Sensor]\nRate=200\nCapture=polled\n'


def slow_polled_reads_are_said(lab, imu):
    """One more start of the service, on the lsm6dso already made: `Capture=polled`."""
    mark = cursor(lab)
    lab.write(DROPIN, SLOW_DROPIN)
    lab.check(['systemctl', 'restart', UNIT])
    with held_open(lab):
        assert await_guest(lab, f'journalctl -u {UNIT} --after-cursor "{mark}" -o cat | grep -q "reads take"', timeout=90), \
            [e['MESSAGE'] for e in journal(lab, mark)][-15:]
        # Said in `status` too, once the loop has the revised descriptions.
        assert await_guest(lab, 'parallaxctl status --json | grep -q "reads take"', timeout=30), status(lab)
        t0 = time.monotonic()
        report = status(lab)       # the loop answers while the capture thread reads
        answered = time.monotonic() - t0
        moving = monitor(lab, seconds=20, until='y is not None and y < -0.15', then=dict(op='attitude', x=-20, seconds=1), hub=imu)
    said = [e['MESSAGE'] for e in journal(lab, mark) if 'reads take' in e['MESSAGE']]
    assert len(said) == 1, said
    for s in report['sensors']:
        assert s['capture'].startswith('polled: Capture=polled; reads take '), s
        assert s['rate'] < 100, s
    frames = offsets(moving)
    ages = sorted((f['recv_ns'] - f['t']) / 1e9 for f in frames)
    # A sample's time is the middle of its reads, never later than the frame that carries it.
    assert all(a > 0 for a in ages), ages
    lab.check(['rm', '-f', DROPIN])
    assert_nothing_refused(lab, mark)
    return dict(journal=said[0], capture=report['sensors'][0]['capture'], rate=report['sensors'][0]['rate'],
                input_rate=round(report.get('rates', {}).get('input', 0), 2), status_answered_s=round(answered, 2),
                frames=len(frames), frame_age_median_s=ages and round(ages[len(ages) // 2], 2),
                tilt_y=frames and round(frames[-1]['y'], 3))


@pytest.mark.parametrize('chip', ['mpu6050', 'lsm6dso', 'mxc4005', 'bmc150_accel'])
def test_i2c_imu_as_installed(booted_backports, installed, capsys, chip):
    """Each further chip the way it can be captured, through the same grants as bmi160: the
    path in `status`, tilt (and turn with a gyroscope), first frames, rest and wake, and nothing
    the service wrote refused."""
    lab = booted_backports
    path, has_gyro = CHIPS[chip]
    with installed_imu(lab, chip) as (imu, pid, since):
        with held_open(lab):
            await_status(lab, 'open', 'true')
            report = status(lab)
            triggers = our_triggers(lab)
        assert_path(report, path, {'accel', 'gyro'} if has_gyro else {'accel'})
        # A polled chip keeps no trigger of the service (bmc150's was refused by its driver and removed).
        assert bool(triggers) == (path == 'hrtimer'), (triggers, report)
        tilt = tilt_and_back(lab, imu)
        turn = turn_and_back(lab, imu) if has_gyro else []
        assert_first_frames_current(lab, f'{chip}, {path}', capsys, count=FIRST_FRAMES, warmup=True)
        with held_open(lab):
            rest_and_wake(lab, imu)
        assert service_pid(lab) == pid
        assert_nothing_refused(lab, since)
        slow = slow_polled_reads_are_said(lab, imu) if chip == 'lsm6dso' else None
        with capsys.disabled():
            print(f"\n  {chip} as installed: {[s['capture'] + (' ' + s['trigger'] if s.get('trigger') else '') for s in report['sensors']]}; "
                  f"triggers {triggers}; tilt y {tilt[-1]['y']:+.3f}" + (f", turn x {turn[-1]['x']:+.3f}" if turn else '')
                  + (f'\n  {chip} under Capture=polled: {slow}' if slow else ''))
