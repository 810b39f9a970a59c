"""Driving a Client from a GLib or asyncio main loop (docs/client-kit.md "Python").

Both helpers follow the same rule, which is all a hand-written integration needs too:
after every dispatch(), watch fileno() if it is not -1 (it changes with each reconnection) and,
if timeout() is not None, call dispatch() again after that many seconds.

Neither imports anything at module level: gi and asyncio are loaded only by the helper used."""
import math

from ._client import AccessDenied


class _Watch:
    """What both loop helpers share: dispatch, report, then arm the fd watch and the timer."""

    def __init__(self, client, on_change, on_denied):
        self.client = client
        self._on_change = on_change
        self._on_denied = on_denied
        self._fd = -1
        self._cancelled = False

    def _dispatch(self):
        if self._cancelled:
            return
        try:
            if self.client.dispatch():
                self._on_change(self.client)
        except AccessDenied as e:
            # The client asks again by itself after its retry delay; the timer below keeps time.
            if self._on_denied is not None:
                self._on_denied(self.client, e)
        self._arm()

    def _arm(self):
        if self._cancelled:
            return
        fd = self.client.fileno()
        if fd != self._fd:
            self._unwatch_fd()
            if fd >= 0:
                self._watch_fd(fd)
                self._fd = fd
        # One timer at most, always for the client's current deadline (a reconnect is due sooner
        # than the handshake deadline it replaces, for example).
        self._stop_timer()
        wait = self.client.timeout()
        if wait is not None:
            self._start_timer(wait)

    def reconnect(self):
        """client.reconnect() for a watched client: the new socket may reuse the old number, so
        the watch on it is made afresh (an epoll-based loop forgets a closed descriptor)."""
        self.client.reconnect()
        self._unwatch_fd()
        self._arm()

    def cancel(self):
        """Stops watching (the Client stays open; close it yourself)."""
        self._cancelled = True
        self._unwatch_fd()
        self._stop_timer()

    def _unwatch_fd(self):
        if self._fd >= 0:
            self._remove_fd_watch()
            self._fd = -1


class GLibWatch(_Watch):
    """See watch_glib."""

    def __init__(self, client, on_change, on_denied, priority):
        super().__init__(client, on_change, on_denied)
        from gi.repository import GLib
        self._glib = GLib
        self._priority = priority
        self._fd_source = 0
        self._timer = 0
        self._dispatch()

    def _watch_fd(self, fd):
        GLib = self._glib
        self._fd_source = GLib.unix_fd_add_full(self._priority, fd,
                                                GLib.IOCondition.IN | GLib.IOCondition.HUP | GLib.IOCondition.ERR,
                                                self._on_fd)

    def _remove_fd_watch(self):
        if self._fd_source:
            self._glib.source_remove(self._fd_source)
            self._fd_source = 0

    def _on_fd(self, fd, condition):
        source = self._fd_source
        self._dispatch()
        # _arm removed this source when the descriptor changed; keep it only if it is still ours.
        return self._fd_source == source and source != 0

    def _start_timer(self, seconds):
        self._timer = self._glib.timeout_add(math.ceil(seconds * 1000), self._on_timer, priority=self._priority)

    def _stop_timer(self):
        if self._timer:
            self._glib.source_remove(self._timer)
            self._timer = 0

    def _on_timer(self):
        self._timer = 0
        self._dispatch()
        return False


class AsyncioWatch(_Watch):
    """See watch_asyncio."""

    def __init__(self, client, on_change, on_denied, loop):
        super().__init__(client, on_change, on_denied)
        if loop is None:
            import asyncio
            loop = asyncio.get_running_loop()
        self._loop = loop
        self._timer = None
        self._dispatch()

    def _watch_fd(self, fd):
        self._loop.add_reader(fd, self._dispatch)

    def _remove_fd_watch(self):
        self._loop.remove_reader(self._fd)

    def _start_timer(self, seconds):
        self._timer = self._loop.call_later(seconds, self._on_timer)

    def _stop_timer(self):
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self):
        self._timer = None
        self._dispatch()


def watch_glib(client, on_change, on_denied=None, priority=0):
    """Dispatches `client` from the thread-default GLib main context (GLib.MainLoop, GTK): calls
    on_change(client) whenever a new offset or state arrived, on_denied(client, AccessDenied)
    each time the daemon refuses this process (the client asks again every 60 s). Returns a
    watch with .cancel(). `priority` is the GLib source priority (0 = GLib.PRIORITY_DEFAULT)."""
    return GLibWatch(client, on_change, on_denied, priority)


def watch_asyncio(client, on_change, on_denied=None, loop=None):
    """The same for an asyncio loop (the running loop when `loop` is None): add_reader on the
    connection's descriptor, call_later for the reconnection back-off."""
    return AsyncioWatch(client, on_change, on_denied, loop)
