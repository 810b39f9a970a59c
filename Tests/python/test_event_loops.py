"""parallax.Client driven by a real GLib main loop and a real asyncio loop (watch_glib,
watch_asyncio): no daemon at start, then one appears, sends, goes away and comes back.
The daemon is the FAKE in hostile_server.py (here it behaves), so its comings and goings can be
scripted; a thread plays it while the loop under test runs in the main thread."""
import asyncio
import threading

import pytest

import parallax
from hostile_server import HostileServer, line, offset_line

# How long a scenario may take before the test gives up (s): two back-off rounds and slack.
SCENARIO_TIMEOUT = 20
# The second daemon's frame, recognisable by its x.
COMEBACK_X = 0.75


class Scenario:
    """The daemon's side: absent at first, then up (three frames), gone, back (one frame).
    `seen` is set by the loop under test when it has the first daemon's last frame."""

    def __init__(self, path):
        self.path = path
        self.seen_first = threading.Event()
        self.subscribes = []
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            first = HostileServer(self.path)
            conn = first.wait_connection(0, timeout=SCENARIO_TIMEOUT)
            self.subscribes.append(conn.wait_command())
            conn.send(offset_line(1, x=0.1) + offset_line(2, x=0.2) + offset_line(3, x=0.3))
            self.seen_first.wait(SCENARIO_TIMEOUT)
            first.stop()
            self.second = second = HostileServer(self.path)   # set before the frame ends the test
            conn = second.wait_connection(0, timeout=SCENARIO_TIMEOUT)
            self.subscribes.append(conn.wait_command())
            conn.send(offset_line(1, x=COMEBACK_X))
        except Exception as e:   # reported by the test, not lost in a thread
            self.error = e


class Recorder:
    """on_change for the watch: remembers what the loop saw, tells the scenario and the loop."""

    def __init__(self, scenario, quit_loop):
        self.scenario = scenario
        self.quit_loop = quit_loop
        self.offsets = []
        self.connected_changes = []

    def __call__(self, client):
        if not self.connected_changes or self.connected_changes[-1] != client.state.connected:
            self.connected_changes.append(client.state.connected)
        o = client.offset
        if o is not None and (not self.offsets or self.offsets[-1] != o):
            self.offsets.append(o)
            if o.seq == 3:
                self.scenario.seen_first.set()
            if o.x == COMEBACK_X:
                self.quit_loop()


def check(scenario, recorder):
    assert scenario.error is None, scenario.error
    assert recorder.offsets and recorder.offsets[-1].x == COMEBACK_X, recorder.offsets
    assert 3 in [o.seq for o in recorder.offsets]
    assert recorder.connected_changes == [True, False, True], recorder.connected_changes
    assert len(scenario.subscribes) == 2 and scenario.subscribes[0] == scenario.subscribes[1]
    assert (scenario.subscribes[1]['rate'], scenario.subscribes[1]['rotation']) == (20, 180)
    scenario.second.stop()


def test_glib_main_loop(sock_path):
    from gi.repository import GLib
    loop = GLib.MainLoop()
    scenario = Scenario(sock_path)
    recorder = Recorder(scenario, loop.quit)
    client = parallax.Client(sock_path, rate=20, rotation=180)
    assert client.fileno() == -1
    watch = parallax.watch_glib(client, recorder)
    scenario.thread.start()
    timed_out = []
    GLib.timeout_add_seconds(SCENARIO_TIMEOUT, lambda: timed_out.append(1) or loop.quit())
    loop.run()
    assert not timed_out, 'the GLib loop never got the second daemon\'s frame: %r %r' % (recorder.offsets, client.state)
    check(scenario, recorder)
    watch.cancel()
    client.close()


def test_asyncio_loop(sock_path):
    async def main():
        done = asyncio.Event()
        scenario = Scenario(sock_path)
        recorder = Recorder(scenario, done.set)
        client = parallax.Client(sock_path, rate=20, rotation=180)
        watch = parallax.watch_asyncio(client, recorder)
        scenario.thread.start()
        try:
            await asyncio.wait_for(done.wait(), SCENARIO_TIMEOUT)
        except asyncio.TimeoutError:
            pytest.fail('the asyncio loop never got the second daemon\'s frame: %r %r' % (recorder.offsets, client.state))
        check(scenario, recorder)
        watch.cancel()
        client.close()
    asyncio.run(main())


def refusing_server(path):
    def refuse(conn, cmd):
        conn.send(line({'type': 'error', 'code': 'permission_denied', 'id': cmd['id'], 'message': 'not for you'}))
    return HostileServer(path, on_subscribe=refuse)


def test_glib_watch_reports_access_denied_and_lets_the_loop_idle(sock_path):
    from gi.repository import GLib
    server = refusing_server(sock_path)
    loop = GLib.MainLoop()
    denials = []
    client = parallax.Client(sock_path)
    parallax.watch_glib(client, lambda c: None, lambda c, e: (denials.append(str(e)), loop.quit()))
    GLib.timeout_add_seconds(SCENARIO_TIMEOUT, loop.quit)
    loop.run()
    assert denials == ['permission_denied: not for you']
    # The watch now waits for the client's one-minute retry: a non-blocking iteration dispatches
    # no source (a leftover watch on the closed descriptor would fire at once, again and again).
    context = GLib.MainContext.default()
    assert not context.iteration(False)
    assert server.wait_connection(1, timeout=0.5) is None, 'the refused client reconnected'
    client.close()
    server.stop()


def test_asyncio_watch_reports_access_denied(sock_path):
    server = refusing_server(sock_path)

    async def main():
        denied = asyncio.Event()
        client = parallax.Client(sock_path)
        parallax.watch_asyncio(client, lambda c: None, lambda c, e: denied.set())
        await asyncio.wait_for(denied.wait(), SCENARIO_TIMEOUT)
        assert client.fileno() == -1 and 59 < client.timeout() <= 60
        client.close()
    asyncio.run(main())
    assert server.wait_connection(1, timeout=0.5) is None, 'the refused client reconnected'
    server.stop()


def test_asyncio_watch_reconnect_rewatches_a_reused_descriptor(sock_path, monkeypatch):
    """reconnect() closes the socket and opens a new one, which usually gets the same number;
    epoll (asyncio's selector) dropped the closed one, so the watch must register it afresh.
    (The handshake deadline would wake the loop anyway; it is set beyond the test's patience.)"""
    monkeypatch.setattr(parallax._client, 'HANDSHAKE_TIMEOUT', 10 * SCENARIO_TIMEOUT)
    server = HostileServer(sock_path)

    async def main():
        got = asyncio.Event()
        client = parallax.Client(sock_path)
        watch = parallax.watch_asyncio(client, lambda c: c.offset is not None and c.offset.x == COMEBACK_X and got.set())
        first = server.wait_connection(0)
        assert first.wait_command() is not None
        # The server's thread may take the freed number first (it accepts in this process):
        # reconnect until the new socket reuses the old one's, the case under test.
        for attempt in range(1, 11):
            old_fd = client.fileno()
            watch.reconnect()
            second = server.wait_connection(attempt)
            assert second.wait_command() is not None
            if client.fileno() == old_fd:
                break
        else:
            raise AssertionError('in 10 reconnects the new socket never got the old number; this test needs it')
        second.send(offset_line(1, x=COMEBACK_X))
        await asyncio.wait_for(got.wait(), SCENARIO_TIMEOUT)
        watch.cancel()
        client.close()
    asyncio.run(main())
    server.stop()
