import CSystemd
import Glibc

/// Whether iio-sensor-proxy runs: its well-known name on the system bus has an owner.
///
/// Why ask: its udev mark (BufferClaim) says it is installed, not that it reads the buffer; a
/// stopped or masked service leaves the mark, and the buffer would stay unused by anyone.
public enum SensorProxyBus {
    /// iio-sensor-proxy's bus name.
    public static let name = "net.hadess.SensorProxy"
    /// Longest a look-up may block the capture thread (µs): the bus daemon answers in well under
    /// a millisecond; a stuck one must not hold an open.
    static let callTimeout: UInt64 = 500_000

    /// true or false from the system bus; nil when there is none to ask (a container, a
    /// sandbox without it, a test bed). Blocks for the call: the capture thread only.
    public static func isRunning() -> Bool? {
        var bus: OpaquePointer?
        guard sd_bus_open_system(&bus) >= 0, let bus else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        _ = sd_bus_set_method_call_timeout(bus, callTimeout)
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error); sd_bus_message_unref(reply) }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "NameHasOwner") >= 0 else { return nil }
        defer { sd_bus_message_unref(message) }
        guard sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), name) >= 0,
              sd_bus_call(bus, message, callTimeout, &error, &reply) >= 0, let reply else { return nil }
        var owned: Int32 = 0
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &owned) > 0 else { return nil }
        return owned != 0
    }
}
