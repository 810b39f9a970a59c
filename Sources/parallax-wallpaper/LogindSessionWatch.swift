// logind's word on whether the user's graphical session is locked: the LockedHint property of its
// org.freedesktop.login1 session on the system bus, which the lock screens of Phosh, GNOME Shell
// and KDE set (Session.SetLockedHint) when they lock and unlock. Phosh 0.46's org.gnome.ScreenSaver
// Active follows the screen blank instead: woken, its lock screen stays up while it says inactive,
// so the shell's word alone would draw under the lock screen (docs/decisions.md "Issue 44").
//
// The session is logind's "auto": the caller's own session, or, for a caller in none (a systemd
// --user service, an autostarted program under a session manager of its own), the user's display
// session, the graphical one (org.freedesktop.login1(5)). Manager.GetSession("auto") answers its
// object path, on which logind signals PropertiesChanged when LockedHint changes. No logind, or no
// session: one log line, and the lock is the shell's word alone.

import CSystemd
import Glibc

final class LogindSessionWatch {
    static let service = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let managerInterface = "org.freedesktop.login1.Manager"
    static let sessionInterface = "org.freedesktop.login1.Session"
    static let property = "LockedHint"

    /// LockedHint changed.
    var lockedHintChanged: ((Bool) -> Void)?
    private(set) var lockedHint = false
    private let system: MessageBus
    private let log: (String) -> Void

    init(system: MessageBus, log: @escaping (String) -> Void) {
        self.system = system
        self.log = log
        system.lost.append { [weak self] in self?.set(lockedHint: false) }
        findSession()
    }

    /// GetSession("auto"), answered later with the session's object path.
    private func findSession() {
        guard let bus = system.bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.service, Self.managerPath, Self.managerInterface,
                                             "GetSession") >= 0 else { return }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), "auto")
        _ = sd_bus_call_async(bus, nil, message, { reply, data, _ in
            guard let reply, let data else { return 0 }
            Unmanaged<LogindSessionWatch>.fromOpaque(data).takeUnretainedValue().sessionFound(reply)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), 0)
    }

    private func sessionFound(_ reply: OpaquePointer) {
        if let error = sd_bus_message_get_error(reply), sd_bus_error_is_set(error) != 0 {
            let name = error.pointee.name.map { String(cString: $0) } ?? "an error"
            let text = error.pointee.message.map { ": " + String(cString: $0) } ?? ""
            log("no logind session to follow (\(name)\(text)): the lock is the shell's word alone")
            return
        }
        var path: UnsafePointer<CChar>?
        guard let bus = system.bus, sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &path) > 0, let path else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The match first, then the read: a change between the two is not lost.
        _ = sd_bus_match_signal_async(bus, nil, Self.service, path, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                      { message, data, _ in
                                          guard let message, let data else { return 0 }
                                          Unmanaged<LogindSessionWatch>.fromOpaque(data).takeUnretainedValue().propertiesChanged(message)
                                          return 0
                                      }, nil, me)
        askLockedHint(path: path)
    }

    /// Properties.Get(Session, LockedHint), answered later.
    private func askLockedHint(path: UnsafePointer<CChar>) {
        guard let bus = system.bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.service, path, "org.freedesktop.DBus.Properties",
                                             "Get") >= 0 else { return }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), Self.sessionInterface)
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), Self.property)
        _ = sd_bus_call_async(bus, nil, message, { reply, data, _ in
            guard let reply, let data, sd_bus_message_is_method_error(reply, nil) == 0 else { return 0 }
            Unmanaged<LogindSessionWatch>.fromOpaque(data).takeUnretainedValue().readLockedHint(in: reply)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque(), 0)
    }

    /// PropertiesChanged(s interface, a{sv} changed, as invalidated): LockedHint's new value, or a
    /// new read when it is only said to be invalid.
    private func propertiesChanged(_ message: OpaquePointer) {
        var interface: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &interface) > 0, let interface,
              String(cString: interface) == Self.sessionInterface,
              sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}") > 0
        else { return }
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            var name: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &name) > 0, let name else { return }
            if String(cString: name) == Self.property {
                readLockedHint(in: message)
            } else if sd_bus_message_skip(message, "v") < 0 {
                return
            }
            guard sd_bus_message_exit_container(message) >= 0 else { return }
        }
        guard sd_bus_message_exit_container(message) >= 0,
              sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s") > 0 else { return }
        var invalidated: UnsafePointer<CChar>?
        while sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &invalidated) > 0, let name = invalidated {
            if String(cString: name) == Self.property, let path = sd_bus_message_get_path(message) {
                askLockedHint(path: path)
            }
        }
    }

    /// A variant holding LockedHint's boolean (Get's answer, or PropertiesChanged's entry).
    private func readLockedHint(in message: OpaquePointer) {
        var value: Int32 = 0
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), "b") > 0 else { return }
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 else { return }
        _ = sd_bus_message_exit_container(message)
        set(lockedHint: value != 0)
    }

    private func set(lockedHint newValue: Bool) {
        guard newValue != lockedHint else { return }
        lockedHint = newValue
        lockedHintChanged?(newValue)
    }
}
