"""A FAKE parallaxd for the Python client's tests: a plain Unix-socket server that speaks just
enough of protocol v1 and misbehaves on purpose (garbage, overlong lines, NaN, refusals, restarts)
when a test tells it to. The real daemon cannot be made to send bad input, so this is the one
place a stand-in is needed; the client's behaviour against the real daemon is tested in
Tests/integration/test_python_client.py.

Every connection is served by its own thread, which records the command lines the client sent;
tests wait for connections and lines by event (condition variables), never by sleeping."""
import json
import os
import socket
import threading

HELLO = {'type': 'hello', 'protocol': 1, 'server': 'parallaxd', 'version': '0.1.0', 'max_rate': 60}
STATE_OK = {'type': 'state', 'sensor': 'ok', 'reduce_motion': False, 'calibrated': True}


def line(obj):
    return (json.dumps(obj, separators=(',', ':')) + '\n').encode()


def offset_line(seq, x=0.0, y=0.0, t=None, **extra):
    frame = {'type': 'offset', 'seq': seq, 't': 1_000_000_000 + seq if t is None else t, 'x': x, 'y': y}
    frame.update(extra)
    return line(frame)


class Connection:
    def __init__(self, server, sock):
        self.server = server
        self.sock = sock
        self.commands = []            # decoded command lines the client sent, in order
        self.closed = False           # the client closed its end
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        buf = b''
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                data = b''
            if not data:
                with self._cond:
                    self.closed = True
                    self._cond.notify_all()
                return
            buf += data
            while b'\n' in buf:
                text, buf = buf.split(b'\n', 1)
                cmd = json.loads(text)
                # Answered before it is recorded: a test that awaits the command and then sends
                # (an offset frame) must not get its line in before the answer, as parallaxd never does.
                try:
                    self.server.on_command(self, cmd)
                except OSError:
                    pass   # the client (or the test) closed the connection before the answer
                with self._cond:
                    self.commands.append(cmd)
                    self._cond.notify_all()

    def wait_command(self, timeout=5.0):
        """The first command line, waiting for it (None on timeout)."""
        with self._cond:
            self._cond.wait_for(lambda: self.commands, timeout)
            return self.commands[0] if self.commands else None

    def wait_closed(self, timeout=5.0):
        with self._cond:
            return self._cond.wait_for(lambda: self.closed, timeout)

    def send(self, data):
        self.sock.sendall(data)

    def send_in_background(self, chunks):
        """sendall of each chunk from a thread, for more bytes than the socket buffer holds
        (chunks may be a generator, so a flood never sits in the test's memory)."""
        t = threading.Thread(target=lambda: self._send_quietly(chunks), daemon=True)
        t.start()
        return t

    def _send_quietly(self, chunks):
        try:
            for data in chunks:
                self.sock.sendall(data)
        except OSError:
            pass   # the client dropped the connection mid-flood: that is allowed

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class HostileServer:
    """Listens on `path`. With `answer=True` it greets every connection with hello and answers a
    subscribe like parallaxd (subscribed + state) and an unsubscribe (unsubscribed);
    `on_subscribe(conn, cmd)` and `on_unsubscribe(conn, cmd)` override that."""

    def __init__(self, path, answer=True, on_subscribe=None, on_unsubscribe=None):
        self.path = path
        self.answer = answer
        self.on_subscribe = on_subscribe
        self.on_unsubscribe = on_unsubscribe
        self.connections = []
        self._stopped = False
        self._cond = threading.Condition()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(16)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return   # stopped
            # Recorded before its reader starts and before the hello: the client's subscribe may
            # already be queued, and once it is answered, all the client does next (a pause, a
            # refusal read, a stop() that cuts it) must find this connection recorded. A connection
            # accepted while stop() runs is cut here, as the daemon's exit would cut it.
            with self._cond:
                if self._stopped:
                    sock.close()
                    return
                conn = Connection(self, sock)
                self.connections.append(conn)
                self._cond.notify_all()
            if self.answer:
                try:
                    conn.send(line(HELLO))
                except OSError:
                    pass   # the client left at once; it is still counted as a connection

    def on_command(self, conn, cmd):
        if cmd.get('cmd') == 'unsubscribe':
            if self.on_unsubscribe is not None:
                self.on_unsubscribe(conn, cmd)
            elif self.answer:
                conn.send(line(dict({'type': 'unsubscribed'}, **({'id': cmd['id']} if 'id' in cmd else {}))))
            return
        if cmd.get('cmd') != 'subscribe':
            return
        if self.on_subscribe is not None:
            self.on_subscribe(conn, cmd)
        elif self.answer:
            reply = {'type': 'subscribed', 'rate': min(cmd['rate'], 60), 'rotation': cmd['rotation']}
            if 'id' in cmd:
                reply['id'] = cmd['id']
            conn.send(line(reply) + line(STATE_OK))

    def wait_connection(self, index=0, timeout=5.0):
        """The index-th connection accepted, waiting for it (None on timeout)."""
        with self._cond:
            self._cond.wait_for(lambda: len(self.connections) > index, timeout)
            return self.connections[index] if len(self.connections) > index else None

    def stop(self):
        """Like a daemon going away: the listening socket disappears, connections are cut."""
        with self._cond:
            self._stopped = True
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        os.unlink(self.path)
        with self._cond:
            conns = list(self.connections)
        for c in conns:
            c.close()
