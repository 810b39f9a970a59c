"""A stand-in for systemd-logind on a private system bus: one graphical session, SESSION_ID, of
the caller's user. No logind runs here (systemd is not PID 1 where the wallpaper tests run), so
the lock screens that talk to logind, and the wallpaper that follows them, talk to this.

- KWin's screen locker (kscreenlocker 5.27, linked into kwin_wayland), LogindIntegration: without
  logind nothing but a password typed into the greeter unlocks a KDE session; logind's `Unlock`
  signal, which `loginctl unlock-session` makes logind send, is how a test ends the lock. It
  asks Manager.GetSession("auto") → the session's path, whose Lock/Unlock signals it connects;
  Session.SetLockedHint(b) when it locks and unlocks; Manager.Inhibit("sleep", …) → refused here.
- Phosh (0.24 and 0.46, screen-saver-manager.c): it finds its session's ID with sd-login
  (sd_pid_get_session, else sd_uid_get_display: the DISPLAY= of /run/systemd/users/UID, which
  phosh.py writes in phosh's private mount namespace), asks Manager.GetSession(ID) → the path,
  and calls SetLockedHint(b) there when its lock screen comes and goes; it also asks
  Manager.Inhibit (power key, sleep) → refused here.
- parallax-wallpaper (LogindSessionWatch.swift): Manager.GetSession("auto") → the path, then
  LockedHint (Properties.Get) and its PropertiesChanged signal.

As logind does, "auto" (the caller's session, else the user's display session: callers here are
in none) and SESSION_ID name the session, at the path logind gives it; SetLockedHint signals
PropertiesChanged(Session, {LockedHint}) on that path when the value changes.

Commands on stdin, one a line: `lock`, `unlock` (emit the session's signal). Answers on stdout:
`ready` once the name is owned, then `locked-hint true|false` each time a locker sets it."""
import sys

from gi.repository import Gio, GLib

SESSION_ID = 'c1'                # as logind names a session it did not get from PAM's seat
SESSION_PATH = '/org/freedesktop/login1/session/' + SESSION_ID
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
    <property name="Id" type="s" access="read"/>
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
        if params.unpack()[0] in ('auto', SESSION_ID):
            invocation.return_value(GLib.Variant('(o)', (SESSION_PATH,)))
        else:
            invocation.return_dbus_error('org.freedesktop.login1.NoSuchSession', 'No session %r known' % params.unpack()[0])
    else:
        invocation.return_dbus_error('org.freedesktop.DBus.Error.NotSupported', 'no sleep here to delay')


def on_session_call(connection, sender, path, interface, method, params, invocation):
    global locked_hint
    hint = params.unpack()[0]
    say('locked-hint %s' % ('true' if hint else 'false'))
    if hint != locked_hint:
        locked_hint = hint
        connection.emit_signal(None, SESSION_PATH, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                               GLib.Variant('(sa{sv}as)', (SESSION.name, {'LockedHint': GLib.Variant('b', hint)}, [])))
    invocation.return_value(None)


def on_session_property(connection, sender, path, interface, name):
    return GLib.Variant('s', SESSION_ID) if name == 'Id' else GLib.Variant('b', locked_hint)


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
