import Glibc

/// A buffer this daemon still holds through a capture it is replacing: a reopen (iio-sensor-proxy
/// stopped, a device came back) waits for the old capture's end (CaptureEnd.swift), but no longer
/// than `CaptureEnd.longestWait`; an old capture still in its read after that holds the buffer
/// with our own descriptor. Busy by another process means polling; busy by ourselves means a
/// short wait.
enum PreviousCaptureHold {
    /// Longest wait for our own old capture to let go (ns): a HID hub's synchronous read is the
    /// slowest thing it can be in (up to the kernel's 5 s wait is a failing hub; 2 s is generous
    /// for a working one).
    static let longestWait: Int64 = 2_000_000_000
    /// Between looks (ns): /proc gives no event for a descriptor being closed.
    static let step: Int64 = 10_000_000

    /// Whether this process has `node` (`/dev/iio:deviceN`) open.
    static func holds(node: String) -> Bool {
        guard let dir = opendir("/proc/self/fd") else { return false }
        defer { closedir(dir) }
        var target = [UInt8](repeating: 0, count: 256)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true else { continue }
            let n = target.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { readlink("/proc/self/fd/" + name, $0.baseAddress!, $0.count) }
            }
            if n > 0, String(decoding: target[..<n], as: UTF8.self) == node { return true }
        }
        return false
    }

    /// Waits until this process no longer holds `node`, at most `longestWait`; true when it was
    /// held and is free now (worth trying again), false when it was not ours or stayed held.
    static func awaitRelease(of node: String, shouldStop: () -> Bool = { false }) -> Bool {
        guard holds(node: node) else { return false }
        let deadline = MonotonicClock.now() + longestWait
        while MonotonicClock.now() < deadline && !shouldStop() {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(step))
            nanosleep(&pause, nil)
            if !holds(node: node) { return true }
        }
        return false
    }
}
