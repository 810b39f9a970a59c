import CLinux
import ParallaxIIO
import SystemPackage

/// Devices that appear — a sensor hub plugged in again, a driver loaded after the daemon
/// started, a Steam Deck's motion device made again once Steam let go of its hidraw node (under
/// a new event number) — are opened as soon as they are ready, not at the next retry.
///
/// Why: the retry back-off (0.5 s, doubling to 10 s) is for devices that fail to open; a hub
/// re-created 2 s after it was unplugged would otherwise wait for the 4 s retry. The events are
/// the kernel's (udev's never reach the installed service, `UdevReadiness`), so the open also
/// waits until udev has initialized every device that appeared: before that its node refuses the
/// daemon (EACCES) and hwdb's mount matrix is missing. A hub's sensors appear one by one
/// (`accel_3d` before `gyro_3d`), so the open waits until no further IIO device has appeared for
/// `settle`. The watch exists only while an arrival could change what is open: sensors wanted
/// from this machine, and none open or none of them a gyroscope. A still device with both open
/// pays nothing.
final class ArrivalWatch {
    /// How long after the last IIO device appeared the set counts as complete (ns).
    static let settle: Int64 = 150_000_000
    /// How often udev's database is looked at while a device waits for its rules (ns), and for
    /// how long at most (ns): udev's rules for a sensor take milliseconds on a machine, seconds
    /// in the emulated lab (a hub re-created makes a dozen events, each with its programs); a
    /// device udev never finishes with is opened anyway (and the retries handle a refusal).
    static let readinessLook: Int64 = 50_000_000
    static let readinessLimit: Int64 = 10_000_000_000

    let socket: UeventSocket
    let token: EventLoop.Token
    var settleTimer: EventLoop.TimerID?
    /// (subsystem, sysname) of the devices that appeared since the last open, and when the
    /// first of them was found settled but not yet initialized by udev.
    var appeared: [(subsystem: String, sysname: String)] = []
    var awaitingUdevSince: Int64?

    init(socket: UeventSocket, token: EventLoop.Token) {
        self.socket = socket
        self.token = token
    }
}

extension Supervisor {
    /// An arrival could change what is open: sensors wanted, from this machine's devices, and
    /// either none open (a retry waits) or none of the open ones a gyroscope.
    var arrivalsMatter: Bool {
        localDevices && demanded && (capture == nil || !sensors.contains { $0.kind == .gyroscope })
    }

    /// Opens or closes the watch as `arrivalsMatter` says; called wherever it may change.
    func updateArrivalWatch() {
        if arrivalsMatter {
            guard arrivals == nil else { return }
            guard let socket = UeventSocket(.kernel) else {
                logger.debug("device arrivals cannot be watched (no uevent socket): reopening on retries only")
                return
            }
            do {
                let token = try loop.watch(FileDescriptor(rawValue: socket.descriptor), events: PLX_EPOLLIN) { [unowned self] _ in
                    self.devicesAppeared()
                }
                arrivals = ArrivalWatch(socket: socket, token: token)
            } catch {
                logger.debug("device arrivals cannot be watched (\(error)): reopening on retries only")
            }
        } else if let watch = arrivals {
            if let timer = watch.settleTimer { loop.cancel(timer) }
            loop.unwatch(watch.token, fd: FileDescriptor(rawValue: watch.socket.descriptor))
            arrivals = nil
        }
    }

    private func devicesAppeared() {
        guard let watch = arrivals else { return }
        let (events, lost) = watch.socket.receive()
        let adds = events.filter { $0.action == "add" }
        // IIO devices, and input event nodes with motion sensors (INPUT_PROP_ACCELEROMETER).
        let iio = adds.compactMap(\.deviceID)
        let motion = adds.compactMap(\.inputEventNode).compactMap { EvdevMotionCandidate.describe(node: $0) }
        let added = iio + motion.map { "\($0.path) (\($0.name))" }
        guard !added.isEmpty || lost else { return }
        logger.debug("motion devices appeared: \(lost ? "(events lost)" : added.joined(separator: ", "))")
        watch.appeared += iio.map { ("iio", $0) } + motion.map { ("input", $0.node) }
        settleThenOpen(after: ArrivalWatch.settle)
    }

    private func settleThenOpen(after delay: Int64) {
        guard let watch = arrivals else { return }
        if let timer = watch.settleTimer { loop.cancel(timer) }
        watch.settleTimer = loop.schedule(at: plx_monotonic_ns() + delay) { [unowned self] in
            self.arrivals?.settleTimer = nil
            self.openOnceUdevIsDone()
        }
    }

    /// Opens once udev has initialized every device that appeared, or once it has had
    /// `readinessLimit` to do so.
    private func openOnceUdevIsDone() {
        guard let watch = arrivals else { return }
        let now = plx_monotonic_ns()
        let waiting = watch.appeared.filter { !UdevReadiness.isReady(subsystem: $0.subsystem, sysname: $0.sysname) }
        if !waiting.isEmpty {
            let since = watch.awaitingUdevSince ?? now
            watch.awaitingUdevSince = since
            if now - since < ArrivalWatch.readinessLimit {
                settleThenOpen(after: ArrivalWatch.readinessLook)
                return
            }
            logger.notice("udev has not finished with \(waiting.map(\.sysname).joined(separator: ", ")) after \(ArrivalWatch.readinessLimit / 1_000_000_000) s: opening anyway")
        }
        watch.appeared = []
        watch.awaitingUdevSince = nil
        openAppearedDevices()
    }

    private func openAppearedDevices() {
        guard arrivalsMatter else { return }
        if let retryTimer { loop.cancel(retryTimer); self.retryTimer = nil }
        retryDelay = Self.firstRetryDelay
        if capture != nil {
            logger.notice("a new motion device appeared: reopening the sensors to include it")
            // As a reload's reopen: the loop never waits for the old capture thread (it may be in
            // a read); a buffer it still holds makes the new open fail, and the retry follows.
            closeCapture()
        } else {
            logger.info("motion devices appeared: opening the sensors now")
        }
        open()
    }
}
