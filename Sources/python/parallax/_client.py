"""The subscriber: one connection to parallaxd that reconnects by itself, keeps only the newest
offset, and can be driven by a blocking loop or by the caller's own event loop
(docs/client-kit.md "Python"; the C library libparallax has the same semantics).

Single-threaded by design: nothing here starts a thread or sleeps except the blocking iterator."""
import errno
import math
import os
import select
import socket as _socket
import time

from ._backoff import BACKOFF_RESET_AFTER, Backoff
from ._values import State
from ._wire import LineReader, decode_line, decode_offset, decode_state, encode_subscribe, encode_unsubscribe

# Where parallaxd listens when neither the caller nor $PARALLAXD_SOCKET names a socket.
SYSTEM_SOCKET_PATH = '/run/parallaxd/parallaxd.sock'
SOCKET_ENV = 'PARALLAXD_SOCKET'
# Retry delay after the daemon refused this process (permission_denied) or speaks another protocol
# version (s): the answer will not change soon, and knocking faster would be a reconnect storm.
REFUSED_RETRY = 60.0
# Time a new connection has to reach "subscribed" before it is dropped as hung (s).
HANDSHAKE_TIMEOUT = 5.0
# The protocol version this module speaks (the hello's "protocol").
PROTOCOL_VERSION = 1
# Display rotations the protocol knows (degrees clockwise).
ROTATIONS = (0, 90, 180, 270)
# Bytes taken per recv(2): dozens of offset lines (~100 bytes each).
RECV_CHUNK = 64 * 1024
# Most bytes one dispatch() reads: a peer that writes faster than we parse cannot keep dispatch()
# from returning; the descriptor stays readable and the loop calls again.
MAX_BYTES_PER_DISPATCH = 1024 * 1024
# The ids on our subscribe and unsubscribe commands; the daemon echoes them in the reply or the error.
SUBSCRIBE_ID = 'parallax-python-subscribe'
UNSUBSCRIBE_ID = 'parallax-python-unsubscribe'
# Longest error message kept in State.error (characters).
MAX_ERROR_CHARS = 300
# sun_path holds 108 bytes including the terminating NUL.
MAX_SOCKET_PATH_BYTES = 107


class AccessDenied(PermissionError):
    """The daemon refused this process (error permission_denied: not root, not in the `parallax`
    group, no active seat session) or the socket's permissions did. Raised once per refusal by
    dispatch() or the iterator; the client then waits REFUSED_RETRY (60 s) before it asks again,
    so a refused program never knocks in a loop. Client.reconnect() asks at once."""


def default_socket_path():
    """$PARALLAXD_SOCKET when set and not empty, else /run/parallaxd/parallaxd.sock."""
    return os.environ.get(SOCKET_ENV) or SYSTEM_SOCKET_PATH


def _validate_rate(rate):
    try:
        # math.isfinite raises OverflowError for an int beyond a double (10**400).
        usable = not isinstance(rate, bool) and isinstance(rate, (int, float)) and math.isfinite(rate) and rate > 0
    except OverflowError:
        usable = False
    if not usable:
        raise ValueError('rate must be a positive number of Hz, not %.40r' % (rate,))
    return int(rate) if float(rate).is_integer() else float(rate)


class Client:
    """A subscription to parallaxd's offsets.

        with parallax.Client(rate=60, rotation=0) as c:
            for o in c:                     # blocks; the newest offset after each read
                layer.move(o.x, o.y)

    Or in an event loop: watch c.fileno() for input and call c.dispatch(); while it is -1 (no
    connection) call c.dispatch() again after c.timeout() seconds. See docs/client-kit.md.

    `socket`: the daemon's socket path (None: $PARALLAXD_SOCKET, else
    /run/parallaxd/parallaxd.sock). `rate`: frames per second wanted (the daemon caps it; the
    effective rate is `effective_rate` once subscribed). `rotation`: the clockwise rotation of
    the output the offsets are drawn on (0, 90, 180, 270); offsets arrive in its axes.
    `heading`: also receive the heading, Offset.yaw and Offset.vyaw (radians, rad/s), while the
    daemon has a gyroscope (State.heading says whether it does); off: protocol v1 exactly.
    Neither a missing daemon nor a restart is an error: the client keeps trying with back-off
    and subscribes again with the same rate and rotation."""

    def __init__(self, socket=None, rate=60, rotation=0, heading=False):
        path = os.fspath(socket) if socket is not None else default_socket_path()
        if not path or len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES:
            raise ValueError('socket path must have 1 to %d bytes: %r' % (MAX_SOCKET_PATH_BYTES, path))
        if rotation not in ROTATIONS or isinstance(rotation, bool):
            raise ValueError('rotation must be one of %s degrees, not %r' % (ROTATIONS, rotation))
        self.socket_path = path
        self.rate = _validate_rate(rate)
        self.rotation = int(rotation)
        self.heading = bool(heading)
        self.effective_rate = None     # the rate the daemon granted (Hz), once subscribed
        self._sock = None
        self._reader = LineReader()
        self._offset = None
        self._offsets_received = 0     # accepted offset frames, so "new" survives a seq restart
        self._offsets_yielded = 0      # the count at the iterator's last yield
        self._state = State()
        self._refusal = None           # an AccessDenied not yet raised to the caller
        self._handshake_deadline = None  # while connected but not yet subscribed
        self._closed = False
        self._backoff = Backoff()
        self._subscribed_at = None     # time.monotonic() the connection was answered, while connected
        self._paused = False           # pause(): unsubscribed on the connection, kept across reconnections
        self._subscribing = False      # the last command sent on this connection was subscribe
        self._awaiting = False         # that command is not answered yet (one on the wire at a time)
        self._next_attempt = time.monotonic()
        self._poller = None
        self._try_connect()

    # -- what the caller reads ------------------------------------------------------------------

    @property
    def offset(self):
        """The newest Offset received, or None before the first (kept while disconnected)."""
        return self._offset

    @property
    def state(self):
        """The State: connected, sensor, reduce_motion, calibrated, error. While disconnected it
        is State(connected=False, error=why): nothing is known about the sensors then."""
        return self._state

    def fileno(self):
        """The connection's descriptor for the caller's poll/GLib/asyncio loop, or -1 while there
        is no connection (then call dispatch() after timeout() seconds). It changes with every
        reconnection, so re-register it whenever it differs from the one you watch."""
        return self._sock.fileno() if self._sock is not None else -1

    @property
    def paused(self):
        """Whether pause() is in effect (until resume())."""
        return self._paused

    def pause(self):
        """Stops the offsets without closing the connection, for a picture nobody can see
        (docs/client-kit.md "Pausing while nobody can see"): the next dispatch() sends
        `unsubscribe` (timeout() is 0 until then), and once no client is subscribed the daemon
        closes its sensors after its Linger=. `offset` and `state` keep what they were; no offsets
        come while paused, and a reconnection after a daemon restart stays paused. Sends nothing
        itself, never blocks. Not for the blocking iterator, which would wait for ever."""
        self._paused = True

    def resume(self):
        """Subscribes again on the same connection with the same rate, rotation and heading: the
        next dispatch() sends `subscribe`, and the daemon answers with its current offset. Sends
        nothing itself, never blocks; does nothing when not paused."""
        self._paused = False

    def _pause_change_due(self):
        return self._sock is not None and not self._awaiting and self._paused == self._subscribing

    def timeout(self):
        """Seconds after which dispatch() must be called even without input (the reconnection
        back-off, the deadline of an unanswered command, 0 when due or when a pause or resume is
        to be sent), or None when only input on fileno() matters."""
        if self._closed:
            return None
        if self._pause_change_due():
            return 0.0
        if self._sock is None:
            due = self._next_attempt
        elif self._handshake_deadline is not None:
            due = self._handshake_deadline
        else:
            return None
        return max(0.0, due - time.monotonic())

    # -- driving it -----------------------------------------------------------------------------

    def dispatch(self):
        """Reads everything pending without blocking (and connects when an attempt is due).
        Returns True when a new offset or a changed state arrived. Raises AccessDenied when the
        daemon refused this process (once per refusal; it asks again after REFUSED_RETRY)."""
        if self._closed:
            return False
        before = (self._offsets_received, self._state)
        now = time.monotonic()
        if self._sock is None and now >= self._next_attempt:
            self._try_connect()
        if self._sock is not None:
            self._read_pending()
        if self._pause_change_due():
            self._send_command(now)
        if self._handshake_deadline is not None and now >= self._handshake_deadline:
            self._lost('parallaxd at %s did not answer the subscription within %g s'
                       % (self.socket_path, HANDSHAKE_TIMEOUT))
        if self._refusal is not None:
            refusal, self._refusal = self._refusal, None
            raise refusal
        return (self._offsets_received, self._state) != before

    def reconnect(self):
        """Drops the connection (if any) and tries again now, also after AccessDenied. The new
        socket may get the old one's number: re-register fileno() in your loop even if it looks
        unchanged (watch_glib/watch_asyncio: call the watch's reconnect() instead)."""
        self._refusal = None
        self._backoff.reset()
        self._close_socket()
        self._try_connect()

    def close(self):
        """Closes the connection for good; iteration ends, dispatch() returns False."""
        self._closed = True
        self._close_socket()
        self._state = State(connected=False, error='closed')

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
        """Blocks until an offset newer than the last one yielded arrives and returns the newest
        (never a backlog). StopIteration after close(); AccessDenied when refused (iterating
        on after catching it waits out the retry delay)."""
        while not self._closed:
            if self._offsets_received != self._offsets_yielded:
                self._offsets_yielded = self._offsets_received
                return self._offset
            # Wait first, then read: one dispatch per wake-up (a dispatch right after the last
            # one would only find the socket empty).
            self._wait()
            self.dispatch()
        raise StopIteration

    def _wait(self):
        wait = self.timeout()
        if self._sock is None:
            if wait:
                time.sleep(wait)
            return
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(self._sock, select.POLLIN)
        self._poller.poll(None if wait is None else math.ceil(wait * 1000))

    # -- connection -----------------------------------------------------------------------------

    def _try_connect(self):
        if self._closed:
            return
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_NONBLOCK | _socket.SOCK_CLOEXEC)
        try:
            sock.connect(self.socket_path)
            sock.send(self._command(), _socket.MSG_NOSIGNAL)
        except OSError as e:
            sock.close()
            reason = 'cannot connect to %s: %s' % (self.socket_path, os.strerror(e.errno) if e.errno else e)
            if e.errno in (errno.EACCES, errno.EPERM):
                self._deny(reason)
            else:
                self._state = State(connected=False, error=reason)
                self._schedule_retry()
            return
        self._sock = sock
        self._handshake_deadline = time.monotonic() + HANDSHAKE_TIMEOUT

    def _command(self):
        """The command that brings the connection to what pause() / resume() asked for."""
        self._subscribing = not self._paused
        self._awaiting = True
        if self._subscribing:
            return encode_subscribe(self.rate, self.rotation, SUBSCRIBE_ID, self.heading)
        return encode_unsubscribe(UNSUBSCRIBE_ID)

    def _send_command(self, now):
        """Sends a pause or resume on the live connection (one short line: the socket takes it)."""
        try:
            self._sock.send(self._command(), _socket.MSG_NOSIGNAL)
        except OSError as e:
            self._lost('writing to %s failed: %s' % (self.socket_path, os.strerror(e.errno) if e.errno else e))
            return
        self._handshake_deadline = now + HANDSHAKE_TIMEOUT

    def _schedule_retry(self, delay=None):
        """The next attempt after `delay` seconds, or after the back-off's next delay."""
        if delay is None:
            delay = self._backoff.next_delay()
        self._next_attempt = time.monotonic() + delay

    def _close_socket(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._poller = None
        self._handshake_deadline = None
        self._subscribed_at = None
        self._awaiting = False
        self._reader.reset()

    def _lost(self, reason, retry=None):
        """The connection ended or failed: forget it (and what it said about the sensors) and
        try again after `retry` seconds or the back-off (from its start when the subscription
        had lasted BACKOFF_RESET_AFTER)."""
        if self._subscribed_at is not None and time.monotonic() - self._subscribed_at >= BACKOFF_RESET_AFTER:
            self._backoff.reset()
        self._close_socket()
        self._state = State(connected=False, error=reason[:MAX_ERROR_CHARS])
        self._schedule_retry(retry)

    def _deny(self, message):
        message = message[:MAX_ERROR_CHARS]
        self._lost('access denied: ' + message, REFUSED_RETRY)
        self._refusal = AccessDenied(message)

    # -- input ----------------------------------------------------------------------------------

    def _read_pending(self):
        taken = 0
        while self._sock is not None and taken < MAX_BYTES_PER_DISPATCH:
            try:
                data = self._sock.recv(RECV_CHUNK)
            except BlockingIOError:
                return
            except OSError as e:
                self._lost('connection to %s failed: %s' % (self.socket_path, os.strerror(e.errno) if e.errno else e))
                return
            if not data:
                self._lost('parallaxd closed the connection')
                return
            taken += len(data)
            for line in self._reader.feed(data):
                self._handle(line)
                if self._sock is None:     # the line ended the connection (refused, wrong protocol)
                    return
            # A short read of a stream socket means its queue was empty: skip the recv that would
            # only raise EAGAIN. Anything arriving now leaves the descriptor readable.
            if len(data) < RECV_CHUNK:
                return

    def _handle(self, line):
        msg = decode_line(line)
        if msg is None:
            return
        kind = msg['type']
        if kind in ('offset', 'state') and not self._subscribing:
            return   # paused: what the daemon sent before it read the unsubscribe is dropped
        if kind == 'hello':
            self._check_protocol(msg.get('protocol'))
        elif kind == 'offset':
            offset = decode_offset(msg, self.heading)
            if offset is not None:
                self._offset = offset
                self._offsets_received += 1
        elif kind == 'state':
            self._state = decode_state(msg, self._state, self.heading)
        elif kind == 'subscribed':
            rate = msg.get('rate')
            self.effective_rate = rate if isinstance(rate, int) and not isinstance(rate, bool) else None
            if not self._state.connected:
                self._subscribed_at = time.monotonic()   # a resume keeps the connection's age
            self._handshake_deadline = None
            self._awaiting = False
            self._state = self._state._replace(connected=True, error=None,
                                               heading=self.heading and msg.get('heading') is True)
        elif kind == 'unsubscribed' and not self._subscribing and self._awaiting:
            self._awaiting = False
            self._handshake_deadline = None
            if not self._state.connected:
                # A paused client's new connection: answered, so connected (without offsets).
                self._subscribed_at = time.monotonic()
                self._state = self._state._replace(connected=True, error=None)
        elif kind == 'error':
            self._handle_error(msg)

    def _check_protocol(self, version):
        if isinstance(version, bool) or not isinstance(version, int):
            self._lost('the server at %s sent a hello without a protocol version' % self.socket_path)
        elif version != PROTOCOL_VERSION:
            self._lost('parallaxd at %s speaks protocol %d, this module protocol %d; retrying every %g s'
                       % (self.socket_path, version, PROTOCOL_VERSION, REFUSED_RETRY), REFUSED_RETRY)

    def _handle_error(self, msg):
        code = msg.get('code') if isinstance(msg.get('code'), str) else 'unknown'
        text = msg.get('message') if isinstance(msg.get('message'), str) else ''
        described = ('%s: %s' % (code, text) if text else code)[:MAX_ERROR_CHARS]
        ours = msg.get('id') in (SUBSCRIBE_ID, None)
        if code == 'permission_denied' and ours:
            self._deny(described)
        elif msg.get('id') in (SUBSCRIBE_ID, UNSUBSCRIBE_ID):
            # Refused for another reason (e.g. unavailable): start over later, with back-off.
            self._lost('subscribe refused: ' + described)
        else:
            self._state = self._state._replace(error=described)
