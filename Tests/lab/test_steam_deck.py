"""A Steam Deck on the backports kernel (6.12, docs/lab.md): guest/steamdeck.py is the controller
over /dev/uhid, the real hid-steam makes "Steam Deck Motion Sensors" (evdev,
INPUT_PROP_ACCELEROMETER) of its IMU values, and parallaxd finds and reads it with `--source auto`
(docs/sensors.md "evdev motion devices"): its axes in the screen frame (tilt and turn signs as for
IIO devices), rest and wake, hid-steam's lizard mode (motion muted until Options is held), and the
motion device taken away while another program holds the controller's hidraw node and made again,
followed without a restart."""
import time

import pytest

from labkit import offsets
from test_parallaxd import KEEP, moves


@pytest.fixture(scope='module')
def lab(lab_backports):
    return lab_backports


MOTION_NAME = 'Steam Deck Motion Sensors'
RESULTS = {}


def await_status(d, predicate, seconds):
    deadline = time.monotonic() + seconds
    while True:
        st = d.status()
        if predicate(st) or time.monotonic() > deadline:
            return st
        time.sleep(0.25)


def await_log(d, text, seconds):
    deadline = time.monotonic() + seconds
    while True:
        tail = d.log_tail(300)
        if text in tail or time.monotonic() > deadline:
            return tail
        time.sleep(0.25)


def assert_reads_the_deck(st, node):
    """status: both sensors from the motion device's node, captured as evdev, the Deck's known axes."""
    sensors = {s['kind']: s for s in st['sensors']}
    assert set(sensors) == {'accel', 'gyro'}, st
    for s in sensors.values():
        assert s['capture'] == 'evdev' and s['device'] == MOTION_NAME and s['location'] == f'/dev/input/{node}', s
    # hid-steam's axes → screen axes (docs/frames.md "evdev motion devices"): a rotation, the kernel rule.
    assert st['frame']['source'] == 'device', st['frame']
    assert st['frame']['given'] == '1, 0, 0; 0, 0, -1; 0, 1, 0', st['frame']
    assert st['frame']['gyro'] == '1, 0, 0; 0, 0, -1; 0, 1, 0', st['frame']
    return sensors


def tilt_and_turn(d, deck):
    """Tilt (top edge away: y < 0) and turn (right edge away: x > 0) with their signs; the peaks."""
    frames, t0 = moves(d, deck, 'y < -0.15', x=-20, seconds=1)
    assert frames[-1]['y'] < -0.15, frames[-5:]
    moving = [f for f in frames if abs(f['y']) > 0.02]
    assert moving and all(f['y'] < 0 for f in moving), moving[:5]
    assert all(abs(f['x']) < 0.05 for f in frames), frames[-5:]
    onset = (moving[0]['t'] - t0) / 1e9
    back, _ = moves(d, deck, 'abs(y) < 0.03', x=0, seconds=1)
    assert abs(back[-1]['y']) < 0.03, back[-3:]
    turned, t_turn = moves(d, deck, 'x > 0.15', y=20, seconds=1)
    early = [f for f in turned if t_turn < f['t'] < t_turn + 400_000_000 and abs(f['x']) > 0.01]
    assert early and all(f['x'] > 0 for f in early), turned[:8]
    assert all(abs(f['y']) < 0.05 for f in turned), turned[-5:]
    moves(d, deck, 'abs(x) < 0.03', y=0, seconds=1)
    return dict(tilt_peak_y=round(min(f['y'] for f in frames), 3), turn_peak_x=round(max(f['x'] for f in turned), 3),
                onset_s=round(onset, 2))


def test_deck_without_lizard_mode_signs_rest_and_hidraw(lab, make_deck, daemons):
    deck = make_deck(lizard_mode=0)
    node = deck.info['node']
    assert node, deck.info
    # What the kernel made of it: the motion device's axes as hid-steam sets them.
    abs_info = lab.check(f'cat /sys/class/input/{node}/device/capabilities/abs /sys/class/input/{node}/device/properties').split()
    assert abs_info == ['3f', '40'], abs_info
    d = daemons.start(KEEP + ['Sensor.RestAfter=2'], source='auto')
    st = await_status(d, lambda s: s.get('sensors'), 20)
    assert_reads_the_deck(st, node)
    assert 'times from MSC_TIMESTAMP' in d.log_tail(200), d.log_tail()
    result = tilt_and_turn(d, deck)

    # Rest: still for RestAfter=2 s, the daemon says it rests; a tilt wakes it with the right sign.
    rested = await_status(d, lambda s: s.get('resting'), 20)
    assert rested.get('resting') is True, rested
    woke, t_wake = moves(d, deck, 'y < -0.1', x=-15, seconds=0.5)
    assert woke[-1]['y'] < -0.1 and all(f['y'] < 0.02 for f in woke), woke[-5:]
    result['wake_onset_s'] = round((next(f for f in woke if f['y'] < -0.02)['t'] - t_wake) / 1e9, 2)
    moves(d, deck, 'abs(y) < 0.03', x=0, seconds=0.5)

    # Another program (Steam) opens the controller's hidraw node: hid-steam removes the motion
    # device; the daemon loses its sensors and says so, without exiting.
    held = deck.ctl('hidraw', hold=1)
    assert held['ok'], held
    lost = await_status(d, lambda s: s['sensor'] != 'ok', 20)
    assert lost['sensor'] in ('lost', 'none'), lost
    # Let go: the device is made again (a new input device; its event number is the lowest free
    # one, here often the same), and the same daemon follows it (the kernel's uevent in this guest,
    # udev's on a booted system; not a retry: docs/sensors.md "evdev motion devices"). A
    # subscriber keeps the sensors wanted meanwhile (without one a lost device is not reopened).
    sub = d.subscribe_async(seconds=40, until="type == 'offset' and states and states[-1] == 'ok'")
    waiting = await_status(d, lambda s: s.get('subscribers', 0) >= 1, 20)
    assert waiting['sensor'] in ('lost', 'none'), waiting
    back = deck.ctl('hidraw', hold=0)
    assert back['ok'], back
    result_lines = sub.result()['lines']
    states = [l['msg']['sensor'] for l in result_lines if l['msg'].get('type') == 'state']
    assert states[-1:] == ['ok'], (states, d.log_tail())
    again = await_status(d, lambda s: s['sensor'] == 'ok' and s.get('sensors'), 10)
    assert_reads_the_deck(again, back['node'])
    assert f"motion devices appeared: /dev/input/{back['node']}" in d.log_tail(300), d.log_tail()
    follow = moves(d, deck, 'y < -0.15', x=-20, seconds=1)[0]
    assert follow[-1]['y'] < -0.15 and all(f['y'] < 0.02 for f in follow), follow[-5:]
    result.update(node=node, node_after_hidraw=back['node'], input_rate=st.get('input_rate'))
    RESULTS['lizard_mode=0'] = result
    print(f'\nSteam Deck, lizard_mode=0: {result}')


# Wake-ups a second the daemon may make (all threads) for 4 × 60 Hz subscribers of the Deck:
# under half its reports (≈ 250 a second). One wake-up per report is what a forecast counted
# from the reports' arrivals cost (ReportForecast.swift), and a capture thread's own.
PER_REPORT_SHARE = 0.5
WAKEUP_WINDOW = 4.0


def sleeps(lab, pid):
    """Voluntary context switches of every thread of process `pid` in the guest: each is a
    sleep, and so a wake-up after it (the involuntary ones are the guest's scheduler preempting
    it for the Deck's emulation and the subscribers)."""
    out = lab.run(f"cat /proc/{pid}/task/*/status | grep '^voluntary_ctxt_switches'").stdout
    return sum(int(line.split()[1]) for line in out.splitlines())


def test_deck_wakes_the_daemon_per_frame_not_per_report(lab, make_deck, daemons, capsys):
    """Four subscribers at 60 Hz: the loop takes what the node queued at the forecast arrival of
    each frame's sample, so the daemon wakes about once a frame, not once per report."""
    deck = make_deck(lizard_mode=0)
    # MinimumChange=0: a due frame goes out though the Deck lies still; RestAfter=0: no rest.
    d = daemons.start(KEEP + ['Motion.MinimumChange=0', 'Sensor.RestAfter=0'], source='auto')
    assert_reads_the_deck(await_status(d, lambda s: s.get('sensors'), 20), deck.info['node'])
    subs = [d.subscribe_async(seconds=30, frames=int(60 * (WAKEUP_WINDOW + 6)), rate=60) for _ in range(4)]
    st = await_status(d, lambda s: s.get('subscribers', 0) >= 4 and s.get('rates', {}).get('frames', 0) > 0, 20)
    assert st.get('subscribers') == 4, st
    # The floor, in the same window: a process that only sleeps to a 60 Hz clock.
    floor = lab.run_background('exec python3 -c "import time; [time.sleep(1 / 60) for _ in iter(int, 1)]"', '/tmp/floor.log')
    before, floor_before, t0 = sleeps(lab, d.pid), sleeps(lab, floor), time.monotonic()
    time.sleep(WAKEUP_WINDOW)    # the window measured, not a wait for an event
    woke = (sleeps(lab, d.pid) - before) / (time.monotonic() - t0)
    floor_woke = (sleeps(lab, floor) - floor_before) / (time.monotonic() - t0)
    lab.run(['kill', str(floor)])
    threads = lab.run(f'cat /proc/{d.pid}/task/*/comm').stdout.split()
    rates = d.status()['rates']
    for sub in subs:
        sub.result()
    assert rates['input'] > 100, rates
    assert woke < PER_REPORT_SHARE * rates['input'], (woke, rates, threads, d.log_tail())
    # Read on the event loop: no capture thread (docs/architecture.md "Threads").
    assert threads == ['parallaxd'], threads
    with capsys.disabled():
        print(f"\n  Steam Deck, 4 × 60 Hz subscribers: daemon wake-ups {woke:.0f}/s at {rates['input']:.0f} reports/s"
              f" ({rates['frames']:.0f} frames/s); floor, a 60 Hz sleeper: {floor_woke:.0f}/s")


def test_deck_in_lizard_mode_moves_once_options_is_held(lab, make_deck, daemons):
    deck = make_deck(lizard_mode=1)
    node = deck.info['node']
    d = daemons.start(KEEP, source='auto')
    st = await_status(d, lambda s: s.get('sensors'), 20)
    assert_reads_the_deck(st, node)
    # Muted: the device is open and silent, and the log says why.
    tail = await_log(d, 'lizard mode', 10)
    assert 'sent no motion' in tail and 'lizard mode' in tail, tail
    sub = d.subscribe(seconds=1.5, rate=30)
    assert not offsets(sub), sub['lines'][:3]
    # Options held for 0.6 s (≥ 0.45 s): hid-steam leaves lizard mode and motion flows.
    released = deck.ctl('options', seconds=0.6)
    assert released['ok'], released
    result = tilt_and_turn(d, deck)
    RESULTS['lizard_mode=1'] = result
    print(f'\nSteam Deck, lizard_mode=1 after Options: {result}')
