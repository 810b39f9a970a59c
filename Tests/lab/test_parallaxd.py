"""parallaxd (built on the host, run in the guest with --source iio:local:) on the real drivers."""
import time

import pytest

from labkit import offsets

# Recenter off: the reference stays the pose the sensors opened in. Linger=60 keeps them open
# between a test's subscriptions (a reopen takes the pose of that moment as the reference).
KEEP = ['Motion.Recenter=no', 'Sensor.Linger=60']


def moves(d, hub, until, **attitude):
    """Subscribes, turns the hub to attitude once the subscriber holds the current offset, and
    returns the offset frames up to the one for which until holds, and when the turn began."""
    sub = d.subscribe(seconds=30, until=until, then=dict(op='attitude', **attitude), hub=hub)
    frames = offsets(sub)
    t0 = int(float(sub['then_reply']['until']) * 1e9) - int(attitude.get('seconds', 0) * 1e9)
    print(f'{attitude}: {until} after {(frames[-1]["recv_ns"] - t0) / 1e9:.2f} s: '
          + ' '.join(f'{(f["t"] - t0) / 1e9:+.2f}:{f["x"]:+.3f},{f["y"]:+.3f}' for f in frames))
    return frames, t0


def test_tilt_sign_and_back(lab, hub, daemons):
    d = daemons.start(KEEP)
    # Top edge away from the viewer, 20°: a negative rotation about device +X, y < 0
    # (docs/frames.md); −20/90 = −0.22.
    frames, _ = moves(d, hub, 'y < -0.2', x=-20, seconds=1)
    assert frames[-1]['y'] < -0.2, frames[-5:]
    moving = [f for f in frames if abs(f['y']) > 0.02]
    assert moving and all(f['y'] < 0 for f in moving), moving[:5]
    assert all(abs(f['x']) < 0.05 for f in frames), frames
    # And back to the reference pose.
    back, _ = moves(d, hub, 'abs(y) < 0.03', x=0, seconds=1)
    assert abs(back[-1]['y']) < 0.03 and back[0]['y'] < -0.2, (back[:2], back[-2:])
    # Top edge toward the viewer: y > 0.
    toward, _ = moves(d, hub, 'y > 0.15', x=20, seconds=1)
    assert toward[-1]['y'] > 0.15 and all(f['y'] > -0.02 for f in toward), toward[-3:]


def test_turn_sign_from_the_gyroscope(lab, hub, daemons):
    d = daemons.start(KEEP)
    # A right-hand turn about device +Y (right edge away from the viewer): x > 0. The first frames
    # of the turn come from the gyroscope (the accelerometer's correction is slow: FilterGain 0.5).
    frames, t_turn = moves(d, hub, 'x > 0.15', y=20, seconds=1)
    assert frames[-1]['x'] > 0.15, frames[-5:]
    early = [f for f in frames if t_turn < f['t'] < t_turn + 400_000_000 and abs(f['x']) > 0.01]
    assert early and all(f['x'] > 0 and f['vx'] > 0 for f in early), frames[:8]
    assert all(abs(f['y']) < 0.05 for f in frames)


def switches(lab, pid):
    """Context switches (voluntary and not) of each thread of process `pid` in the guest, by thread id."""
    out = lab.run(f"grep -H ctxt_switches /proc/{pid}/task/*/status").stdout
    counts = {}
    for line in out.splitlines():
        tid = line.split('/')[4]
        counts[tid] = counts.get(tid, 0) + int(line.split()[1])
    return counts


def woke(before, after):
    """How many times the threads ran between two `switches` readings. A thread that ended in
    between ran at least once (to end), and its count leaves the sum: each such thread counts 1."""
    return sum(n - before.get(tid, 0) for tid, n in after.items()) + len(before.keys() - after.keys())


def test_accelerometer_only_hub_still_gives_the_tilt(lab, make_hub, daemons):
    # Most cheaper convertibles have no gyroscope: the hub makes accel_3d alone, captured buffered,
    # and tilt still moves the offset (from gravity alone), with the sign of the full pair.
    hub = make_hub(accel_only=True)
    d = daemons.start(KEEP)
    frames, _ = moves(d, hub, 'y < -0.15', x=-20, seconds=1)
    assert frames[-1]['y'] < -0.15, frames[-5:]
    assert 'capture: buffered (accel ' in d.log_tail() and 'gyro' not in [s['kind'] for s in d.status()['sensors']], \
        d.log_tail()
    assert hub.sensor('accel')['get_input'] == 0


def test_buffered_capture_asks_nothing_and_the_hub_rests(lab, hub, daemons, capsys):
    """The real drivers' split devices are captured through their buffers: not one synchronous
    GET_REPORT while moving or at rest (each *_raw read would be one), the hub's reports flow
    while moving, and at rest the daemon's raised change sensitivity leaves the hub silent."""
    d = daemons.start(KEEP)
    d.subscribe(seconds=20, frames=1)
    assert 'capture: buffered (accel ' in d.log_tail() and 'gyro ' in d.log_tail(), d.log_tail()
    sub = d.subscribe_async(seconds=20)   # held through both windows: its end is no wake-up in them
    rates, wakeups = {}, {}
    rested = lambda: d.log_tail(1000).count('silent while still')
    for label, action in (('moving', dict(x=30)), ('at rest', dict(x=0))):
        rests = rested()
        hub.ctl('rate', **action)
        if label == 'at rest':
            # RestAfter=2: the daemon rests after 2 s still; measure once both devices rest at the hub.
            deadline = time.monotonic() + 20
            while rested() < rests + 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert rested() >= rests + 2, d.log_tail()
            # The samples kept while the devices slowed down reach the loop within the rest's
            # drain interval (RestOrder.defaultDrainInterval, 2 s): the steady state comes after.
            time.sleep(2.5)
        before, before_switches = hub.status(), switches(lab, d.pid)
        t0 = time.monotonic()
        time.sleep(1.5)     # a measurement window
        after, wakeups[label] = hub.status(), woke(before_switches, switches(lab, d.pid))
        dt = time.monotonic() - t0
        rates[label] = {(s, c): (after['sensors'][s][c] - before['sensors'][s][c]) / dt
                        for s in ('accel', 'gyro') for c in ('get_input', 'input_sent')}
    sub.result()
    with capsys.disabled():
        for label, r in rates.items():
            print(f"\n  {label}: GET_REPORT(input)/s accel {r['accel', 'get_input']:.0f}, gyro {r['gyro', 'get_input']:.0f};"
                  f" input reports/s accel {r['accel', 'input_sent']:.1f}, gyro {r['gyro', 'input_sent']:.1f};"
                  f" daemon context switches {wakeups[label]} in 1.5 s")
    for label, r in rates.items():
        assert r['accel', 'get_input'] == 0 and r['gyro', 'get_input'] == 0, (label, r)
    assert rates['moving']['gyro', 'input_sent'] > 10, rates
    assert rates['at rest']['accel', 'input_sent'] == 0 and rates['at rest']['gyro', 'input_sent'] == 0, \
        (rates, d.log_tail())
    # Nothing arrives, nothing wakes: no thread of the daemon ran in the window at rest.
    assert wakeups['at rest'] == 0 and wakeups['moving'] > 0, (wakeups, d.log_tail())


def test_hub_destroyed_and_recreated_is_followed_within_1s(lab, hub, daemons, capsys):
    d = daemons.start(KEEP)
    d.subscribe(seconds=20, frames=1)
    # Until the first offset frame from a sample taken after the loss was announced.
    # The hub is unplugged for 1 s and plugged back once the subscriber holds its first frame.
    # (Re-plugged at once, the new devices take the old numbers and the daemon, reading at rest,
    # may not notice at all.)
    result = d.subscribe(seconds=40, until="type == 'offset' and lost_ns and t > lost_ns and states[-1] == 'ok'",
                         then=dict(op='recreate', unplugged=1), hub=hub)
    back = result['then_reply']                   # devices_ns: when the kernel's new devices were there
    assert back['ok'], back
    states = [(l['msg']['sensor'], l['recv_ns']) for l in result['lines'] if l['msg'].get('type') == 'state']
    assert [s for s, _ in states][-1:] == ['ok'] and len(states) >= 3, (states, d.log_tail())
    frame = [l for l in result['lines'] if l['msg'].get('type') == 'offset'][-1]
    t_new = back['devices_ns']
    reads = [r['t_ns'] for r in hub.ctl('sent', since=0)['reports'] if r['kind'] == 'get' and r['t_ns'] > back['created_ns']]
    first_read = (min(reads) - t_new) / 1e9 if reads else float('nan')
    ok_delay = (states[-1][1] - t_new) / 1e9
    frame_delay = (frame['recv_ns'] - t_new) / 1e9
    kinds = [s['kind'] for s in d.status()['sensors']]
    with capsys.disabled():
        print(f"\n  hub removed in {(back['gone_ns'] - back['destroyed_ns']) / 1e9:.2f} s, unplugged "
              f"{(back['created_ns'] - back['gone_ns']) / 1e9:.2f} s; the kernel made both devices "
              f"{(t_new - back['created_ns']) / 1e9:.2f} s after the create; states heard: {[s for s, _ in states]}; "
              f"after both devices existed: the daemon's first GET_REPORT {first_read:+.2f} s, state ok {ok_delay:+.2f} s, "
              f"first offset frame {frame_delay:+.2f} s (its sample {(frame['recv_ns'] - frame['msg']['t']) / 1e9:.2f} s old); "
              f"sensors now {kinds}")
    assert kinds == ['accel', 'gyro'], f'after the re-creation parallaxd uses {kinds}'
    # The daemon opens on the kernel's add events (no retry back-off): ArrivalWatch.settle after
    # the last device appeared, then the buffers' first scans.
    assert 'motion devices appeared: opening the sensors now' in d.log_tail(200), d.log_tail()
    assert frame_delay <= 1.0, f'parallaxd followed the re-created hub after {frame_delay:.2f} s'


# A hub whose firmware starts at a change sensitivity above 0 (raw units: gyro 0.01 °/s, accel
# 0.001 g; guest/sensorhub.py): 0.5 °/s and 0.02 g.
DEFAULT_SENSITIVITY = {'gyro': 50, 'accel': 20}
# A steady turn about device +Y (gravity unchanged while upright, so only the gyroscope sees it).
STEADY_RATE, STEADY_SECONDS = 20.0, 1.5


def upright(hub):
    """Stands the hub upright (gravity along device Y) before the daemon opens it: its resting
    pose then, and a turn about +Y changes no accelerometer reading."""
    hub.ctl('attitude', x=90, y=0, seconds=0.5, wait=1)


def steady_turn(d, hub):
    """Turns the hub about +Y at STEADY_RATE °/s for STEADY_SECONDS; returns the subscriber's
    frames, the gyroscope's input reports during the turn and the turn's angle (°, from the
    hub's own times)."""
    d.subscribe(seconds=20, frames=1)
    before = hub.sensor('gyro')['input_sent']
    sub = d.subscribe_async(seconds=STEADY_SECONDS + 4)
    start = hub.ctl('rate', y=STEADY_RATE)['t_ns']
    time.sleep(STEADY_SECONDS)     # the length of the turn, not a synchronisation
    end = hub.ctl('rate', y=0)['t_ns']
    reports = hub.sensor('gyro')['input_sent'] - before
    return offsets(sub.result()), reports, STEADY_RATE * (end - start) / 1e9


def test_a_hub_with_a_default_sensitivity_reports_a_steady_turn(lab, make_hub, daemons, capsys):
    # The daemon writes 0 at open whatever the hub started with, so the gyroscope reports every
    # interval through a turn whose rate never changes; the turn shows whole.
    hub = make_hub(sensitivity=DEFAULT_SENSITIVITY)
    upright(hub)
    d = daemons.start(KEEP + ['Sensor.RestAfter=60'])
    frames, reports, angle = steady_turn(d, hub)
    assert hub.sensor('gyro')['sensitivity_raw'] == 0 and hub.sensor('accel')['sensitivity_raw'] == 0, hub.status()
    expected, peak = angle / 90, max(abs(f['x']) for f in frames)
    with capsys.disabled():
        print(f'\n  default sensitivity {DEFAULT_SENSITIVITY}: {reports} gyroscope reports in a {angle:.1f}° turn, '
              f'|x| peak {peak:.3f} (expected {expected:.3f})')
    assert reports >= 0.5 * STEADY_SECONDS * 100, reports
    assert abs(peak - expected) < 0.25 * expected, (peak, expected)
    assert not any(s.get('limits') for s in d.status()['sensors']), d.status()


def test_a_hub_that_keeps_a_sensitivity_is_silent_through_a_steady_turn_and_it_still_shows(lab, make_hub, daemons, capsys):
    # Firmware that clamps the 0 up to its least sensitivity: the gyroscope reports the change
    # into the turn and out of it, nothing between. Its silence is the rate held (HID), so the
    # turn still shows whole; as a gap it would be lost.
    hub = make_hub(sensitivity=DEFAULT_SENSITIVITY, min_sensitivity=DEFAULT_SENSITIVITY)
    upright(hub)
    d = daemons.start(KEEP + ['Sensor.RestAfter=60'])
    frames, reports, angle = steady_turn(d, hub)
    assert hub.sensor('gyro')['sensitivity_raw'] == DEFAULT_SENSITIVITY['gyro'], hub.status()
    expected, peak = angle / 90, max(abs(f['x']) for f in frames)
    with capsys.disabled():
        print(f'\n  least sensitivity {DEFAULT_SENSITIVITY}: {reports} gyroscope reports in a {angle:.1f}° turn, '
              f'|x| peak {peak:.3f} (expected {expected:.3f})')
    assert reports <= 5, f'the hub reported a steady turn {reports} times at its least sensitivity'
    assert abs(peak - expected) < 0.25 * expected, (peak, expected)
