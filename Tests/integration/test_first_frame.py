"""A new subscriber's first frame is the current offset, at once (docs/protocol.md "subscribe"),
also while the sensors rest (docs/power.md "A new subscriber at rest"): within FIRST_FRAME_WITHIN
of the subscribe, from a sample at most CURRENT_WITHIN old when it arrives. At rest the newest
sample the daemon holds is up to a rest period old (polled at RestRate=), or as old as the rest
itself (a HID hub at rest reports nothing while the device lies still)."""
import os
import time

import plx
from helpers import describe, wait_resting
from test_split_devices import NOISE_LSB, start_split

# The numbers (the lab asserts them on the real kernel, Tests/lab/test_installed.py).
FIRST_FRAME_WITHIN = 0.100
CURRENT_WITHIN = 0.050


def first_frame(daemon):
    """A new connection subscribes; (seconds from the subscribe to its first offset frame, the
    frame's age when it arrived: arrival − t, both CLOCK_MONOTONIC)."""
    c = daemon.connect()
    try:
        sent = time.monotonic()
        c.subscribe(rate=60)
        assert c.wait_offset(lambda x, y: True, 5.0) is not None, 'no frame for a new subscriber; ' + describe(c)
        arrival, frame = c.frames[0]
        return arrival - sent, arrival - frame['t'] / 1e9
    finally:
        c.close()


def assert_current_first_frames(daemon, holder, count):
    for i in range(count):
        status = wait_resting(holder)
        assert status.get('resting') is True, 'the sensors never came to rest: %s' % status
        # Each subscriber at another phase of the rest's reads (a window, not a wait for an event).
        time.sleep(0.045 * i)
        wait, age = first_frame(daemon)
        print('subscriber %d at rest: first frame %.1f ms after the subscribe, its sample %.1f ms old'
              % (i + 1, wait * 1000, age * 1000))
        assert age <= CURRENT_WITHIN, 'the first frame at rest carried a sample %.0f ms old' % (age * 1000)
        assert wait <= FIRST_FRAME_WITHIN, 'the first frame at rest came %.0f ms after the subscribe' % (wait * 1000)


def test_a_subscriber_arriving_while_a_polled_device_rests_gets_a_current_frame(start_daemon, workdir):
    # Read 5 times a second at rest: the newest sample is up to 200 ms old when a client comes.
    conf = os.path.join(workdir, 'rest.conf')
    with open(conf, 'w') as f:
        f.write('[Sensor]\nRestAfter=0.5\nRestRate=5\n')
    daemon = start_daemon(plx.bmi160(0), config=conf)
    holder = daemon.connect()
    holder.subscribe(rate=60)
    assert_current_first_frames(daemon, holder, 6)
    assert 'rest withdrawn' in daemon.stderr_text()


def test_a_subscriber_arriving_while_the_hub_rests_gets_a_current_frame(start_daemon, testbed, feeders, workdir):
    conf = os.path.join(workdir, 'rest.conf')
    with open(conf, 'w') as f:
        f.write('[Sensor]\nRestAfter=0.5\n')
    daemon, _, _, started, _ = start_split(start_daemon, testbed, feeders, noise_lsb=NOISE_LSB,
                                           accel_kw={'initial_accel': plx.FACE_UP}, daemon_kw={'config': conf})
    holder = daemon.connect()
    holder.subscribe(rate=60)
    assert wait_resting(holder).get('resting') is True
    # The hub says nothing while the device lies still: the newest sample ages with the rest.
    scans = sum(f.scans for f in started)
    time.sleep(0.5)   # the situation under test: a rest under way for a while
    assert sum(f.scans for f in started) == scans, 'the emulated hub sent scans at rest'
    assert_current_first_frames(daemon, holder, 3)
