import CLinux
import Logging
import ParallaxIIO
import SystemPackage

/// Motion devices appearing on this machine — a sensor hub plugged in again, a driver loaded
/// after the daemon started, a Steam Deck's motion device made again once Steam let go of its
/// hidraw node (under a new event number) — told to its owner once the set has settled and udev
/// is done with them.
///
/// Why: the retry back-off (0.5 s, doubling to 10 s) is for devices that fail to open; a hub
/// re-created 2 s after it was unplugged would otherwise wait for the 4 s retry. The events are
/// the kernel's (udev's never reach the installed service, `UdevReadiness`), so the owner also
/// hears only once udev has initialized every device that appeared: before that its node refuses
/// the daemon (EACCES) and hwdb's mount matrix is missing. A hub's sensors appear one by one
/// (`accel_3d` before `gyro_3d`), so the owner hears of them once no further device has appeared
/// for `settle`. What to do then (open, reopen) is the owner's (`Supervisor+Arrivals.swift`).
final class ArrivalWatch {
    /// How long after the last motion device appeared the set counts as complete (ns).
    static let settle: Int64 = 150_000_000
    /// How often udev's database is looked at while a device waits for its rules (ns), and for
    /// how long at most (ns): udev's rules for a sensor take milliseconds on a machine, seconds
    /// in the emulated lab (a hub re-created makes a dozen events, each with its programs); a
    /// device udev never finishes with is told anyway (and the owner's retries handle a refusal).
    static let readinessLook: Int64 = 50_000_000
    static let readinessLimit: Int64 = 10_000_000_000

    private let loop: EventLoop
    private let logger: Logger
    private let socket: UeventSocket
    private var token: EventLoop.Token?
    private var settleTimer: EventLoop.TimerID?
    private let settled: () -> Void
    /// (subsystem, sysname) of the devices that appeared since the owner was last told, and when
    /// the first of them was found settled but not yet initialized by udev.
    private var appeared: [(subsystem: String, sysname: String)] = []
    private var awaitingUdevSince: Int64?

    /// Devices appeared that the owner has not been told of yet: its own retry would meet their
    /// nodes before udev's rules (EACCES), so it holds off while this is true.
    var isAwaitingDevices: Bool { !appeared.isEmpty }

    /// Watches until `close()`; nil (logged) when the kernel's events cannot be had: the owner
    /// then reopens on its retries only.
    init?(loop: EventLoop, logger: Logger, settled: @escaping () -> Void) {
        guard let socket = UeventSocket(.kernel) else {
            logger.debug("device arrivals cannot be watched (no uevent socket): reopening on retries only")
            return nil
        }
        self.loop = loop
        self.logger = logger
        self.socket = socket
        self.settled = settled
        do {
            token = try loop.watch(FileDescriptor(rawValue: socket.descriptor), events: PLX_EPOLLIN) { [unowned self] _ in
                self.devicesAppeared()
            }
        } catch {
            logger.debug("device arrivals cannot be watched (\(error)): reopening on retries only")
            return nil
        }
    }

    /// Stops watching (the socket closes with this object).
    func close() {
        if let settleTimer { loop.cancel(settleTimer); self.settleTimer = nil }
        if let token { loop.unwatch(token, fd: FileDescriptor(rawValue: socket.descriptor)); self.token = nil }
    }

    private func devicesAppeared() {
        let (events, lost) = socket.receive()
        let adds = events.filter { $0.action == "add" }
        // IIO devices, and input event nodes with motion sensors (INPUT_PROP_ACCELEROMETER).
        let iio = adds.compactMap(\.deviceID)
        let motion = adds.compactMap(\.inputEventNode).compactMap { EvdevMotionCandidate.describe(node: $0) }
        let added = iio + motion.map { "\($0.path) (\($0.name))" }
        guard !added.isEmpty || lost else { return }
        logger.debug("motion devices appeared: \(lost ? "(events lost)" : added.joined(separator: ", "))")
        appeared += iio.map { ("iio", $0) } + motion.map { ("input", $0.node) }
        lookAgain(after: Self.settle)
    }

    private func lookAgain(after delay: Int64) {
        if let settleTimer { loop.cancel(settleTimer) }
        settleTimer = loop.schedule(at: plx_monotonic_ns() + delay) { [unowned self] in
            self.settleTimer = nil
            self.tellOnceUdevIsDone()
        }
    }

    /// Tells the owner once udev has initialized every device that appeared, or once it has had
    /// `readinessLimit` to do so.
    private func tellOnceUdevIsDone() {
        let now = plx_monotonic_ns()
        let waiting = appeared.filter { !UdevReadiness.isReady(subsystem: $0.subsystem, sysname: $0.sysname) }
        if !waiting.isEmpty {
            let since = awaitingUdevSince ?? now
            awaitingUdevSince = since
            if now - since < Self.readinessLimit {
                lookAgain(after: Self.readinessLook)
                return
            }
            logger.notice("udev has not finished with \(waiting.map(\.sysname).joined(separator: ", ")) after \(Self.readinessLimit / 1_000_000_000) s: opening anyway")
        }
        appeared = []
        awaitingUdevSince = nil
        settled()
    }
}
