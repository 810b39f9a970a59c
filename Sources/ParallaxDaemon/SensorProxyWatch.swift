import CLinux
import CSystemd
import Glibc
import Logging
import ParallaxIIO
import SystemPackage

/// iio-sensor-proxy starting and stopping, from its name on the system bus (NameOwnerChanged),
/// on the event loop: sd-bus does the D-Bus work on its own descriptor, nothing here blocks.
///
/// Why: an accelerometer's buffer is iio-sensor-proxy's while it runs (BufferClaim). When it
/// stops (`systemctl stop`, masked), parallaxd takes the buffer within moments instead of at its
/// next open; when it comes back, parallaxd gives the buffer back before it is needed.
final class SensorProxyWatch {
    private let bus: OpaquePointer
    private let loop: EventLoop
    private var token: EventLoop.Token?
    private var slot: OpaquePointer?
    /// Called with whether it now runs.
    private let changed: (Bool) -> Void

    /// Connects to the system bus and subscribes; nil when there is none (the udev mark alone
    /// then decides at each open, as BufferClaim says).
    init?(loop: EventLoop, logger: Logger, changed: @escaping (Bool) -> Void) {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            logger.debug("no system bus (\(String(cString: strerror(-result)))): iio-sensor-proxy is looked for only at each open")
            return nil
        }
        self.bus = bus
        self.loop = loop
        self.changed = changed
        let rule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(SensorProxyBus.name)'"
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard sd_bus_add_match_async(bus, &slot, rule, { message, data, _ in
            guard let message, let data else { return 0 }
            Unmanaged<SensorProxyWatch>.fromOpaque(data).takeUnretainedValue().ownerChanged(message)
            return 0
        }, nil, me) >= 0 else {
            sd_bus_flush_close_unref(bus)
            return nil
        }
        do {
            token = try loop.watch(FileDescriptor(rawValue: sd_bus_get_fd(bus)), events: PLX_EPOLLIN) { [unowned self] _ in
                self.process()
            }
        } catch {
            logger.debug("the system bus cannot be watched (\(error)): iio-sensor-proxy is looked for only at each open")
            sd_bus_slot_unref(slot)
            sd_bus_flush_close_unref(bus)
            return nil
        }
        process()
    }

    deinit {
        if let token { loop.unwatch(token, fd: FileDescriptor(rawValue: sd_bus_get_fd(bus))) }
        sd_bus_slot_unref(slot)
        sd_bus_flush_close_unref(bus)
    }

    /// Handles whatever the bus has for us; a lost bus just ends the watch's news.
    private func process() {
        while sd_bus_process(bus, nil) > 0 {}
    }

    /// NameOwnerChanged(name, old owner, new owner): running when the new owner is not empty.
    private func ownerChanged(_ message: OpaquePointer) {
        var name: UnsafePointer<CChar>?
        var old: UnsafePointer<CChar>?
        var new: UnsafePointer<CChar>?
        let s = CChar(UInt8(ascii: "s"))
        guard sd_bus_message_read_basic(message, s, &name) > 0, sd_bus_message_read_basic(message, s, &old) > 0,
              sd_bus_message_read_basic(message, s, &new) > 0, let name, let new,
              String(cString: name) == SensorProxyBus.name else { return }
        changed(new.pointee != 0)
    }
}
