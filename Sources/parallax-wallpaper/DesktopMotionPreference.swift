// The desktop's reduced-motion preference through xdg-desktop-portal: org.freedesktop.portal.Settings
// on the session bus, namespace org.freedesktop.appearance, key reduced-motion (uint32, 1 = reduce).
// Read once with ReadOne (Read on portals older than version 2) and followed through the
// SettingChanged signal, on the wallpaper's session bus connection (MessageBus): nothing here
// blocks.

import CSystemd
import Glibc

final class DesktopMotionPreference {
    static let service = "org.freedesktop.portal.Desktop"
    static let objectPath = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.Settings"
    static let namespace = "org.freedesktop.appearance"
    static let key = "reduced-motion"

    /// Runs when `reduceMotion` changed.
    var changed: (() -> Void)?
    private(set) var reduceMotion = false
    private let session: MessageBus
    private let log: (String) -> Void

    init(session: MessageBus, log: @escaping (String) -> Void) {
        self.session = session
        self.log = log
        session.lost.append { [weak self] in self?.set(false) }
        guard let bus = session.bus else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = sd_bus_match_signal_async(bus, nil, Self.service, Self.objectPath, Self.interface, "SettingChanged",
                                      { message, data, _ in
                                          guard let message, let data else { return 0 }
                                          Unmanaged<DesktopMotionPreference>.fromOpaque(data).takeUnretainedValue().settingChanged(message)
                                          return 0
                                      }, nil, me)
        ask(method: "ReadOne")
    }

    private func ask(method: String) {
        guard let bus = session.bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, Self.service, Self.objectPath, Self.interface, method) >= 0 else { return }
        defer { sd_bus_message_unref(message) }
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), Self.namespace)
        _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), Self.key)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let callback: sd_bus_message_handler_t = method == "ReadOne"
            ? { reply, data, _ in
                guard let reply, let data else { return 0 }
                Unmanaged<DesktopMotionPreference>.fromOpaque(data).takeUnretainedValue().answered(reply, fallback: true)
                return 0
            }
            : { reply, data, _ in
                guard let reply, let data else { return 0 }
                Unmanaged<DesktopMotionPreference>.fromOpaque(data).takeUnretainedValue().answered(reply, fallback: false)
                return 0
            }
        _ = sd_bus_call_async(bus, nil, message, callback, me, 0)
    }

    private func answered(_ reply: OpaquePointer, fallback: Bool) {
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            let name = error?.pointee.name.map { String(cString: $0) } ?? "an error"
            if fallback && name == "org.freedesktop.DBus.Error.UnknownMethod" {
                ask(method: "Read")   // portals before Settings version 2
                return
            }
            if name != "org.freedesktop.portal.Error.NotFound" {
                log("the desktop portal has no reduced-motion setting (\(name)); following the daemon's state only")
            }
            return
        }
        if let value = Self.readUInt32(in: reply) { set(value == 1) }
    }

    private func settingChanged(_ message: OpaquePointer) {
        var namespace: UnsafePointer<CChar>?
        var key: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &namespace) > 0,
              sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &key) > 0,
              let namespace, let key,
              String(cString: namespace) == Self.namespace, String(cString: key) == Self.key
        else { return }
        if let value = Self.readUInt32(in: message) { set(value == 1) }
    }

    /// Reads a uint32 wrapped in one or more variants (ReadOne: v; Read: v of v).
    private static func readUInt32(in message: OpaquePointer) -> UInt32? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        var depth = 0
        while sd_bus_message_peek_type(message, &type, &contents) > 0, type == CChar(UInt8(ascii: "v")), let inner = contents, depth < 4 {
            guard sd_bus_message_enter_container(message, type, inner) > 0 else { return nil }
            depth += 1
        }
        guard type == CChar(UInt8(ascii: "u")) else { return nil }
        var value: UInt32 = 0
        guard sd_bus_message_read_basic(message, type, &value) > 0 else { return nil }
        return value
    }

    private func set(_ reduce: Bool) {
        guard reduce != reduceMotion else { return }
        reduceMotion = reduce
        log("the desktop's reduced-motion setting is \(reduce ? "on" : "off")")
        changed?()
    }
}
