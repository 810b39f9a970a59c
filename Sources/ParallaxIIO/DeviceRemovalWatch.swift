import CLinux
import Glibc

/// Tells the capture that one of its IIO devices was removed (a sensor hub unplugged, its driver
/// unbound), through the kernel's uevents.
///
/// Why: a kernel buffer whose device is unregistered never becomes readable again (poll() reports
/// nothing once the device's info is gone), so a capture thread sleeping on it at rest — no
/// timeout, by design: 0 wake-ups while the device lies still — would never learn that its
/// sensors are gone, and the daemon would say "ok" forever. The uevent socket joins the buffers
/// in the capture's wait set: a removal wakes it at once, nothing else costs a wake-up at rest
/// (uevents are rare; one for another device costs one look).
final class DeviceRemovalWatch {
    /// The socket; readable when uevents are queued.
    let descriptor: Int32
    /// "/iio:device0", … : the devpath endings of the watched devices.
    private let endings: [String]

    /// nil when the kernel's uevents cannot be received (no netlink socket allowed, e.g. a
    /// sandbox without AF_NETLINK): the capture then learns of a removal only from a failed read.
    init?(deviceIDs: [String]) {
        let fd = plx_uevent_socket()
        guard fd >= 0 else { return nil }
        descriptor = fd
        endings = deviceIDs.map { "/" + $0 }
    }

    deinit { Glibc.close(descriptor) }

    /// Reads every queued uevent; returns the watched device that was removed, if one was.
    /// A lost uevent (queue overflow) is answered with the first device: the caller reopens, and a
    /// device still there opens again at once.
    func removedDevice() -> String? {
        var header = [CChar](repeating: 0, count: 512)
        var removed: String?
        while true {
            let rc = plx_uevent_next(descriptor, &header, header.count)
            if rc <= 0 { return removed }
            if rc == 2 {
                removed = removed ?? endings.first.map { String($0.dropFirst()) + " (uevents lost)" }
                continue
            }
            let text = header.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard text.hasPrefix("remove@") else { continue }
            if let ending = endings.first(where: { text.hasSuffix($0) }) {
                removed = removed ?? String(ending.dropFirst())
            }
        }
    }
}
