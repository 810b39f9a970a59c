"""A strict protocol v1 client (docs/protocol.md): JSON lines over the daemon's Unix socket."""
import json
import math
import select
import socket
import time


# ---------------------------------------------------------------------------------------------
# Protocol v1 client

def _reject_constant(name):
    raise ValueError('non-finite number %s on the wire' % name)


class Client:
    """A protocol v1 client (JSON lines over a Unix stream socket), strict about what it receives:
    invalid UTF-8, invalid JSON, NaN/Infinity, non-objects or objects without "type" are recorded
    in `violations` (tests assert it stays empty)."""

    def __init__(self, path, timeout=5.0):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self.buf = b''
        self.objects = []           # every object received, in order
        self.frames = []            # (monotonic arrival, offset object)
        self.violations = []        # protocol violations seen
        self.hello = None
        self.closed_by_server = False
        self.closed = False
        self._cursor = 0            # objects before this index have been examined by a wait

    # -- sending
    def send(self, obj_or_line):
        """Send a dict as one JSON line, or str/bytes as given (a '\\n' is added if missing)."""
        if isinstance(obj_or_line, dict):
            line = json.dumps(obj_or_line, separators=(',', ':')).encode()
        elif isinstance(obj_or_line, str):
            line = obj_or_line.encode()
        else:
            line = bytes(obj_or_line)
        if not line.endswith(b'\n'):
            line += b'\n'
        self.sock.setblocking(True)
        try:
            self.sock.sendall(line)
        finally:
            self.sock.setblocking(False)

    # -- receiving
    def _take(self, line):
        try:
            text = line.decode('utf-8')
        except UnicodeDecodeError:
            self.violations.append('invalid UTF-8: %r' % line[:200])
            return None
        try:
            obj = json.loads(text, parse_constant=_reject_constant)
        except ValueError as e:
            self.violations.append('invalid JSON (%s): %r' % (e, text[:200]))
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get('type'), str):
            self.violations.append('not an object with "type": %r' % text[:200])
            return None
        if obj['type'] == 'offset':
            problem = offset_problem(obj)
            if problem:
                self.violations.append('%s: %r' % (problem, text[:200]))
            self.frames.append((time.monotonic(), obj))
        if obj['type'] == 'hello' and self.hello is None:
            self.hello = obj
        self.objects.append(obj)
        return obj

    def pump(self, seconds):
        """Read for up to `seconds` (returns early only when the server closes); returns the new
        objects. Pumped objects count as examined: later wait_for calls start after them."""
        first = len(self.objects)
        end = time.monotonic() + seconds
        while not self.closed_by_server:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                break
            self._read_available()
        self._cursor = len(self.objects)
        return self.objects[first:]

    def _read_available(self):
        """Receive what is there and parse complete lines into self.objects."""
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except ConnectionResetError:
            data = b''
        if not data:
            self.closed_by_server = True
            if self.buf:
                self.violations.append('connection closed inside a line: %r' % self.buf[:200])
                self.buf = b''
            return
        self.buf += data
        while b'\n' in self.buf:
            line, self.buf = self.buf.split(b'\n', 1)
            self._take(line)

    def mark(self):
        """A position in the received objects, for wait_for(..., since=mark)."""
        return len(self.objects)

    def wait_for(self, pred, timeout, old=False, since=None):
        """The first object satisfying pred, or None on timeout or when the server closes.

        Objects are examined like a queue: by default from the first one no earlier wait_for or
        pump has examined (objects that arrived in the same read as an earlier match stay
        available); from index `since` with since=, from the very first with old=True.
        Event-driven (select), no sleeping."""
        i = 0 if old else (since if since is not None else self._cursor)
        end = time.monotonic() + timeout
        while True:
            while i < len(self.objects):
                obj = self.objects[i]
                i += 1
                if pred(obj):
                    self._cursor = max(self._cursor, i)
                    return obj
            self._cursor = max(self._cursor, i)
            left = end - time.monotonic()
            if self.closed_by_server or left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return None
            self._read_available()

    def wait_type(self, type_, timeout, old=False):
        return self.wait_for(lambda o: o.get('type') == type_, timeout, old=old)

    def wait_hello(self, timeout=5.0):
        return self.wait_type('hello', timeout, old=True)

    def wait_closed(self, timeout):
        """True when the server closes the connection within `timeout`."""
        self.wait_for(lambda o: False, timeout)
        return self.closed_by_server

    def request(self, obj, expect, timeout=5.0):
        """Send a command and wait for its reply: an object of type in `expect` (str or tuple) or
        an error. Offset and state lines arriving meanwhile are collected as usual."""
        expect = (expect,) if isinstance(expect, str) else tuple(expect)
        mark = self.mark()  # nothing received before sending can be the reply
        self.send(obj)
        return self.wait_for(lambda o: o.get('type') in expect + ('error',), timeout, since=mark)

    def subscribe(self, rate=60, rotation=0, timeout=5.0, **extra):
        cmd = {'cmd': 'subscribe', 'rate': rate, 'rotation': rotation}
        cmd.update(extra)
        return self.request(cmd, 'subscribed', timeout)

    def status(self, timeout=5.0):
        return self.request({'cmd': 'status'}, 'status', timeout)

    # -- offsets
    @property
    def latest(self):
        return self.frames[-1][1] if self.frames else None

    def offsets(self):
        return [o for _, o in self.frames]

    def wait_offset(self, pred, timeout):
        """The first offset frame from now on with pred(x, y) true, or None."""
        return self.wait_for(lambda o: o.get('type') == 'offset' and pred(o['x'], o['y']), timeout)

    def settle(self, quiet=0.5, timeout=8.0):
        """Wait until no offset frame arrives for `quiet` seconds; True if that happened in time.
        Used before a motion so the start-up transient (if any) is over."""
        end = time.monotonic() + timeout
        while end - time.monotonic() >= quiet:
            if self.wait_for(lambda o: o.get('type') == 'offset', quiet) is None:
                return not self.closed_by_server
        return False

    def close(self):
        if not self.closed:
            self.closed = True
            self.sock.close()


def offset_problem(obj):
    """What is wrong with an offset frame's fields (docs/protocol.md "offset"), or None."""
    for k in ('seq', 't', 'x', 'y', 'vx', 'vy'):
        v = obj.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return 'offset field %s missing or not a number' % k
    if not all(math.isfinite(obj[k]) for k in ('x', 'y', 'vx', 'vy')):
        return 'non-finite offset or velocity'
    if not (-1.0 <= obj['x'] <= 1.0 and -1.0 <= obj['y'] <= 1.0):
        return 'offset outside [-1, 1]'
    return None
