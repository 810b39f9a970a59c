import CLinux
import Glibc
import Synchronization

/// The moment a capture thread has let go of its devices: it closed its driver (or handed the
/// source to the loop) and is about to end. A new capture of the same devices waits for it
/// before it opens them (`wait`), on its own thread.
///
/// Why: the loop never waits for a capture it replaces (a read in progress may take seconds on a
/// failing HID hub or a remote context), so without this the new open and the old close cross.
/// The old close then disables the buffer the new one just enabled, or removes the hrtimer
/// trigger the new one just adopted (HrtimerTrigger.adopt), and the new capture gets no data.
/// A real kernel refuses a second open of a busy buffer (EBUSY: PreviousCaptureHold), but the
/// trigger is set up before that, and an emulated device (umockdev) refuses nothing.
public final class CaptureEnd: Sendable {
    /// Longest a new open waits for the old capture (ns): its slowest step is a HID hub's
    /// synchronous read (the kernel gives a failing hub 5 s; 2 s is generous for a working one).
    public static let longestWait: Int64 = 2_000_000_000
    /// Between looks (ns) when no eventfd could be had.
    static let step: Int64 = 10_000_000

    /// Whether it has ended, and the eventfd a waiter made (readable once ended, and stays so):
    /// made only when someone waits, which is rare (a reopen), so a capture costs no descriptor.
    private let state = Mutex<(ended: Bool, signal: Int32)>((false, -1))

    public init() {}

    deinit {
        let fd = state.withLock { $0.signal }
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Called by whoever closed the source, after its last touch of the devices.
    public func markEnded() {
        state.withLock { s in
            s.ended = true
            if s.signal >= 0 { _ = plx_eventfd_signal(s.signal) }
        }
    }

    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Blocks until ended, at most `timeout` ns; true when it has ended. Never on the loop.
    public func wait(upTo timeout: Int64) -> Bool {
        let signal = state.withLock { s -> Int32? in
            if s.ended { return nil }
            if s.signal < 0 { s.signal = plx_eventfd() }
            return s.signal
        }
        guard let signal else { return true }
        let deadline = MonotonicClock.now().saturatingAdding(max(0, timeout))
        while !hasEnded {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { return false }
            if signal >= 0 {
                var fds = pollfd(fd: signal, events: Int16(POLLIN), revents: 0)
                _ = poll(&fds, 1, Int32(clamping: (left + 999_999) / 1_000_000))
            } else {
                var pause = timespec(tv_sec: 0, tv_nsec: Int(min(left, Self.step)))
                nanosleep(&pause, nil)
            }
        }
        return true
    }
}
