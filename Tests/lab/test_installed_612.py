"""The devices people hold, through the installed service: the project's Debian packages on a
booted 6.12 system (bookworm-backports' kernel, systemd as PID 1, udev loading the drivers),
installed with apt-get offline as in test_installed.py, the service as shipped (the parallaxd
account, no capabilities, the hardened unit):
- an I2C IMU without an IRQ (bmi160 on i2c-stub, guest/i2cimu.py) captured buffered on the hrtimer
  trigger the service makes through configfs (its ExecStartPre=+ gave the account that directory;
  61-parallaxd.rules the trigger's rate), removed when the service closes the sensors;
- the Steam Deck (hid-steam over uhid, guest/steamdeck.py, lizard_mode=0) found through the udev
  rule and `DeviceAllow=char-input r`, the service holding that one input device open and no other.
- an I2C IMU without a buffer (mpu6050 without an IRQ) polled through the same grants.
Signs, kernel timestamps, first frames, rest and wake as the plain lab shows them as root.
One guest (the `booted_backports` session fixture), the steps in order.
"""
import threading
import time

import pytest

from labkit import GuestDeck, GuestImu, offsets
# The scenario's tools on the Debian 12 kernel, used the same way here.
from test_installed import (APT, DROPIN, MEMBER, UNIT, assert_first_frames_current, await_unit, cursor, end_monitors, journal,
                            monitor, package_names, show, status)

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


def our_triggers(lab):
    return [t for t in lab.check(f'ls {HRTIMER} 2>/dev/null || true').split() if t.startswith('parallaxd-')]


def await_guest(lab, condition, timeout=30):
    """Waits (in the guest) until the shell condition holds; its exit status is the answer."""
    return lab.run(f"timeout {timeout} bash -c 'until {condition}; do sleep 0.2; done'", timeout=timeout + 10).rc == 0


def hold_subscriber(lab, seconds):
    """A member's subscriber in the background, holding the sensors open for `seconds` at most
    (a bound: end it with end_monitors() once what it held open for is seen)."""
    holder = threading.Thread(target=monitor, args=(lab,), kwargs=dict(seconds=seconds), daemon=True)
    holder.start()
    return holder


def test_i2c_imu_buffered_on_the_services_hrtimer_trigger(booted_backports, installed, capsys):
    lab = booted_backports
    since = cursor(lab)
    lab.write(DROPIN, IMU_DROPIN)
    imu = GuestImu(lab, socket='/run/i2cimu-booted.sock')
    try:
        # udev loads bmi160_i2c for the new I2C device, gives the account its node and
        # attributes (61-parallaxd.rules) and starts the service for it (SYSTEMD_WANTS).
        imu.start('bmi160')
        lab.check(['udevadm', 'settle'])
        pid = await_unit(lab, UNIT)
        assert_hardened(lab, pid)
        # Opened with a subscriber: buffered on the trigger the service made, at the rate it asked.
        sub = monitor(lab, until="type == 'offset'")
        assert offsets(sub), sub
        report = status(lab)
        assert {s['kind'] for s in report['sensors']} == {'accel', 'gyro'}, report
        for s in report['sensors']:
            assert s['capture'] == 'buffered' and s['trigger'].startswith('hrtimer: parallaxd-device'), s
            assert 'at 200 Hz' in s['trigger'], s
            assert not s.get('limits'), s
        assert report['frame']['source'] in ('kernel', 'identity'), report['frame']
        messages = [e['MESSAGE'] for e in journal(lab)]
        # Kernel timestamps: the scans' times come from the kernel's stamps, not the read alone.
        assert any('sample times from' in m and 'kernel timestamp' in m for m in messages), messages[-20:]

        # Tilt: top edge away, 20°: y < 0, never the other way; then back.
        tilt = monitor(lab, until='y is not None and y < -0.15', then=dict(op='attitude', x=-20, seconds=1), hub=imu)
        frames = offsets(tilt)
        assert frames and frames[-1]['y'] < -0.15 and all(f['y'] < 0.02 for f in frames), (tilt['stderr'], frames[-5:])
        back = monitor(lab, until='y is not None and abs(y) < 0.03', then=dict(op='attitude', x=0, seconds=1), hub=imu)
        assert offsets(back) and abs(offsets(back)[-1]['y']) < 0.03, back['lines'][-3:]

        # First frames: current at once for each new subscriber (test_installed.py's measure).
        assert_first_frames_current(lab, 'I2C IMU, hrtimer trigger', capsys, count=FIRST_FRAMES, warmup=True)

        # Rest and wake: held open and still, the service rests (RestAfter=2); a tilt wakes it
        # with the right sign.
        holder = hold_subscriber(lab, 120)
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"resting\\\":true"), status(lab)
        woke = monitor(lab, until='y is not None and y < -0.1', then=dict(op='attitude', x=-15, seconds=0.5), hub=imu)
        frames = offsets(woke)
        assert frames and frames[-1]['y'] < -0.1 and all(f['y'] < 0.02 for f in frames), frames[-5:]
        imu.ctl('attitude', x=0, seconds=0.5, wait=1)
        # While it captures, the service's trigger is there.
        triggers_open = our_triggers(lab)
        assert triggers_open, 'no trigger of the service in configfs while it captured'
        end_monitors(lab)
        holder.join()

        # The sensors closed (no subscriber for Linger=): the trigger is gone, the service runs on.
        assert await_guest(lab, f"[ -z \"$(ls {HRTIMER} | grep ^parallaxd-)\" ]", timeout=60), our_triggers(lab)
        assert service_pid(lab) == pid
        assert not [t for t in lab.check('cat /sys/bus/iio/devices/trigger*/name 2>/dev/null || true').split()
                    if t.startswith('parallaxd-')]
        assert not refusals(lab, since), refusals(lab, since)
        with capsys.disabled():
            print(f"\n  bmi160 as installed: {report['sensors'][0]['trigger']}; trigger {triggers_open} removed once closed")
    finally:
        imu.stop()
        lab.check(['rm', '-f', DROPIN])


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
        tilt = monitor(lab, until='y is not None and y < -0.15', then=dict(op='attitude', x=-20, seconds=1), hub=deck)
        frames = offsets(tilt)
        assert frames and frames[-1]['y'] < -0.15 and all(f['y'] < 0.02 for f in frames), (tilt['stderr'], frames[-5:])
        deck.ctl('attitude', x=0, seconds=0.5, wait=1)
        turn = monitor(lab, until='x is not None and x > 0.15', then=dict(op='attitude', y=20, seconds=1), hub=deck)
        frames = offsets(turn)
        assert frames and frames[-1]['x'] > 0.15 and all(f['x'] > -0.02 for f in frames), frames[-5:]
        deck.ctl('attitude', y=0, seconds=0.5, wait=1)

        # While it captures: status says evdev from that node, and the only input device the
        # service holds open is it (not the keyboard, the power button or the Deck's gamepad).
        holder = hold_subscriber(lab, 120)
        # The holder subscribed (status keeps the last capture's sensors after a close, so their
        # `evdev` alone does not say the device is open now).
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"subscribers\\\":1", timeout=30), status(lab)
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"capture\\\":\\\"evdev\\\"", timeout=20), status(lab)
        report = status(lab)
        for s in report['sensors']:
            assert s['capture'] == 'evdev' and s['location'] == f'/dev/input/{node}', s
        now_pid = service_pid(lab)
        listing = lab.check(f'ls -l /proc/{now_pid}/fd')
        held = sorted(l.split(' -> ')[-1] for l in listing.splitlines() if '/dev/input/' in l)
        end_monitors(lab)
        holder.join()
        assert held == [f'/dev/input/{node}'], (held, pid, now_pid, report, listing)
        assert not refusals(lab, since), refusals(lab, since)

        # Steam takes the controller (holds its hidraw node): the motion device goes and the
        # service says so; let go, the device is made again and the same service reads it, for a
        # member who stayed subscribed: heard from the kernel's event (udev's never reach the
        # service's network namespace) and opened once udev's rules ran, never refused.
        box = {}
        follower = threading.Thread(target=lambda: box.update(sub=monitor(
            lab, seconds=60, until="type == 'offset' and lost_ns and t > lost_ns and states[-1] == 'ok'")), daemon=True)
        follower.start()
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"subscribers\\\":1", timeout=20), status(lab)
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


def test_i2c_imu_without_a_buffer_polled_as_installed(booted_backports, installed, capsys):
    """The third capture path as installed: an mpu6050 without an IRQ has no buffer at all, so the
    service polls its raw attributes (through the same udev grants), at the rate it asked."""
    lab = booted_backports
    since = cursor(lab)
    lab.check(f'systemctl stop {UNIT}')
    lab.write(DROPIN, IMU_DROPIN)
    imu = GuestImu(lab, socket='/run/i2cimu-polled.sock')
    try:
        imu.start('mpu6050')
        lab.check(['udevadm', 'settle'])
        pid = await_unit(lab, UNIT)
        assert_hardened(lab, pid)
        holder = hold_subscriber(lab, 120)
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"open\\\":true", timeout=30), status(lab)
        report = status(lab)
        assert {s['kind'] for s in report['sensors']} == {'accel', 'gyro'}, report
        for s in report['sensors']:
            assert s['capture'].startswith('polled') and not s.get('trigger') and not s.get('limits'), s
        end_monitors(lab)
        holder.join()

        tilt = monitor(lab, until='y is not None and y < -0.15', then=dict(op='attitude', x=-20, seconds=1), hub=imu)
        frames = offsets(tilt)
        assert frames and frames[-1]['y'] < -0.15 and all(f['y'] < 0.02 for f in frames), (tilt['stderr'], frames[-5:])
        back = monitor(lab, until='y is not None and abs(y) < 0.03', then=dict(op='attitude', x=0, seconds=1), hub=imu)
        assert offsets(back) and abs(offsets(back)[-1]['y']) < 0.03, back['lines'][-3:]
        turn = monitor(lab, until='x is not None and x > 0.15', then=dict(op='attitude', y=20, seconds=1), hub=imu)
        assert offsets(turn) and offsets(turn)[-1]['x'] > 0.15 and all(f['x'] > -0.02 for f in offsets(turn)), offsets(turn)[-5:]
        imu.ctl('attitude', y=0, seconds=0.5, wait=1)

        assert_first_frames_current(lab, 'I2C IMU, polled', capsys, count=FIRST_FRAMES, warmup=True)

        holder = hold_subscriber(lab, 120)
        assert await_guest(lab, "parallaxctl status --json | grep -q \\\"resting\\\":true"), status(lab)
        woke = monitor(lab, until='y is not None and y < -0.1', then=dict(op='attitude', x=-15, seconds=0.5), hub=imu)
        assert offsets(woke) and offsets(woke)[-1]['y'] < -0.1 and all(f['y'] < 0.02 for f in offsets(woke)), offsets(woke)[-5:]
        end_monitors(lab)
        holder.join()
        assert service_pid(lab) == pid
        assert not refusals(lab, since), refusals(lab, since)
        with capsys.disabled():
            print(f"\n  mpu6050 as installed: {report['sensors'][0]['capture']}")
    finally:
        imu.stop()
        lab.check(['rm', '-f', DROPIN])
