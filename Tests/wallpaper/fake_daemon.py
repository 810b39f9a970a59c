"""A FAKE parallaxd for the wallpaper tests: it speaks protocol v1 (hello, subscribed, state, then
the offsets the test chooses) on a Unix socket. A fake because the pictures must be deterministic:
the tests pick exact offsets and check where layers land to the pixel, which the real daemon's
sensor fusion cannot be asked to produce. The real daemon drives the wallpaper in the demo.

It records every subscription (rate, rotation) it answers and counts the unsubscribes (a wallpaper
nobody can see pauses; docs/wallpaper.md "Visibility"), and whether each subscription asked for heading
(`"heading": true`, DESIGN "Heading"): those subscribers get `yaw` and `vyaw` in their offset
frames, as parallaxd does with a gyroscope; heading=False makes it answer like a daemon without
one (`"heading": false`, frames without yaw)."""
import json
import os
import selectors
import socket
import threading


class FakeDaemon:
    def __init__(self, path, reduce_motion=False, heading=True):
        self.path = path
        self.reduce_motion = reduce_motion
        self.heading = heading            # whether it has a gyroscope to offer heading with
        self.subscriptions = []           # (rate, rotation) in the order they came
        self.heading_requests = []        # the "heading" flag of each subscription, in that order
        self.unsubscribes = 0             # unsubscribe commands answered
        self._heading = set()             # subscribers that get yaw
        self._asked_heading = set()       # subscribers that asked for it
        self.seq = 0
        self._clients = {}                # socket -> bytearray of unparsed input
        self._subscribed = set()
        self._lock = threading.Lock()
        self._selector = selectors.DefaultSelector()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        os.chmod(path, 0o666)
        self._server.listen(8)
        self._server.setblocking(False)
        self._selector.register(self._server, selectors.EVENT_READ)
        self._wake_r, self._wake_w = os.pipe()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._running = True
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _send(self, conn, obj):
        try:
            conn.sendall((json.dumps(obj, separators=(',', ':')) + '\n').encode())
        except OSError:
            pass

    def _run(self):
        while self._running:
            for key, _ in self._selector.select():
                if key.fileobj is self._server:
                    conn, _ = self._server.accept()
                    with self._lock:
                        self._clients[conn] = bytearray()
                    self._send(conn, {'type': 'hello', 'protocol': 1, 'server': 'parallaxd',
                                      'version': 'fake', 'max_rate': 60})
                    self._selector.register(conn, selectors.EVENT_READ)
                elif key.fileobj == self._wake_r:
                    os.read(self._wake_r, 64)
                else:
                    self._read(key.fileobj)

    def _read(self, conn):
        try:
            data = conn.recv(4096)
        except OSError:
            data = b''
        if not data:
            self._selector.unregister(conn)
            with self._lock:
                self._clients.pop(conn, None)
                self._subscribed.discard(conn)
                self._heading.discard(conn)
                self._asked_heading.discard(conn)
            conn.close()
            return
        buf = self._clients[conn]
        buf += data
        while b'\n' in buf:
            line, _, rest = bytes(buf).partition(b'\n')
            buf[:] = rest
            cmd = json.loads(line)
            if cmd.get('cmd') == 'subscribe':
                rate, rotation = int(cmd.get('rate', 30)), int(cmd.get('rotation', 0))
                wants_heading = cmd.get('heading') is True
                reply = {'type': 'subscribed', 'rate': min(rate, 60), 'rotation': rotation}
                if wants_heading:
                    reply['heading'] = self.heading
                with self._lock:
                    self.subscriptions.append((rate, rotation))
                    self.heading_requests.append(wants_heading)
                    self._subscribed.add(conn)
                    if wants_heading and self.heading:
                        self._heading.add(conn)
                    else:
                        self._heading.discard(conn)
                    if wants_heading:
                        self._asked_heading.add(conn)
                    else:
                        self._asked_heading.discard(conn)
                    # Under the lock: an offset sent by the test the moment it sees the subscriber
                    # must come after these, as parallaxd sends them, or the client drops it.
                    self._send(conn, reply)
                    self._send(conn, self._state(conn))
            elif cmd.get('cmd') == 'unsubscribe':
                with self._lock:
                    self.unsubscribes += 1
                    self._subscribed.discard(conn)
                    self._heading.discard(conn)
                    self._asked_heading.discard(conn)
                self._send(conn, {'type': 'unsubscribed'})

    def _state(self, conn):
        state = {'type': 'state', 'sensor': 'ok', 'reduce_motion': self.reduce_motion, 'calibrated': True}
        if conn in self._asked_heading:        # echoed only to those who asked, as parallaxd does
            state['heading'] = conn in self._heading
        return state

    def subscribed_count(self):
        with self._lock:
            return len(self._subscribed)

    def connection_count(self):
        """Clients connected now (a closed connection is gone once its end is read)."""
        with self._lock:
            return len(self._clients)

    def send_offset(self, x, y, vx=0.0, vy=0.0, t=None, yaw=0.0, vyaw=0.0):
        """Sends one offset frame to every subscriber (t: CLOCK_MONOTONIC ns, default now); those
        that subscribed with heading also get yaw (radians, positive = turned right) and vyaw."""
        with self._lock:
            self.seq += 1
            frame = {'type': 'offset', 'seq': self.seq,
                     't': t if t is not None else time_ns(), 'x': x, 'y': y, 'vx': vx, 'vy': vy}
            for conn in list(self._subscribed):
                if conn in self._heading:
                    self._send(conn, dict(frame, yaw=yaw, vyaw=vyaw))
                else:
                    self._send(conn, frame)

    def set_reduce_motion(self, on):
        with self._lock:
            self.reduce_motion = on
            for conn in list(self._subscribed):
                self._send(conn, self._state(conn))

    def close(self):
        self._running = False
        os.write(self._wake_w, b'x')
        self._thread.join(5)
        with self._lock:
            for conn in list(self._clients):
                conn.close()
            self._clients.clear()
        self._server.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def time_ns():
    import time
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)
