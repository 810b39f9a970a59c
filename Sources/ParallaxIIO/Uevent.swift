import CLinux
import Glibc

/// One device event from the kernel or from udev: what happened to which device.
public struct Uevent: Sendable, Equatable {
    public var action: String
    /// "/devices/…/iio:device0"
    public var devpath: String
    public var subsystem: String

    public init(action: String, devpath: String, subsystem: String) {
        self.action = action
        self.devpath = devpath
        self.subsystem = subsystem
    }

    /// From the NUL-separated KEY=VALUE fields of a uevent; nil when ACTION or DEVPATH is missing.
    public init?(properties: some Sequence<UInt8>) {
        var fields: [String: String] = [:]
        for field in properties.split(separator: 0) {
            guard let eq = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: field[field.startIndex..<eq], as: UTF8.self)
            guard key == "ACTION" || key == "DEVPATH" || key == "SUBSYSTEM" else { continue }
            fields[key] = String(decoding: field[field.index(after: eq)...], as: UTF8.self)
        }
        guard let action = fields["ACTION"], let devpath = fields["DEVPATH"] else { return nil }
        self.init(action: action, devpath: devpath, subsystem: fields["SUBSYSTEM"] ?? "")
    }

    /// "event5" for an input event node's event (the motion device's node is
    /// `/dev/input/event5`; EvdevMotionCandidate tells whether it is one).
    public var inputEventNode: String? {
        guard subsystem == "input", let last = devpath.split(separator: "/").last, last.hasPrefix("event") else { return nil }
        return String(last)
    }

    /// "iio:device0" for an IIO device's event.
    public var deviceID: String? {
        guard subsystem == "iio", let last = devpath.split(separator: "/").last, last.hasPrefix("iio:device") else { return nil }
        return String(last)
    }
}

/// A netlink socket of device events (the kernel's, or udev's once its rules ran), read without
/// blocking: the owner waits for `descriptor` to become readable, then calls `receive()`.
public final class UeventSocket {
    public enum Source: Sendable {
        /// The kernel's own events: the moment a device exists or is gone.
        case kernel
        /// systemd-udevd's, sent after its rules ran: a new device node has its owner and mode.
        /// Multicast in the host's network namespace only (UdevReadiness says why that matters).
        case udev
    }

    public let descriptor: Int32
    public let source: Source
    private var buffer = [CChar](repeating: 0, count: 8192)

    /// nil when no netlink socket can be had (e.g. a sandbox without AF_NETLINK).
    public init?(_ source: Source) {
        let fd = plx_uevent_socket(source == .kernel ? PLX_UEVENT_KERNEL : PLX_UEVENT_UDEV)
        guard fd >= 0 else { return nil }
        descriptor = fd
        self.source = source
    }

    deinit { Glibc.close(descriptor) }

    /// Every queued event, and whether some were lost (the socket's queue overflowed).
    public func receive() -> (events: [Uevent], lost: Bool) {
        var events: [Uevent] = []
        var lost = false
        while true {
            var start = 0
            let n = buffer.withUnsafeMutableBufferPointer { plx_uevent_receive(descriptor, $0.baseAddress, $0.count, &start) }
            if n == -2 { lost = true; continue }
            if n == -3 { continue }
            guard n > 0 else { return (events, lost) }
            if let event = Uevent(properties: buffer[start..<Int(n)].lazy.map { UInt8(bitPattern: $0) }) {
                events.append(event)
            }
        }
    }
}
