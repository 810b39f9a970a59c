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
    private let socket: UeventSocket
    private let deviceIDs: Set<String>

    /// The socket; readable when uevents are queued.
    var descriptor: Int32 { socket.descriptor }

    /// nil when the kernel's uevents cannot be received: the capture then learns of a removal
    /// only from a failed read.
    init?(deviceIDs: [String]) {
        guard let socket = UeventSocket(.kernel) else { return nil }
        self.socket = socket
        self.deviceIDs = Set(deviceIDs)
    }

    /// Reads every queued uevent; returns the watched device that was removed, if one was.
    /// Lost uevents (queue overflow) are answered with the first device: the caller reopens, and
    /// a device still there opens again at once.
    func removedDevice() -> String? {
        let (events, lost) = socket.receive()
        if let gone = events.first(where: { $0.action == "remove" && $0.deviceID.map(deviceIDs.contains) == true }) {
            return gone.deviceID
        }
        return lost ? deviceIDs.sorted().first.map { $0 + " (uevents lost)" } : nil
    }
}
