#!/usr/bin/env python3
"""Calls D-Bus methods on the Plasma session's bus for the tests, run as the session's account: a
session bus lets only its own account connect, and the tests run as root. One request a line on
stdin, one answer a line on stdout (JSON):

    {"dest": NAME, "path": PATH, "method": "INTERFACE.MEMBER", "signature": "(s)", "args": [...],
     "timeout": SECONDS}
    → {"ok": true, "value": [...]} | {"ok": false, "error": "TEXT"}

`ready` is printed once the bus is connected. Standard library and GObject introspection only."""
import json
import sys

from gi.repository import Gio, GLib


def call(bus, request):
    interface, _, member = request['method'].rpartition('.')
    signature = request.get('signature')
    parameters = GLib.Variant(signature, tuple(request.get('args', []))) if signature else None
    reply = bus.call_sync(request['dest'], request['path'], interface, member, parameters, None,
                          Gio.DBusCallFlags.NONE, int(request.get('timeout', 30) * 1000), None)
    return reply.unpack() if reply is not None else []


def main():
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    print('ready', flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = {'ok': True, 'value': list(call(bus, json.loads(line)))}
        except GLib.Error as e:
            answer = {'ok': False, 'error': e.message}
        except (ValueError, KeyError, TypeError) as e:
            answer = {'ok': False, 'error': 'bad request: %s' % e}
        print(json.dumps(answer), flush=True)


if __name__ == '__main__':
    main()
