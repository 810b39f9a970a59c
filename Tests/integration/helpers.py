"""Assertions shared by the integration tests (the harness itself is the plx package)."""
import os

import plx

# Tilt used for the sign tests (degrees): 15° gives y ≈ 0.17 with the default 90° saturation,
# and re-centring (≈2°/s near the centre) leaves it above the 0.08 threshold for seconds.
TILT_DEG = 15.0
# Offset a clear tilt must exceed (0.08 ≈ 7°: half the tilt, room for re-centring and filter lag).
SIGN_THRESHOLD = 0.08
# Cross-axis offset still counted as "nothing" (≈ 4.5°).
CROSS_AXIS_LIMIT = 0.05
# Time a tilt may take to show (s): sensor polling at 100 Hz, fusion convergence, 60 Hz frames.
SHOW_TIMEOUT = 3.0
# Gyro turn: 1 rad/s held for 0.3 s = 17.2° → x ≈ 0.19.
TURN_RATE = 1.0
TURN_SECONDS = 0.3
TURN_THRESHOLD = 0.1
# A turn of 17.2° must not read as much more (a wrong gyro scale or integration by frame count).
TURN_PEAK_LIMIT = 0.3
# Offset counted as "centred".
CENTRED = 0.05


def rocking_trace(path, seconds=10.0, rate_hz=200.0, amplitude_deg=20.0, period_s=2.0, axis='x'):
    """A device rocking about device `axis` without pause, written as a trace; returns its
    replay source. Every sample moves the offset (about x: y moves; about y: x moves)."""
    import math
    rows = []
    w = 2 * math.pi / period_s
    index = 'xyz'.index(axis)
    for i in range(int(seconds * rate_hz)):
        t = i / rate_hz
        angle = amplitude_deg * math.sin(w * t)
        rate = [0.0, 0.0, 0.0]
        rate[index] = math.radians(amplitude_deg) * w * math.cos(w * t)
        rows.append(plx.Row(int(t * 1e9), plx.gravity_after_rotation((0.0, -9.80665, 0.0), axis, angle), tuple(rate)))
    plx.write_trace(path, rows, ['rocking about +%s, %g deg amplitude, %g s period' % (axis.upper(), amplitude_deg, period_s)])
    return 'replay:' + path


# How long the daemon gets to log what a test waits for, e.g. enabling a buffer after READY=1 (s).
LOG_TIMEOUT = 10.0
# How long the daemon gets to come to rest (RestAfter=2 s, plus start-up re-centring) (s).
REST_TIMEOUT = 20.0


def wait_log(daemon, text, timeout=LOG_TIMEOUT):
    """Waits until the daemon's log contains `text` (or it died); whether it does."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in daemon.stderr_text():
            return True
        if not daemon.alive():
            break
        time.sleep(0.02)
    return text in daemon.stderr_text()


def wait_resting(client, want=True, timeout=REST_TIMEOUT):
    """Polls `status` until `resting` is `want` (docs/power.md); the last status."""
    import time
    deadline = time.monotonic() + timeout
    while True:
        status = client.status()
        if status.get('resting') is want or time.monotonic() > deadline:
            return status
        time.sleep(0.1)


def describe(client, n=8):
    """The last frames and other lines, for assertion messages."""
    frames = ['(%.3f, %.3f)' % (o['x'], o['y']) for o in client.offsets()[-n:]]
    others = [o for o in client.objects if o.get('type') != 'offset'][-n:]
    return 'last offsets: %s; other lines: %s' % (', '.join(frames) or 'none', others)


def subscribe_ready(client, rate=60, rotation=0, settle=True, **extra):
    """Subscribe, check the reply and the state line (sensor ok), wait for the start-up transient
    to end (no frames for 0.5 s) and check the offset then is centred."""
    reply = client.subscribe(rate=rate, rotation=rotation, **extra)
    assert reply is not None and reply.get('type') == 'subscribed', 'subscribe reply: %r' % (reply,)
    assert reply.get('rotation') == rotation, reply
    state = client.wait_for(lambda o: o.get('type') == 'state' and o.get('sensor') == 'ok', 5.0, old=True)
    assert state is not None, 'no state line with sensor "ok" after subscribe; ' + describe(client)
    if settle:
        assert client.settle(quiet=0.5, timeout=8.0), 'offsets keep coming from a still device; ' + describe(client)
        if client.latest is not None:
            assert abs(client.latest['x']) < CENTRED and abs(client.latest['y']) < CENTRED, \
                'a still upright device is not centred; ' + describe(client)
    return reply


def expect_offset(client, pred, what, timeout=SHOW_TIMEOUT):
    frame = client.wait_offset(pred, timeout)
    assert frame is not None, 'no offset frame with %s within %.1f s; %s' % (what, timeout, describe(client))
    return frame


def tilt_x(testbed, accel_dev, gyro_dev, degrees=TILT_DEG, seconds=0.25):
    """Tip the top of the screen toward the viewer (positive degrees) from the current pose."""
    return plx.turn(testbed, accel_dev, gyro_dev, 'x', degrees, seconds)


def turn_y(testbed, accel_dev, gyro_dev, sign=1):
    """Turn about device Y at TURN_RATE for TURN_SECONDS (gravity unchanged while upright)."""
    from math import degrees
    return plx.turn(testbed, accel_dev, gyro_dev, 'y', sign * degrees(TURN_RATE * TURN_SECONDS), TURN_SECONDS)


def trace(name):
    return os.path.join(plx.TRACES_DIR, name)


def is_root():
    return os.geteuid() == 0


def test_failed(request):
    """True when the test's own call phase failed (so fixtures' teardown prints the logs)."""
    return getattr(request.node, 'rep_call', None) is not None and request.node.rep_call.failed


test_failed.__test__ = False   # a helper, not a test pytest should collect


def context_switches(pid, comm='*', involuntary=True):
    """Context switches of the daemon's thread named `comm` ('*': every thread), from /proc;
    None if no thread has that name. Voluntary ones count the times a thread went to sleep (one
    per wake-up); involuntary ones, the times it was preempted. The event loop is the main
    thread ('parallaxd'), sensor capture runs in 'plx-capture'."""
    kinds = ('voluntary_ctxt_switches', 'nonvoluntary_ctxt_switches') if involuntary else ('voluntary_ctxt_switches',)
    total = None
    for tid in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/comm' % (pid, tid)) as f:
                if comm != '*' and f.read().strip() != comm:
                    continue
            with open('/proc/%d/task/%s/status' % (pid, tid)) as f:
                for line in f:
                    if line.startswith(kinds):
                        total = (total or 0) + int(line.split()[1])
        except FileNotFoundError:
            continue
    return total


def thread_sleeps(pid, comm):
    """How many times the daemon's thread named `comm` ('*': all) went to sleep."""
    return context_switches(pid, comm, involuntary=False)


def frame_slots(stamps, start_ns, end_ns, rate):
    """How many frames a `rate` Hz subscriber can get from a source that delivered samples at
    `stamps` (monotonic ns): one per subscriber period that saw a new sample. A source that fell
    behind (an emulation's feeder on a loaded machine catching up in a burst) supports fewer than
    `rate` a second, and the daemon cannot make frames it has no samples for."""
    slots, last = 0, None
    for t in sorted(s for s in stamps if start_ns <= s < end_ns):
        if last is None or t - last >= 1e9 / rate:
            slots, last = slots + 1, t
    return slots


def sleeps_under_typical_load(daemon, comms, seconds=2.0, moving=True, source_stamps=None):
    """The issue's typical load: 4 subscribers at 60 Hz. Returns {comm: sleeps per second} of the
    named daemon threads ('*': all) over `seconds`. Moving: once frames flow, and after checking
    one subscriber got its rate meanwhile (of what the source delivered, when `source_stamps`
    gives the monotonic ns times of the samples it wrote, or a list of such lists for devices
    merged in time order: the slowest of them bounds the frames). At rest: once the start-up frames have
    stopped, and after checking none came meanwhile."""
    import time
    clients = [daemon.connect() for _ in range(4)]
    for c in clients:
        c.subscribe(rate=60)
    first = clients[0]
    if moving:
        for c in clients:
            assert c.wait_offset(lambda x, y: True, 5) is not None, 'no frames for a subscriber'
    else:
        assert first.settle(quiet=0.5, timeout=8.0), 'offsets keep coming from a still device'
    mark = len(first.frames)
    before = {c: thread_sleeps(daemon.pid, c) for c in comms}
    start = time.monotonic()
    start_ns = time.monotonic_ns()
    first.pump(seconds)
    elapsed = time.monotonic() - start
    after = {c: thread_sleeps(daemon.pid, c) for c in comms}
    got = len(first.frames) - mark
    if moving:
        possible = seconds * 60
        if source_stamps is not None:
            end_ns = time.monotonic_ns()
            stamps = source_stamps()
            lanes = stamps if stamps and isinstance(stamps[0], list) else [stamps]
            possible = min([possible] + [frame_slots(lane, start_ns, end_ns, 60) for lane in lanes])
        assert got >= possible * 0.8, 'a 60 Hz subscriber got %d frames in %g s (the source allowed %d)' % (
            got, seconds, possible)
    else:
        assert got == 0, 'a still device sent %d frames' % got
    for c in comms:
        assert before[c] is not None and after[c] is not None, 'no daemon thread named %r' % c
    return {c: (after[c] - before[c]) / elapsed for c in comms}


def build_preload(workdir, name, source):
    """Compiles `source` (C, an LD_PRELOAD shim standing in for a slow disk or directory server)
    into workdir/NAME.so and returns its path."""
    import shutil
    import subprocess
    cc = shutil.which('cc') or shutil.which('gcc') or shutil.which('clang')
    assert cc is not None, 'no C compiler for the %s preload (install gcc)' % name
    src = os.path.join(workdir, name + '.c')
    lib = os.path.join(workdir, name + '.so')
    with open(src, 'w') as f:
        f.write(source)
    subprocess.run([cc, '-shared', '-fPIC', '-O1', '-o', lib, src, '-ldl'], check=True, timeout=60)
    return lib
