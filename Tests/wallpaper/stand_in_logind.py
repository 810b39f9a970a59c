"""A stand-in for systemd-logind on a private system bus, for KWin's screen locker (kscreenlocker
5.27, linked into kwin_wayland): just what its LogindIntegration uses. No logind runs here
(systemd is not PID 1 where the wallpaper tests run), and without one nothing but a password
typed into the greeter unlocks a KDE session: logind's `Unlock` signal, which `loginctl
unlock-session` makes logind send, is how a test ends the lock. The lock itself is KDE's own
(org.freedesktop.ScreenSaver.Lock on the session bus); this only stands in for the unlock.

What kscreenlocker asks (logind.cpp): Manager.GetSession("auto") → the session's path, whose
Lock/Unlock signals it connects; Session.SetLockedHint(b) when it locks and unlocks; the
LockedHint property; Manager.Inhibit("sleep", …) → refused here (no sleep to delay).

Commands on stdin, one a line: `lock`, `unlock` (emit the session's signal). Answers on stdout:
`ready` once the name is owned, then `locked-hint true|false` each time the locker sets it."""
import sys

from gi.repository import Gio, GLib

SESSION_PATH = '/org/freedesktop/login1/session/auto'
INTERFACES = Gio.DBusNodeInfo.new_for_xml('''
<node>
  <interface name="org.freedesktop.login1.Manager">
    <method name="GetSession"><arg type="s" direction="in"/><arg type="o" direction="out"/></method>
    <method name="Inhibit">
      <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="h" direction="out"/>
    </method>
    <signal name="PrepareForSleep"><arg type="b"/></signal>
  </interface>
  <interface name="org.freedesktop.login1.Session">
    <method name="SetLockedHint"><arg type="b" direction="in"/></method>
    <property name="LockedHint" type="b" access="read"/>
    <signal name="Lock"/>
    <signal name="Unlock"/>
  </interface>
</node>''')
MANAGER, SESSION = INTERFACES.interfaces

locked_hint = False


def say(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def on_manager_call(connection, sender, path, interface, method, params, invocation):
    if method == 'GetSession':
        invocation.return_value(GLib.Variant('(o)', (SESSION_PATH,)))
    else:
        invocation.return_dbus_error('org.freedesktop.DBus.Error.NotSupported', 'no sleep here to delay')


def on_session_call(connection, sender, path, interface, method, params, invocation):
    global locked_hint
    locked_hint = params.unpack()[0]
    say('locked-hint %s' % ('true' if locked_hint else 'false'))
    invocation.return_value(None)


def on_session_property(connection, sender, path, interface, name):
    return GLib.Variant('b', locked_hint)


def main():
    loop = GLib.MainLoop()
    bus = Gio.DBusConnection.new_for_address_sync(
        sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    bus.register_object('/org/freedesktop/login1', MANAGER, on_manager_call, None, None)
    bus.register_object(SESSION_PATH, SESSION, on_session_call, on_session_property, None)

    def command(channel, condition):
        line = channel.readline()
        if not line:
            loop.quit()
            return False
        word = line.strip()
        if word in ('lock', 'unlock'):
            bus.emit_signal(None, SESSION_PATH, 'org.freedesktop.login1.Session', word.capitalize(), None)
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.IO_IN | GLib.IO_HUP, command)
    Gio.bus_own_name_on_connection(bus, 'org.freedesktop.login1', Gio.BusNameOwnerFlags.NONE,
                                   lambda *a: say('ready'), lambda *a: (say('lost the name'), loop.quit()))
    loop.run()


if __name__ == '__main__':
    main()
