import CSystemd
import Glibc

/// Whether iio-sensor-proxy runs, or is starting: its well-known name on the system bus has an
/// owner, or systemd has its unit on the way up.
///
/// Why ask: its udev mark (BufferClaim) says it is installed, not that it reads the buffer; a
/// stopped or masked service leaves the mark, and the buffer would stay unused by anyone.
/// Why the unit too: iio-sensor-proxy opens its buffers the moment it owns its name, in the same
/// turn of its loop; whoever holds a buffer then makes it fail, and with no sensor left it exits.
/// Its unit is `activating` from before it runs, long enough to hand a buffer back first.
public enum SensorProxyBus {
    /// iio-sensor-proxy's bus name.
    public static let name = "net.hadess.SensorProxy"
    /// Its systemd unit, and that unit's object path (systemd escapes `-` and `.` as _2d, _2e).
    public static let unitName = "iio-sensor-proxy.service"
    public static let unitPath = "/org/freedesktop/systemd1/unit/iio_2dsensor_2dproxy_2eservice"
    /// Longest a look-up may block the capture thread (µs): the bus daemon answers in well under
    /// a millisecond; a stuck one must not hold an open.
    static let callTimeout: UInt64 = 500_000

    /// Whether a unit in this `ActiveState` may hold or be about to open a buffer: from its start
    /// (`activating`: ExecStartPre, then the process before it owns its name) until its process
    /// has ended (`deactivating` still runs it).
    public static func unitHoldsSensors(activeState: String) -> Bool {
        ["activating", "active", "reloading", "deactivating"].contains(activeState)
    }

    /// true or false from the system bus; nil when there is none to ask (a container, a
    /// sandbox without it, a test bed). Blocks for the calls: the capture thread only.
    public static func isRunning() -> Bool? {
        var bus: OpaquePointer?
        guard sd_bus_open_system(&bus) >= 0, let bus else { return nil }
        defer { sd_bus_flush_close_unref(bus) }
        _ = sd_bus_set_method_call_timeout(bus, callTimeout)
        let owned = nameHasOwner(bus)
        let state = unitActiveState(bus)
        if owned == true || state.map(unitHoldsSensors) == true { return true }
        return owned == nil && state == nil ? nil : false
    }

    private static func nameHasOwner(_ bus: OpaquePointer) -> Bool? {
        call(bus, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
             member: "NameHasOwner", arguments: [name]) { reply in
            var owned: Int32 = 0
            return sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &owned) > 0 ? owned != 0 : nil
        }
    }

    /// The unit's ActiveState; systemd answers for any unit name, `inactive` for one not installed.
    private static func unitActiveState(_ bus: OpaquePointer) -> String? {
        call(bus, destination: "org.freedesktop.systemd1", path: unitPath, interface: "org.freedesktop.DBus.Properties",
             member: "Get", arguments: ["org.freedesktop.systemd1.Unit", "ActiveState"]) { reply in
            readStringVariant(reply)
        }
    }

    /// Reads a variant holding a string (`v` of `s`) at the message's cursor.
    public static func readStringVariant(_ message: OpaquePointer) -> String? {
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), "s") > 0 else { return nil }
        var value: UnsafePointer<CChar>?
        let read = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value)
        _ = sd_bus_message_exit_container(message)
        guard read > 0, let value else { return nil }
        return String(cString: value)
    }

    /// One method call with string arguments; nil when it cannot be made or fails.
    private static func call<T>(_ bus: OpaquePointer, destination: String, path: String, interface: String, member: String,
                                arguments: [String], read: (OpaquePointer) -> T?) -> T? {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0,
              let message else { return nil }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            guard sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), argument) >= 0 else { return nil }
        }
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error); sd_bus_message_unref(reply) }
        guard sd_bus_call(bus, message, callTimeout, &error, &reply) >= 0, let reply else { return nil }
        return read(reply)
    }
}
