#!/usr/bin/env python3
"""A FAKE xdg-desktop-portal for the reduce-motion tests (no real portal or desktop runs here):
owns org.freedesktop.portal.Desktop on the session bus of DBUS_SESSION_BUS_ADDRESS and serves
org.freedesktop.portal.Settings ReadOne/Read for org.freedesktop.appearance reduced-motion
(uint32, 1 = reduce), emitting SettingChanged when told.

Usage: fake_portal.py INITIAL   then lines on stdin: `set N`. Prints `ready` once it owns the name
and `changed N` after each SettingChanged it emitted."""
import sys

from gi.repository import Gio, GLib

XML = '''<node><interface name="org.freedesktop.portal.Settings">
<method name="ReadOne"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
<method name="Read"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
<signal name="SettingChanged"><arg type="s"/><arg type="s"/><arg type="v"/></signal>
<property name="version" type="u" access="read"/>
</interface></node>'''
PATH = '/org/freedesktop/portal/desktop'
INTERFACE = 'org.freedesktop.portal.Settings'
value = int(sys.argv[1])
loop = GLib.MainLoop()
connection = None


def on_call(conn, sender, path, interface, method, params, invocation):
    namespace, key = params.unpack()
    if (namespace, key) != ('org.freedesktop.appearance', 'reduced-motion'):
        invocation.return_dbus_error('org.freedesktop.portal.Error.NotFound', 'no such setting')
        return
    inner = GLib.Variant('u', value)
    invocation.return_value(GLib.Variant('(v)', (inner if method == 'ReadOne' else GLib.Variant('v', inner),)))


def on_property(conn, sender, path, interface, name):
    return GLib.Variant('u', 2)


def on_stdin(channel, condition):
    global value
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    words = line.split()
    if words[:1] == ['set']:
        value = int(words[1])
        connection.emit_signal(None, PATH, INTERFACE, 'SettingChanged',
                               GLib.Variant('(ssv)', ('org.freedesktop.appearance', 'reduced-motion', GLib.Variant('u', value))))
        connection.flush_sync(None)
        print('changed', value, flush=True)
    return True


def on_bus(conn, name):
    global connection
    connection = conn
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    conn.register_object(PATH, info, on_call, on_property, None)


Gio.bus_own_name(Gio.BusType.SESSION, 'org.freedesktop.portal.Desktop', Gio.BusNameOwnerFlags.NONE,
                 on_bus, lambda conn, name: print('ready', flush=True), lambda conn, name: loop.quit())
GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, on_stdin)
loop.run()
