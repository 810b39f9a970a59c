"""A subscriber gets the rate it subscribed at, or the source's when that is slower (issue 31,
docs/protocol.md "subscribe"): min(subscribed, source) within ±3 %, never more.

The device moves all the time and MinimumChange=0, so every sample makes a frame and only the
pacing (Sources/ParallaxDaemon/FramePacing.swift) decides which go out. Counts, not timings: the
frames are counted by their `t` (the newest sample's time) over a window of sample time, and the
source's samples over the same window (the trace's rate for a replay, the feeder's written
timestamps for a buffered device, which under load may fall short of its nominal rate). The
first frames after subscribing are outside the window. Before issue 31 a 60 Hz subscriber of a
100 Hz device got about 40 frames a second."""
import os
import time

import pytest

import plx
from helpers import rocking_trace, wait_log

# Sample time counted (s), and how long after subscribing the window starts (s).
WINDOW = 5.0
SETTLE = 1.0
TOLERANCE = 0.03
# A frame arriving this many source periods after its sample shows that the machine was starved
# of CPU then: the loop takes a batch within about one period of its sample on an idle machine,
# and a batch taken later holds two samples that were both due, of which only the newest is sent.
STARVED_PERIODS = 1.5
# Windows measured at most, while every short one was starved (two CPU burners beside the suite).
ATTEMPTS = 4
# What a window starved throughout must still deliver: before issue 31 a 60 Hz subscriber of a
# 100 Hz device got two thirds.
STARVED_FLOOR = 0.85
BUFFERED_LOG = 'capture: buffered'


def config(workdir):
    path = os.path.join(workdir, 'rate.conf')
    with open(path, 'w') as f:
        # Every sample a frame: only the pacing decides. Subscribers above 60 Hz are this test's
        # point, and an unprivileged one is capped at MaxRate= (60 Hz by default): raised, so that
        # the test measures the pacing whoever runs it.
        f.write('[Motion]\nMinimumChange=0\n[Access]\nMaxRate=240\n')
    return path


def frames_in_window(daemon, rate, source_times=None, source_rate=None, starved_after=None):
    """Subscribes at `rate`, pumps until the window is past, and returns (frames, possible):
    the frames whose `t` lies in the window, and min(rate × window, the source's samples in it)."""
    client = daemon.connect()
    granted = client.subscribe(rate=rate)
    assert granted.get('rate') == rate, 'subscribed at %d Hz, granted %s' % (rate, granted)
    first = client.wait_offset(lambda x, y: True, 10)
    assert first is not None, 'no frame for a subscriber at %d Hz' % rate
    start = int(first['t'] + SETTLE * 1e9)
    end = int(start + WINDOW * 1e9)
    # Pumped until a frame past the window's end came in (or a generous deadline).
    deadline = time.monotonic() + SETTLE + WINDOW + 10
    while time.monotonic() < deadline and not any(o['t'] >= end for _, o in client.frames):
        client.pump(0.25)
    ts = [o['t'] for _, o in client.frames]
    assert ts and ts[-1] >= end, 'frames stopped coming (last t %s, window end %d)' % (ts[-1:], end)
    frames = sum(1 for t in ts if start <= t < end)
    # Frames that reached this client more than STARVED after their sample: somewhere on the way
    # (feeder, umockdev, daemon, this process) the machine had no CPU for that long.
    starved = sum(1 for arrival, o in client.frames
                  if starved_after and start <= o['t'] < end and arrival - o['t'] / 1e9 > starved_after)
    client.close()
    if source_times is not None:
        # A feeder starved of the CPU writes late scans back to back: their times bunch up and
        # leave grid points without a sample, which no pacing can serve. So the frames possible
        # are those the grid rule itself gives for the times really written.
        return frames, grid_frames(sorted(t for t in source_times() if start <= t < end), rate), starved
    return frames, min(rate * WINDOW, source_rate * WINDOW), starved


def grid_frames(times, rate):
    """Frames the due grid (docs/protocol.md "subscribe"; FramePacing) sends for samples at
    `times` seen one by one: one per grid point of 1/rate s, for the first sample at or after it,
    with at most one point owed after a gap."""
    interval = 1_000_000_000 // rate
    served, sent = None, 0
    for t in times:
        k = t // interval
        if served is None or k > served:
            sent += 1
            served = k if served is None else max(served + 1, k - 1)
    return sent


def within(frames, possible):
    # ±3 %, and one frame more or less for the window's edges.
    return abs(frames - possible) <= TOLERANCE * possible + 1


def check(frames, possible, rate, source):
    slack = TOLERANCE * possible + 1
    assert abs(frames - possible) <= slack, (
        'subscribed %d Hz of a %s source: %d frames in %g s of samples, %.0f possible (%.1f/s of %.1f/s)'
        % (rate, source, frames, WINDOW, possible, frames / WINDOW, possible / WINDOW))
    assert frames <= rate * WINDOW + 1, 'more frames than asked for: %d in %g s at %d Hz' % (frames, WINDOW, rate)


@pytest.mark.parametrize('rate', [30, 60])
def test_a_50_hz_replay(workdir, start_daemon, rate):
    source = rocking_trace(os.path.join(workdir, 'rocking50.csv'), seconds=30.0, rate_hz=50.0)
    daemon = start_daemon(source=source, config=config(workdir))
    frames, possible, _ = frames_in_window(daemon, rate, source_rate=50.0)
    check(frames, possible, rate, 'replayed 50 Hz')


def start_buffered_moving(start_daemon, testbed, feeders, workdir, scan_rate):
    """A buffered bmi160 whose feeder writes scans at `scan_rate`, rocking (a looping trace
    moves its values) with a little noise on every scan, so every scan is a new sample."""
    dev = plx.buffered_bmi160(0)
    testbed.add(dev)
    feeder = plx.ScanFeeder(testbed, dev, rate_hz=scan_rate, noise_lsb=2).start()
    feeders.append(feeder)
    rows = plx.read_trace(rocking_trace(os.path.join(workdir, 'rock.csv'), seconds=4.0, rate_hz=50.0)[len('replay:'):])[1]
    player = plx.TracePlayer(testbed, dev, dev, rows, loop=True).start()
    daemon = start_daemon(config=config(workdir))
    assert wait_log(daemon, BUFFERED_LOG), daemon.stderr_tail()
    return daemon, feeder, player


@pytest.mark.parametrize('scan_rate,rate', [(100.0, 60), (100.0, 100), (100.0, 144), (200.0, 100), (200.0, 144)])
def test_a_buffered_device(workdir, start_daemon, testbed, feeders, scan_rate, rate):
    daemon, feeder, player = start_buffered_moving(start_daemon, testbed, feeders, workdir, scan_rate)
    try:
        # A window short of frames counts only when nothing was starved in it: a loaded machine
        # delays the emulated device's scans in bursts, which no pacing can serve. (Before issue 31
        # the count was a third short with nothing starved.)
        for attempt in range(ATTEMPTS):
            late = STARVED_PERIODS / scan_rate
            frames, possible, starved = frames_in_window(daemon, rate, source_times=lambda: list(feeder.written),
                                                         starved_after=late)
            if within(frames, possible) or not starved:
                break
            print('window %d: %d frames of %d possible, %d frames over %.0f ms late: measuring again'
                  % (attempt + 1, frames, possible, starved, late * 1e3))
    finally:
        player.stop()
    if not within(frames, possible) and starved:
        print('every window starved: %d frames of %d possible, %d frames late' % (frames, possible, starved))
        assert frames >= STARVED_FLOOR * possible, (
            'subscribed %d Hz of a buffered %g Hz source on a starved machine: %d frames of %d possible'
            % (rate, scan_rate, frames, possible))
        return
    check(frames, possible, rate, 'buffered %g Hz' % scan_rate)
