import CLinux
import CSystemd
import Glibc
import Logging
import ParallaxIIO
import SystemPackage

/// iio-sensor-proxy starting and stopping, on the event loop: from its name on the system bus
/// (NameOwnerChanged) and from its systemd unit's ActiveState (PropertiesChanged). sd-bus does the
/// D-Bus work on its own descriptor, nothing here blocks.
///
/// Why: an accelerometer's buffer is iio-sensor-proxy's while it runs (BufferClaim). When it
/// stops (`systemctl stop`, masked), parallaxd takes the buffer within moments instead of at its
/// next open. When it starts, the buffer must be free before it owns its name, since it opens its
/// buffers right then and exits when none opens (SensorProxyBus): the unit's `activating` is the
/// first news of a start, and the packages' drop-in for its unit waits there until the buffer is
/// handed back (systemd/parallaxd-before-sensor-proxy).
final class SensorProxyWatch {
    private let bus: OpaquePointer
    private let loop: EventLoop
    private let logger: Logger
    private var token: EventLoop.Token?
    /// What the bus said last: whether the name has an owner, the unit's ActiveState (nil until known).
    private var nameOwned: Bool?
    private var unitState: String?
    /// What `changed` was told last (nil: nothing yet).
    private var reported: Bool?
    /// Whether iio-sensor-proxy runs or is starting, as last told; nil until the bus answered.
    var runningOrStarting: Bool? { reported }
    /// Called with whether it now runs or is starting.
    private let changed: (Bool) -> Void

    private var running: Bool {
        nameOwned == true || unitState.map(SensorProxyBus.unitHoldsSensors) == true
    }

    /// Connects to the system bus, subscribes and asks for the current state; nil when there is no
    /// bus (the udev mark alone then decides at each open, as BufferClaim says).
    init?(loop: EventLoop, logger: Logger, changed: @escaping (Bool) -> Void) {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            logger.debug("no system bus (\(String(cString: strerror(-result)))): iio-sensor-proxy is looked for only at each open")
            return nil
        }
        self.bus = bus
        self.loop = loop
        self.logger = logger
        self.changed = changed
        let me = Unmanaged.passUnretained(self).toOpaque()
        let nameRule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(SensorProxyBus.name)'"
        let unitRule = "type='signal',sender='org.freedesktop.systemd1',path='\(SensorProxyBus.unitPath)',"
            + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='org.freedesktop.systemd1.Unit'"
        // Slots are floating (nil): they live as long as the bus, which deinit closes, so no
        // callback outlives self.
        guard sd_bus_add_match_async(bus, nil, nameRule, { message, data, _ in
                  guard let message, let data else { return 0 }
                  SensorProxyWatch.watch(data).ownerChanged(message)
                  return 0
              }, nil, me) >= 0,
              sd_bus_add_match_async(bus, nil, unitRule, { message, data, _ in
                  guard let message, let data else { return 0 }
                  SensorProxyWatch.watch(data).unitPropertiesChanged(message)
                  return 0
              }, nil, me) >= 0 else {
            sd_bus_flush_close_unref(bus)
            return nil
        }
        // systemd sends unit signals only once someone subscribed; the current values follow,
        // after the matches, so that no change falls between them.
        callAsync("org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "Subscribe", [],
                  reply: nil)
        callAsync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [SensorProxyBus.name]) {
            message, data, _ in
            guard let message, let data, sd_bus_message_is_method_error(message, nil) == 0 else { return 0 }
            var owned: Int32 = 0
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &owned) > 0 else { return 0 }
            let watch = SensorProxyWatch.watch(data)
            if watch.nameOwned == nil { watch.nameOwned = owned != 0 }
            watch.report()
            return 0
        }
        callAsync("org.freedesktop.systemd1", SensorProxyBus.unitPath, "org.freedesktop.DBus.Properties", "Get",
                  ["org.freedesktop.systemd1.Unit", "ActiveState"]) { message, data, _ in
            guard let message, let data, sd_bus_message_is_method_error(message, nil) == 0,
                  let state = SensorProxyBus.readStringVariant(message) else { return 0 }
            let watch = SensorProxyWatch.watch(data)
            if watch.unitState == nil { watch.unitState = state }
            watch.report()
            return 0
        }
        do {
            token = try loop.watch(FileDescriptor(rawValue: sd_bus_get_fd(bus)), events: PLX_EPOLLIN) { [unowned self] _ in
                self.process()
            }
        } catch {
            logger.debug("the system bus cannot be watched (\(error)): iio-sensor-proxy is looked for only at each open")
            sd_bus_flush_close_unref(bus)
            return nil
        }
        process()
    }

    deinit {
        if let token { loop.unwatch(token, fd: FileDescriptor(rawValue: sd_bus_get_fd(bus))) }
        sd_bus_flush_close_unref(bus)
    }

    private static func watch(_ data: UnsafeMutableRawPointer) -> SensorProxyWatch {
        Unmanaged<SensorProxyWatch>.fromOpaque(data).takeUnretainedValue()
    }

    /// A method call with string arguments whose reply (if any is wanted) comes to `reply` with self.
    private func callAsync(_ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [String],
                           reply: sd_bus_message_handler_t?) {
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0, let message else { return }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            guard sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), argument) >= 0 else { return }
        }
        _ = sd_bus_call_async(bus, nil, message, reply, Unmanaged.passUnretained(self).toOpaque(), 0)
    }

    /// Handles whatever the bus has for us; a lost bus just ends the watch's news.
    private func process() {
        while sd_bus_process(bus, nil) > 0 {}
    }

    /// Tells `changed` when running-or-starting differs from what it was told last.
    private func report() {
        logger.debug("iio-sensor-proxy: its name \(nameOwned.map { $0 ? "owned" : "free" } ?? "not known yet"), its unit \(unitState ?? "not known yet")")
        guard running != reported else { return }
        reported = running
        changed(running)
    }

    /// NameOwnerChanged(name, old owner, new owner): owned when the new owner is not empty.
    private func ownerChanged(_ message: OpaquePointer) {
        var name: UnsafePointer<CChar>?
        var old: UnsafePointer<CChar>?
        var new: UnsafePointer<CChar>?
        let s = CChar(UInt8(ascii: "s"))
        guard sd_bus_message_read_basic(message, s, &name) > 0, sd_bus_message_read_basic(message, s, &old) > 0,
              sd_bus_message_read_basic(message, s, &new) > 0, let name, let new,
              String(cString: name) == SensorProxyBus.name else { return }
        nameOwned = new.pointee != 0
        report()
    }

    /// PropertiesChanged("org.freedesktop.systemd1.Unit", {name: value}, [invalidated]): the
    /// ActiveState among the changed values, when it is there.
    private func unitPropertiesChanged(_ message: OpaquePointer) {
        var interface: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &interface) > 0,
              sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return }
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            var key: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &key) > 0, let key else { return }
            if String(cString: key) == "ActiveState", let state = SensorProxyBus.readStringVariant(message) {
                unitState = state
            } else if sd_bus_message_skip(message, "v") < 0 {
                return
            }
            guard sd_bus_message_exit_container(message) >= 0 else { return }
        }
        report()
    }
}
