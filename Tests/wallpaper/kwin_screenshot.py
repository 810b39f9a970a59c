#!/usr/bin/env python3
"""Screenshots of headless KWin for the tests (kwin.py): KWin 5.27 has no wlr-screencopy, so this
asks its D-Bus interface org.kde.KWin.ScreenShot2, which writes the raw pixels into a pipe whose
write end goes with the call (gdbus cannot pass a descriptor; Gio can). KWin answers only a caller
whose executable a .desktop file lists with X-KDE-DBUS-Restricted-Interfaces (kwin.py writes it).

Runs on the session bus of DBUS_SESSION_BUS_ADDRESS, one request per stdin line:
  `workspace PATH` or `screen NAME PATH`: writes the pixels to PATH and prints
  `ok WIDTH HEIGHT STRIDE FORMAT` (FORMAT is a QImage format: 5/6 = ARGB32 in native byte order),
  or `error MESSAGE`. Prints `ready` first."""
import os
import sys
import time

from gi.repository import Gio, GLib

bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)


def capture(method, args, path):
    read_end, write_end = os.pipe()
    fds = Gio.UnixFDList.new()
    index = fds.append(write_end)
    os.close(write_end)
    # Device pixels, not the logical size: the fractional-scale test measures them.
    options = {'native-resolution': GLib.Variant('b', True)}
    signature = '(' + 's' * len(args) + 'a{sv}h)'
    try:
        reply, _ = bus.call_with_unix_fd_list_sync(
            'org.kde.KWin', '/org/kde/KWin/ScreenShot2', 'org.kde.KWin.ScreenShot2', method,
            GLib.Variant(signature, tuple(args) + (options, index)), GLib.VariantType('(a{sv})'),
            Gio.DBusCallFlags.NONE, 20000, fds, None)
    except GLib.Error as error:
        os.close(read_end)
        return 'error ' + error.message.replace('\n', ' ')
    del fds          # our copy of the write end: KWin holds its own until it has written
    info = reply.unpack()[0]
    with open(read_end, 'rb') as pipe, open(path, 'wb') as out:
        while True:
            chunk = pipe.read(1 << 20)
            if not chunk:
                break
            out.write(chunk)
    return 'ok %d %d %d %d' % (info['width'], info['height'], info['stride'], info['format'])


def wait_for_kwin():
    """Returns once KWin owns its name on the bus (it takes it a moment after its socket)."""
    loop = GLib.MainLoop()
    watch = Gio.bus_watch_name_on_connection(bus, 'org.kde.KWin', Gio.BusNameWatcherFlags.NONE,
                                             lambda *_: loop.quit(), None)
    loop.run()
    Gio.bus_unwatch_name(watch)


def capture_when_ready(method, args, path, deadline_s=20):
    """capture(), retried while KWin's screenshot effect is still loading (its object is made
    after the name is taken)."""
    end = time.monotonic() + deadline_s
    while True:
        answer = capture(method, args, path)
        if not ('UnknownObject' in answer or 'UnknownMethod' in answer or 'ServiceUnknown' in answer) \
                or time.monotonic() > end:
            return answer
        time.sleep(0.05)


wait_for_kwin()
print('ready', flush=True)
for line in sys.stdin:
    words = line.split()
    if words[:1] == ['workspace'] and len(words) == 2:
        answer = capture_when_ready('CaptureWorkspace', [], words[1])
    elif words[:1] == ['screen'] and len(words) == 3:
        answer = capture_when_ready('CaptureScreen', [words[1]], words[2])
    else:
        answer = 'error bad request ' + line.strip()
    print(answer, flush=True)
