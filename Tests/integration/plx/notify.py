"""A stand-in for systemd's NOTIFY_SOCKET that collects the daemon's sd_notify messages."""
import os
import select
import socket
import threading
import time


# ---------------------------------------------------------------------------------------------
# sd_notify receiver

class NotifySocket:
    """An AF_UNIX datagram socket standing in for systemd's NOTIFY_SOCKET; collects every message
    in a background thread so tests can wait for READY=1, WATCHDOG=1, STOPPING=1… by event."""

    def __init__(self, path):
        self.path = path
        if os.path.exists(path):
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.messages = []          # (monotonic arrival, {key: value}, raw text)
        self._cond = threading.Condition()
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._run, name='notify', daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            r, _, _ = select.select([self.sock, self._stop_r], [], [])
            if self._stop_r in r:
                return
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            text = data.decode('utf-8', 'replace')
            fields = {}
            for line in text.split('\n'):
                if '=' in line:
                    k, v = line.split('=', 1)
                    fields[k] = v
            with self._cond:
                self.messages.append((time.monotonic(), fields, text))
                self._cond.notify_all()

    def wait_for(self, pred, timeout, since=0, abort=None):
        """First message (index ≥ since) whose fields satisfy pred, or None on timeout.
        `abort()` is checked between wakeups (e.g. 'the process died')."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                for _, fields, _ in self.messages[since:]:
                    if pred(fields):
                        return fields
                since = len(self.messages)
                left = end - time.monotonic()
                if left <= 0 or (abort is not None and abort()):
                    return None
                # Short waits only so a dead process is noticed; messages wake us at once.
                self._cond.wait(min(left, 0.1))

    def count(self):
        with self._cond:
            return len(self.messages)

    def close(self):
        os.write(self._stop_w, b'x')
        self._thread.join(2)
        self.sock.close()
        os.close(self._stop_r)
        os.close(self._stop_w)
        try:
            os.unlink(self.path)
        except OSError:
            pass
