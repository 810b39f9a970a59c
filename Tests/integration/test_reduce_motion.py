"""Reduce motion on the wire (docs/protocol.md "set" and "Ordering guarantees" 5): turning it on
sends every subscriber, whatever its rate and however far from its next due time, the (0, 0)
frame and then the state line that says so, and nothing after them until it is turned off."""
import os

from helpers import describe, rocking_trace

# Rates of the subscribers: one far below the input rate (its next frame is up to a second away
# when reduce motion comes), one in between, and compositor rates.
RATES = (1, 7, 30, 60)
TRIALS = 8
# Time a reply or a state line may take (s), and a frame at 1 Hz after the sensors reopen.
REPLY_TIMEOUT = 5.0
FRAME_TIMEOUT = 8.0


def write_config(workdir, text):
    path = os.path.join(workdir, 'p.conf')
    with open(path, 'w') as f:
        f.write(text)
    return path


def is_state(o, reduce_motion):
    return o.get('type') == 'state' and o.get('reduce_motion') is reduce_motion


def is_zero_frame(o):
    return o.get('type') == 'offset' and o['x'] == 0 and o['y'] == 0 and o.get('vx', 0) == 0 and o.get('vy', 0) == 0


def test_the_zero_frame_comes_before_the_state_line_for_every_subscriber(workdir, start_daemon):
    # Everyone may control: the test means the order, not who may ask.
    daemon = start_daemon(source=rocking_trace(os.path.join(workdir, 'rocking.csv')), log_level='info',
                          config=write_config(workdir, '[Access]\nSubscribers=everyone\nControllers=everyone\n'))
    subscribers = []
    for rate in RATES:
        c = daemon.connect()
        reply = c.subscribe(rate=rate)
        assert reply is not None and reply.get('type') == 'subscribed', reply
        subscribers.append(c)
    control = daemon.connect()
    for trial in range(TRIALS):
        # Frames flow to everyone (the device keeps rocking) before reduce motion comes.
        for c in subscribers:
            assert c.wait_for(lambda o: o.get('type') == 'offset', FRAME_TIMEOUT) is not None, \
                'trial %d: no frame; %s' % (trial, describe(c))
        marks = [c.mark() for c in subscribers]
        reply = control.request({'cmd': 'set', 'reduce_motion': True}, 'ok', REPLY_TIMEOUT)
        assert reply is not None and reply['type'] == 'ok', reply
        for c, mark in zip(subscribers, marks):
            assert c.wait_for(lambda o: is_state(o, True), REPLY_TIMEOUT, since=mark) is not None, describe(c)
        # Off again: whatever came between the two state lines came while reduce motion was on.
        reply = control.request({'cmd': 'set', 'reduce_motion': False}, 'ok', REPLY_TIMEOUT)
        assert reply is not None and reply['type'] == 'ok', reply
        for c, mark, rate in zip(subscribers, marks, RATES):
            assert c.wait_for(lambda o: is_state(o, False), REPLY_TIMEOUT, since=mark) is not None, describe(c)
            lines = c.objects[mark:]
            on = next(i for i, o in enumerate(lines) if is_state(o, True))
            off = next(i for i, o in enumerate(lines) if is_state(o, False))
            before = [o for o in lines[:on] if o.get('type') == 'offset']
            assert before and is_zero_frame(before[-1]), \
                'trial %d, %d Hz: the state line with reduce_motion true came before the (0, 0) frame: %r' % (
                    trial, rate, lines[:on + 1])
            during = [o for o in lines[on:off] if o.get('type') == 'offset']
            assert not during, 'trial %d, %d Hz: frames after reduce motion went on: %r' % (trial, rate, during)
