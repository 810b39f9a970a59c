"""Protocol v1 on the client's side (docs/protocol.md): cutting the byte stream into lines with a
bounded buffer, and decoding server lines defensively.

Nothing here raises on bad input: a line that is not what the protocol promises decodes to None
and the caller ignores it. A daemon is trusted to be right, but a client library must not let a
wrong or hostile peer crash its host program, put NaN into it or make it grow without bound."""
import json
import math

from ._values import OFFSET_MAX, OFFSET_MIN, SENSOR_NONE, SENSOR_STATES, Offset, wrap_angle

# Longest server line kept (bytes, without "\n"). The longest real line, a status reply, is a few
# hundred bytes; anything past this is dropped up to its newline, so the buffer stays bounded.
MAX_LINE_BYTES = 64 * 1024
# Offset times and frame counters are 64-bit on the wire (the C library stores them as such).
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
# Largest velocity on the wire (offset units per second, docs/protocol.md): a value past it is a
# sensor fault, not motion, and the frame is not protocol v1.
MAX_VELOCITY = 9999.0
# Largest |yaw| on the wire: pi rounded to the protocol's 4 decimals (radians).
MAX_YAW = 3.1416


class LineReader:
    """Splits received bytes into lines. Keeps at most MAX_LINE_BYTES of an unfinished line; a
    longer line is discarded (counted in `discarded`) and reading resumes after its newline."""

    def __init__(self, max_line=MAX_LINE_BYTES):
        self.max_line = max_line
        self._partial = bytearray()
        self._skipping = False     # inside an overlong line: drop bytes up to the next newline
        self.discarded = 0         # overlong lines dropped so far

    def feed(self, data):
        """The complete lines (bytes without "\n") that `data` finishes, oldest first."""
        lines = []
        start = 0
        while True:
            end = data.find(b'\n', start)
            if end < 0:
                break
            if self._skipping:
                self._skipping = False
            elif len(self._partial) + (end - start) > self.max_line:
                self.discarded += 1
                self._partial.clear()
            else:
                self._partial += data[start:end]
                lines.append(bytes(self._partial))
                self._partial.clear()
            start = end + 1
        rest = len(data) - start
        if self._skipping:
            pass
        elif len(self._partial) + rest > self.max_line:
            self.discarded += 1
            self._partial.clear()
            self._skipping = True
        else:
            self._partial += data[start:]
        return lines

    def reset(self):
        """Forget a half-received line (the connection it came from is gone)."""
        self._partial.clear()
        self._skipping = False


def _no_constants(name):
    # json accepts NaN, Infinity and -Infinity by default; the protocol never sends them.
    raise ValueError('non-finite constant ' + name)


def _no_duplicate_keys(pairs):
    # json keeps the last of two equal keys; a line with one is ambiguous (which "x" is meant?)
    # and parallaxd never sends one, so it is not protocol, as in libparallax and the Swift kit.
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError('duplicate key')
    return obj


def decode_line(line):
    """A server line as a dict with a string "type", or None when it is not one (invalid UTF-8 or
    JSON, NaN/Infinity, a duplicated key, not an object, no type, nesting deeper than the
    interpreter allows)."""
    try:
        obj = json.loads(line.decode('utf-8'), parse_constant=_no_constants, object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError):   # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get('type'), str):
        return None
    return obj


def _finite_number(value):
    """value as a float when it is a finite JSON number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        f = float(value)
    except OverflowError:          # an integer too large for a double
        return None
    return f if math.isfinite(f) else None


def _integer(value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        return None
    return value


def decode_offset(obj, heading=False):
    """An Offset from an "offset" message, or None when a field is missing or wrong. x and y must
    lie in [-1, 1] (anything else is not a protocol v1 frame); vx and vy default to 0 when absent
    (daemons before velocity) but must be numbers within ±MAX_VELOCITY when present. yaw, when
    present, must lie within ±MAX_YAW and vyaw (absent: 0) within ±MAX_VELOCITY; they are kept
    only with `heading` (the client asked for them)."""
    x = _finite_number(obj.get('x'))
    y = _finite_number(obj.get('y'))
    t = _integer(obj.get('t'), INT64_MIN, INT64_MAX)
    seq = _integer(obj.get('seq'), 0, UINT64_MAX)
    vx = _finite_number(obj.get('vx', 0.0))
    vy = _finite_number(obj.get('vy', 0.0))
    if None in (x, y, t, seq, vx, vy):
        return None
    if not (OFFSET_MIN <= x <= OFFSET_MAX and OFFSET_MIN <= y <= OFFSET_MAX
            and abs(vx) <= MAX_VELOCITY and abs(vy) <= MAX_VELOCITY):
        return None
    yaw = vyaw = None
    if 'yaw' in obj or 'vyaw' in obj:
        yaw = _finite_number(obj.get('yaw'))
        vyaw = _finite_number(obj.get('vyaw', 0.0))
        if yaw is None or vyaw is None or abs(yaw) > MAX_YAW or abs(vyaw) > MAX_VELOCITY:
            return None
        yaw = wrap_angle(yaw)
    if not heading:
        yaw = vyaw = None
    return Offset(x, y, vx, vy, t, seq, yaw, vyaw)


def decode_state(obj, previous, heading=False):
    """`previous` (a State) updated with the fields of a "state" message; a field of the wrong type
    keeps its previous value, a sensor state this version does not know reads as 'none' (the
    protocol: other values mean "not ok"). "heading" counts only with `heading` (asked for)."""
    changes = {}
    if isinstance(obj.get('heading'), bool):
        changes['heading'] = heading and obj['heading']
    sensor = obj.get('sensor')
    if isinstance(sensor, str):
        changes['sensor'] = sensor if sensor in SENSOR_STATES else SENSOR_NONE
    for key in ('reduce_motion', 'calibrated'):
        if isinstance(obj.get(key), bool):
            changes[key] = obj[key]
    return previous._replace(**changes)


def encode_unsubscribe(request_id):
    """The unsubscribe command line (bytes): pausing on a live connection (Client.pause)."""
    return (json.dumps({'cmd': 'unsubscribe', 'id': request_id}, separators=(',', ':')) + '\n').encode('ascii')


def encode_subscribe(rate, rotation, request_id, heading=False):
    """The subscribe command line (bytes, "\n"-terminated); "heading": true only when asked for,
    so a client without it sends protocol v1's line."""
    command = {'cmd': 'subscribe', 'rate': rate, 'rotation': rotation}
    if heading:
        command['heading'] = True
    command['id'] = request_id
    return (json.dumps(command, separators=(',', ':')) + '\n').encode('ascii')
