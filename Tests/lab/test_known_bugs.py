"""Two delays seen with the current daemon on the real kernel (docs/lab.md "Findings"), measured
here and printed; the expectations are the protocol's (docs/protocol.md: a new subscriber gets
the current offset at once; an offset frame's t is the time of the newest sample behind it)."""
import time

import pytest

from labkit import offsets


def _report(capsys, text):
    with capsys.disabled():
        print('\n  ' + text)


@pytest.mark.xfail(reason='the first frame a new subscriber gets after a fresh start is the offset of '
                          'the start-up look, with that look\'s sample time: stale by the time since '
                          'the sensors closed (docs/lab.md "Findings")', strict=False)
def test_first_frame_after_a_fresh_start_is_current(lab, hub, daemons, capsys):
    d = daemons.start(['Motion.Recenter=no'])
    time.sleep(3)    # the situation under test: a client arriving a few seconds after the start
    sub = d.subscribe(seconds=15, frames=2)
    frames = offsets(sub)
    assert frames, sub
    wait = (frames[0]['recv_ns'] - sub['subscribe_ns']) / 1e9
    age = (frames[0]['recv_ns'] - frames[0]['t']) / 1e9
    fresh = next((f for f in frames if f['recv_ns'] - f['t'] < 0.5e9), None)
    fresh_wait = (fresh['recv_ns'] - sub['subscribe_ns']) / 1e9 if fresh else None
    _report(capsys, f'fresh start, device still: first frame {wait:.2f} s after subscribing, its sample '
                    f'{age:.2f} s old; first frame with a sample under 0.5 s old after '
                    f'{fresh_wait if fresh_wait is None else round(fresh_wait, 2)} s')
    assert wait < 0.5, f'no frame for {wait:.2f} s'
    assert age < 0.5, f'the first frame carried a sample {age:.2f} s old'


@pytest.mark.xfail(reason='IIOPolledDriver stamps a sample before its six synchronous *_raw reads; on '
                          'the real driver each is a GET_REPORT the kernel waits up to 5 s for: the '
                          'capture thread (and every frame) waits with it, and the sample comes out '
                          'that much older (docs/lab.md "Findings")', strict=False)
def test_a_slow_get_report_holds_the_first_frame(lab, hub, daemons, capsys):
    """The reported "no frame for ~6 s, then a frame whose sample is ~6 s old": one GET_REPORT
    the hub leaves unanswered at the start (uhid gives up after 5 s)."""
    hub.ctl('ignore_gets', n=1)
    d = daemons.start(['Motion.Recenter=no'])
    sub = d.subscribe(seconds=20, frames=1)
    frames = offsets(sub)
    assert frames, sub
    wait = (frames[0]['recv_ns'] - sub['subscribe_ns']) / 1e9
    age = (frames[0]['recv_ns'] - frames[0]['t']) / 1e9
    ignored = hub.sensor('accel')['get_ignored']
    _report(capsys, f'one unanswered GET_REPORT ({ignored} ignored): subscribed at READY=1 + '
                    f'{(sub["subscribe_ns"] - d.ready_ns) / 1e9:.2f} s, first frame {wait:.2f} s later, '
                    f'its sample {age:.2f} s old')
    assert wait < 0.5, f'no frame for {wait:.2f} s'
    assert age < 0.5, f'the first frame carried a sample {age:.2f} s old'


@pytest.mark.xfail(reason='see test_first_frame_after_a_fresh_start_is_current: the same stale '
                          'offset is what a client subscribing as the device starts to move gets first',
                   strict=False)
def test_first_frame_after_motion_carries_a_fresh_sample(lab, hub, daemons, capsys):
    d = daemons.start(['Motion.Recenter=no'])
    time.sleep(6)    # still for a while after the start (the sensors closed after the look)
    # The user picks the device up, and the app subscribes as it moves.
    t_move = int(hub.ctl('attitude', x=-20, seconds=3)['until'] * 1e9) - 3_000_000_000
    sub = d.subscribe(seconds=20, frames=3)
    frames = offsets(sub)
    assert frames and frames[0]['recv_ns'] > t_move, frames
    f = frames[0]
    age, after = (f['recv_ns'] - f['t']) / 1e9, (f['recv_ns'] - t_move) / 1e9
    ages = [round((g['recv_ns'] - g['t']) / 1e9, 3) for g in frames[:4]]
    _report(capsys, f'first frame after the motion began: {after:.2f} s after it, its sample {age:.2f} s old '
                    f'(frame arrival − t), offset y {f["y"]}; ages of the first frames: {ages}')
    assert age < 0.5, f'the first frame after motion carried a sample {age:.2f} s old'
