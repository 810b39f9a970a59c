"""The values a client sees: an offset frame, the daemon's state, and the two helpers a layer needs
to move with the device (docs/protocol.md "Offset frames", docs/client-kit.md "Python").

Pure functions and immutable records; no I/O here."""
import math
from typing import NamedTuple, Optional

# Offsets are normalised: each axis lies in [OFFSET_MIN, OFFSET_MAX] (docs/protocol.md).
OFFSET_MIN = -1.0
OFFSET_MAX = 1.0
# Offset times are CLOCK_MONOTONIC nanoseconds; velocities are offset units per second.
NANOSECONDS_PER_SECOND = 1_000_000_000

# The daemon's sensor states on the wire ("state" lines).
SENSOR_OK = 'ok'
SENSOR_LOST = 'lost'
SENSOR_NONE = 'none'
SENSOR_STATES = (SENSOR_OK, SENSOR_LOST, SENSOR_NONE)


class Offset(NamedTuple):
    """One viewer offset frame.

    x, y   the offset, each in [-1, 1] (x to the right of the screen, y to its top, already
           rotated into the subscriber's output axes)
    vx, vy its rate of change at `t` in offset units per second (0 from daemons that do not
           send velocity)
    t      CLOCK_MONOTONIC nanoseconds of the newest sensor sample behind it
           (comparable with time.monotonic_ns())
    seq    the daemon's frame counter (a gap means frames were skipped; it restarts with the
           daemon)
    yaw    the heading in radians, (-pi, pi]: how far the screen turned about the world's
           vertical since the reference pose, > 0 toward the viewer's right; not rotated with
           the output. None unless the client asked for it (heading=True) and the daemon has a
           gyroscope (docs/frames.md "Heading")
    vyaw   its rate of change at `t` in radians per second; None whenever yaw is"""
    x: float
    y: float
    vx: float
    vy: float
    t: int
    seq: int
    yaw: Optional[float] = None
    vyaw: Optional[float] = None


class State(NamedTuple):
    """What the client knows about its daemon.

    connected      the daemon accepted the subscription (paused: answered the unsubscribe) and the
                   connection is up
    sensor         'ok', 'lost' or 'none' (the daemon's last state line; 'none' while disconnected
                   and for values a later protocol may add: anything but 'ok' means "not ok")
    reduce_motion  the user asked for reduced motion: offsets stay at (0, 0)
    calibrated     the daemon has a gyroscope calibration
    error          the last error the daemon or the connection reported, for display and logs
                   (None when there is none); reset by a successful subscription
    heading        offsets carry yaw and vyaw: the client asked for the heading and the daemon
                   said it has a gyroscope (its "subscribed" reply and state lines)"""
    connected: bool = False
    sensor: str = SENSOR_NONE
    reduce_motion: bool = False
    calibrated: bool = False
    error: Optional[str] = None
    heading: bool = False


def _clamp_axis(value, fallback):
    """value clamped to [-1, 1]; `fallback` when it is NaN (inf·0 and the like)."""
    if math.isnan(value):
        return fallback
    return min(OFFSET_MAX, max(OFFSET_MIN, value))


def interpolate(offset, minimum, maximum):
    """UIKit's interpolating motion effect for one axis: the value at `offset` (in [-1, 1]) on the
    line from `minimum` (offset −1) to `maximum` (offset +1):
    minimum + (maximum − minimum)·(offset/2 + 1/2). Offset 0 gives the midpoint."""
    return minimum + (maximum - minimum) * (offset / 2.0 + 0.5)


def wrap_angle(angle):
    """`angle` (radians) wrapped into (-pi, pi]; a non-finite angle is 0."""
    if not math.isfinite(angle):
        return 0.0
    if -math.pi < angle <= math.pi:
        return angle
    a = math.remainder(angle, 2 * math.pi)
    return a + 2 * math.pi if a <= -math.pi else a


def predict(offset, at_ns):
    """The offset extrapolated to CLOCK_MONOTONIC time `at_ns` (e.g. the moment the next frame is
    shown) with its velocity: x + vx·(at_ns − t)/10⁹, likewise y, each clamped to [-1, 1]; a yaw
    turns on by vyaw·(at_ns − t)/10⁹ and is wrapped to (-pi, pi] (a heading turns round, it does
    not saturate). Returns a new Offset with t = at_ns (vx, vy, vyaw and seq unchanged)."""
    dt = (at_ns - offset.t) / NANOSECONDS_PER_SECOND
    yaw = offset.yaw
    if yaw is not None:
        yaw = wrap_angle(yaw + (offset.vyaw or 0.0) * dt)
    return offset._replace(x=_clamp_axis(offset.x + offset.vx * dt, offset.x),
                           y=_clamp_axis(offset.y + offset.vy * dt, offset.y),
                           t=at_ns, yaw=yaw)
