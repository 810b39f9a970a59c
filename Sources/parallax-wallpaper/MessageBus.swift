// One of the wallpaper's two D-Bus connections, each shared by what listens there: the session
// bus (the desktop's reduced-motion setting, DesktopMotionPreference; the desktop shell,
// DesktopShellWatch) and the system bus (logind's lock state, LogindSessionWatch). sd-bus
// (libsystemd) does the D-Bus work on its own descriptor, which sits in the wallpaper's poll loop:
// nothing here blocks except `hasOwner`, one round trip asked once at start, and an idle bus
// wakes nobody.

import CSystemd
import Glibc

final class MessageBus {
    enum Kind {
        case session, system

        /// What is not followed without this bus (the log says so once).
        var unfollowed: String {
            switch self {
            case .session: return "the desktop's reduced-motion setting, lock screen and shell are"
            case .system: return "logind's lock state (LockedHint) is"
            }
        }
    }

    let kind: Kind
    private(set) var bus: OpaquePointer?
    private let log: (String) -> Void
    /// Runs once when the connection is lost (each listener falls back to its default).
    var lost: [() -> Void] = []

    /// Connects to the bus; nil (after one log line) when there is none.
    init?(_ kind: Kind, log: @escaping (String) -> Void) {
        self.kind = kind
        self.log = log
        var bus: OpaquePointer?
        let result = kind == .session ? sd_bus_open_user(&bus) : sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            log("no \(kind) bus (\(String(cString: strerror(-result)))): \(kind.unfollowed) not followed")
            return nil
        }
        self.bus = bus
    }

    deinit {
        if let bus { sd_bus_flush_close_unref(bus) }
    }

    var fileDescriptor: Int32 { bus.map { sd_bus_get_fd($0) } ?? -1 }

    var pollEvents: Int16 {
        guard let bus else { return 0 }
        let events = sd_bus_get_events(bus)
        return events > 0 ? Int16(events) : Int16(POLLIN)
    }

    /// Milliseconds until sd-bus has a timeout to handle (a pending call's), nil for none.
    var timeoutMilliseconds: Int32? {
        guard let bus else { return nil }
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        return usec <= nowUsec ? 0 : Int32(clamping: (usec - nowUsec + 999) / 1_000)
    }

    /// Handles whatever the bus has for us.
    func process() {
        guard let bus else { return }
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 {
                log("\(kind) bus lost (\(String(cString: strerror(-result)))): \(kind.unfollowed) no longer followed")
                sd_bus_flush_close_unref(bus)
                self.bus = nil
                lost.forEach { $0() }
                return
            }
            if result == 0 { return }
        }
    }

    /// Whether `name` has an owner on the bus now: one blocking round trip (the bus daemon answers
    /// at once), for the decisions that must come before anything is shown.
    func hasOwner(_ name: String) -> Bool {
        guard let bus else { return false }
        var reply: OpaquePointer?
        var error = sd_bus_error()
        defer {
            sd_bus_error_free(&error)
            if let reply { sd_bus_message_unref(reply) }
        }
        var call: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "NameHasOwner") >= 0 else { return false }
        defer { sd_bus_message_unref(call) }
        _ = sd_bus_message_append_basic(call, CChar(UInt8(ascii: "s")), name)
        guard sd_bus_call(bus, call, 0, &error, &reply) >= 0, let reply else { return false }
        var owned: Int32 = 0
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &owned) > 0 else { return false }
        return owned != 0
    }
}
