"""Offset velocity and fresh frames on the wire (docs/protocol.md, "Offset frames"): `vx`, `vy` say
where x and y are going, so a client can draw the offset predicted for the moment its frame is
shown; and every frame carries the newest sample the daemon has when it sends, whatever the
minimum change. Real daemon, real sockets; motion comes from recordings replayed as the sensor."""
import os
import statistics

import plx
from helpers import rocking_trace

# A frame pair this close (s) is a fair test of a prediction: one or two 60 Hz frame periods.
PREDICTION_SPAN = 0.05
# Offset change (offset units) that counts as x clearly moving between two frames.
CLEAR_MOVE = 0.01


def config(workdir, text):
    path = os.path.join(workdir, 'velocity.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path


def pairs(frames, axis):
    """Consecutive frames (arrival, object) less than PREDICTION_SPAN apart in sample time in
    which `axis` clearly moved."""
    out = []
    for (_, a), (_, b) in zip(frames, frames[1:]):
        dt = (b['t'] - a['t']) / 1e9
        if 0 < dt < PREDICTION_SPAN and abs(b[axis] - a[axis]) > CLEAR_MOVE:
            out.append((a, b, dt))
    return out


def test_vx_points_where_x_moves_and_predicts_the_next_frame(workdir, start_daemon):
    # Rocking about +Y: x swings ±0.33 every 2 s. With the shipped minimum change, frames come
    # while x moves; each one's vx must point the way x goes next, and x + vx·Δt must land
    # nearer the next frame's x than the frame's own x does.
    source = rocking_trace(os.path.join(workdir, 'rock-y.csv'), axis='y', amplitude_deg=30.0)
    daemon = start_daemon(source=source)
    c = daemon.connect()
    c.subscribe(rate=60)
    c.pump(3.0)
    moving = pairs(c.frames, 'x')
    assert len(moving) > 40, 'only %d frame pairs with x moving in 3 s' % len(moving)
    agree = sum(1 for a, b, _ in moving if (a['vx'] > 0) == (b['x'] > a['x']))
    assert agree >= 0.95 * len(moving), 'vx agreed with the direction of x in %d of %d pairs' % (agree, len(moving))
    held = [abs(b['x'] - a['x']) for a, b, _ in moving]
    predicted = [abs(b['x'] - max(-1.0, min(1.0, a['x'] + a['vx'] * dt))) for a, b, dt in moving]
    assert statistics.median(predicted) < 0.3 * statistics.median(held), \
        'prediction error %.4f against %.4f without it' % (statistics.median(predicted), statistics.median(held))
    # A turn about +Y moves only x: y and vy stay at rest.
    assert all(abs(o['vy']) < 0.05 for _, o in c.frames), 'vy moved in a turn about +Y'


def test_vy_points_where_y_moves(workdir, start_daemon):
    source = rocking_trace(os.path.join(workdir, 'rock-x.csv'), axis='x', amplitude_deg=30.0)
    daemon = start_daemon(source=source)
    c = daemon.connect()
    c.subscribe(rate=60)
    c.pump(3.0)
    moving = pairs(c.frames, 'y')
    assert len(moving) > 40, 'only %d frame pairs with y moving in 3 s' % len(moving)
    agree = sum(1 for a, b, _ in moving if (a['vy'] > 0) == (b['y'] > a['y']))
    assert agree >= 0.95 * len(moving), 'vy agreed with the direction of y in %d of %d pairs' % (agree, len(moving))


def test_velocity_turns_with_the_output(workdir, start_daemon):
    # Two outputs, one rotated 90° clockwise: for the same sample (same t) its velocity is the
    # panel's turned like the offset, (vx, vy) → (vy, −vx).
    source = rocking_trace(os.path.join(workdir, 'rock-y.csv'), axis='y', amplitude_deg=30.0)
    daemon = start_daemon(source=source, config=config(workdir, '[Motion]\nMinimumChange=0\n'))
    panel, turned = daemon.connect(), daemon.connect()
    panel.subscribe(rate=30, rotation=0)
    turned.subscribe(rate=30, rotation=90)
    panel.pump(1.5)
    turned.pump(0.3)
    by_t = {o['t']: o for _, o in panel.frames}
    same = [(by_t[o['t']], o) for _, o in turned.frames if o['t'] in by_t]
    assert len(same) > 10, 'only %d frames of the same sample' % len(same)
    assert any(abs(p['vx']) > 0.1 for p, _ in same), 'the panel never moved'
    for p, r in same:
        assert abs(r['vx'] - p['vy']) <= 1e-4 and abs(r['vy'] + p['vx']) <= 1e-4, (p, r)


def test_a_still_device_and_reduce_motion_have_no_velocity(workdir, start_daemon):
    path = os.path.join(workdir, 'still.csv')
    rows = [plx.Row(int(i * 5e6), (0.0, -9.80665, 0.0), (0.0005 * (-1) ** i, 0.0, 0.0)) for i in range(2000)]
    plx.write_trace(path, rows, ['upright and still, 200 Hz, ±0.5 mrad/s of gyroscope noise'])
    daemon = start_daemon(source='replay:' + path)
    c = daemon.connect()
    c.subscribe(rate=60)
    first = c.wait_offset(lambda x, y: True, 5)
    assert first is not None, 'no frame for a still device'
    c.pump(0.5)
    assert all(o['vx'] == 0 and o['vy'] == 0 for _, o in c.frames), c.frames[-3:]
    c.request({'cmd': 'set', 'reduce_motion': True}, 'ok')
    centred = c.wait_for(lambda o: o.get('type') == 'offset' and o['x'] == 0 and o['y'] == 0, 5)
    assert centred is not None and centred['vx'] == 0 and centred['vy'] == 0, centred


def frame_ages(daemon, rate, seconds):
    """How old each frame's newest sample is when it arrives (s; replayed samples carry the
    daemon's CLOCK_MONOTONIC, the same clock as Python's time.monotonic)."""
    c = daemon.connect()
    c.subscribe(rate=rate)
    c.pump(seconds)
    return [arrival - o['t'] / 1e9 for arrival, o in c.frames[1:]]


def test_frames_carry_the_newest_sample_under_the_shipped_minimum_change(workdir, start_daemon):
    # A slow rock (x crosses the 0.015 minimum change every 60-200 ms) and a 10 Hz subscriber:
    # when a frame is due the daemon has newer samples than the one that crossed the threshold,
    # and it must send the newest. The floor is the same daemon with MinimumChange=0 (every
    # sample a frame), measured in the same run: frames may be no older than there, within a
    # few sample periods. Sending the crossing sample instead made them ~50 ms older.
    source = rocking_trace(os.path.join(workdir, 'slow.csv'), axis='y', amplitude_deg=30.0, period_s=8.0, seconds=20.0)
    shipped = start_daemon(source=source)
    ages = frame_ages(shipped, 10, 4.0)
    floor_daemon = start_daemon(source=source, config=config(workdir, '[Motion]\nMinimumChange=0\n'),
                                socket_path=os.path.join(workdir, 'floor.sock'))
    floor = frame_ages(floor_daemon, 10, 4.0)
    assert len(ages) >= 20 and len(floor) >= 20, (len(ages), len(floor))
    excess = statistics.median(ages) - statistics.median(floor)
    assert excess < 0.015, 'frames were %.1f ms older than with MinimumChange=0 (median %.1f against %.1f ms)' % (
        excess * 1e3, statistics.median(ages) * 1e3, statistics.median(floor) * 1e3)
