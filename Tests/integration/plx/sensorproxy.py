"""A stand-in for iio-sensor-proxy on a private system bus: a dbus-daemon of its own and the
proxy's bus name, owned and released at will (the daemon follows NameOwnerChanged,
docs/sensors.md "Beside iio-sensor-proxy"). Nothing of the real proxy runs: only its presence
on the bus is imitated; the real one is tested in the lab (Tests/lab/test_installed.py)."""
import os
import subprocess
import tempfile

NAME = 'net.hadess.SensorProxy'


class FakeSensorProxyBus:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='plx-bus-', dir='/tmp')
        os.chmod(self.dir, 0o755)
        self.address = 'unix:path=%s/system_bus_socket' % self.dir
        self.proc = subprocess.Popen(['dbus-daemon', '--config-file=/usr/share/dbus-1/session.conf', '--nofork',
                                      '--address=' + self.address, '--print-address'],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # The address line is printed once it listens.
        self.proc.stdout.readline()
        self.owner = None

    @property
    def env(self):
        """The environment that makes sd_bus_open_system() reach this bus."""
        return {'DBUS_SYSTEM_BUS_ADDRESS': self.address}

    def own(self):
        """The proxy starts: a connection of its own requests the name (NameOwnerChanged)."""
        from gi.repository import Gio, GLib
        assert self.owner is None
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        conn = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        reply = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                               GLib.Variant('(su)', (NAME, 4)), GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, 5000, None)
        assert reply.unpack()[0] == 1, 'the fake proxy did not become the primary owner'
        self.owner = conn

    def release(self):
        """The proxy stops: its connection closes and the name has no owner."""
        self.owner.close_sync(None)
        self.owner = None

    def close(self):
        if self.owner is not None:
            self.release()
        self.proc.terminate()
        self.proc.wait(timeout=10)
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)
