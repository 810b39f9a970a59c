import CIIO
import CLinux
import Glibc
import Logging
import ParallaxMotion
import SystemPackage

/// Reads an accelerometer and a gyroscope through the kernel's IIO buffers: each device samples
/// on its own trigger and the kernel queues scans, each with its own timestamp, in
/// /dev/iio:deviceN. One buffer for a combined IMU, one per device for a HID sensor hub's
/// `accel_3d` and `gyro_3d`, merged in time order (docs/sensors.md "Split devices"). Versus
/// polling: no missed or doubled samples, one read per batch instead of six sysfs reads per
/// sample (on a HID hub each is a round trip to the hub's firmware), and sample times taken
/// when the sensor measured.
///
/// Open with `IIOBufferedDriver.open`, which says why when buffered capture is not possible so
/// that the caller can poll instead (docs/sensors.md).
public final class IIOBufferedDriver: SensorDriver {
    /// Scans per libiio buffer: the most one refill returns. Reads are non-blocking, so this
    /// bounds the batch, not the latency (a refill returns as soon as one scan is queued).
    public static let scansPerRefill = 16
    /// Scans the kernel queues for us (buffer/length): at 200 Hz, 1.28 s. libiio sets 4 × 16,
    /// too little for a reader that sleeps between frames (SamplePacing.swift); a HID
    /// hub's buffer starts at 2 and silently drops what does not fit.
    public static let kernelQueueScans = 256
    /// A capture none of whose devices delivers anything for this long (ns) counts as lost, so
    /// that the supervisor reopens it (and polls if the buffer still stays silent). Never at
    /// rest: a hub told to report only real changes is silent by design then.
    public static let stallLimit: Int64 = 2_000_000_000
    /// How long to wait for data in one poll() (ms): bounds how late `shouldStop` is noticed.
    static let pollSliceMilliseconds: Int32 = 50

    public let sensors: [SensorDescription]
    /// One stream per device buffer: one for a combined IMU or an accelerometer alone, two for
    /// a HID hub's separate accelerometer and gyroscope (DeviceStream.swift).
    let streams: [DeviceStream]
    /// An accelerometer read through sysfs because iio-sensor-proxy holds its buffer, while the
    /// gyroscope's own device is buffered (PolledAccelerometer.swift); its merger lane follows the streams'.
    let polledAccel: PolledAccelerometer?
    /// The streams' samples in time order (SampleMerger.swift); lane i is `streams[i]`, then
    /// the polled accelerometer's.
    var merger: SampleMerger
    /// An epoll descriptor over every stream's buffer: readable when any of them is, so that
    /// its reader (the event loop, or a capture thread) waits on one descriptor whatever the
    /// number of devices.
    let readiness: Int32
    /// Kernel uevents for local devices, in `readiness` too: a removal wakes a capture that
    /// sleeps at rest (DeviceRemovalWatch.swift). nil for remote contexts or without netlink.
    let removalWatch: DeviceRemovalWatch?
    /// While the devices rest, the pace they rest at (IIOBufferedDriver+Rest.swift), and
    /// whether a hub reported a change since.
    var restPace: RestPace?
    var motionReported = false
    /// The still samples a hub's silence stood for, then the report that ended it, handed out
    /// in that order (IIOBufferedDriver+Rest.swift `takeResting`).
    var heldBeforeMotion: [Sample] = []
    let logger: Logger
    /// Time of the sample `nextSample` / `takeQueued` last returned.
    private var lastReturned: Int64 = 0
    /// The devices are this machine's (`local:`): reading their buffers never blocks. A remote
    /// context's refill is a network round trip.
    let readsLocally: Bool
    /// The event loop waited on `descriptor` for the next take's scans (`descriptorBecameReadable`).
    var nextTakeWaited = false

    /// Why buffered capture did not start; the caller logs it and polls.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public var reason: String
        /// Nothing to capture at all (no context, no accelerometer): polling will say so itself.
        public var nothingToCapture = false
        public var description: String { reason }
    }

    /// Opens buffered capture, or says why not. `firstDataTimeout` (ns): every device's buffer
    /// must deliver its first scan within it (a device whose trigger never fires delivers nothing).
    public static func open(settings: IIOSettings, firstDataTimeout: Int64, logger: Logger,
                            shouldStop: () -> Bool = { false }) -> Result<IIOBufferedDriver, Unavailable> {
        do throws(Unavailable) {
            let driver = try IIOBufferedDriver(settings: settings, logger: logger)
            let deadline = MonotonicClock.now() + firstDataTimeout
            var silent = Set(driver.streams.indices)
            while !silent.isEmpty {
                if MonotonicClock.now() >= deadline || shouldStop() {
                    driver.close()
                    let names = silent.sorted().map { driver.streams[$0].device.id }.joined(separator: ", ")
                    return .failure(Unavailable(reason: "no buffered data within \(firstDataTimeout / 1_000_000) ms from \(names) (is the trigger running?)"))
                }
                do {
                    _ = driver.wait(milliseconds: pollSliceMilliseconds)
                    for i in silent where try driver.refill(lane: i, waited: false) > 0 { silent.remove(i) }
                } catch {
                    driver.close()
                    return .failure(Unavailable(reason: "the buffer failed before its first scan: \(error.message)"))
                }
            }
            let now = MonotonicClock.now()
            for stream in driver.streams { stream.lastData = now }
            return .success(driver)
        } catch {
            return .failure(error)
        }
    }

    private init(settings: IIOSettings, logger: Logger) throws(Unavailable) {
        self.logger = logger
        let context: IIOContext
        do {
            context = try IIOContext(uri: settings.uri)
        } catch {
            throw Unavailable(reason: error.message, nothingToCapture: true)
        }
        let isLocal = settings.uri == "local:"
        readsLocally = isLocal
        let found = IIODiscovery.find(in: context.devices, isLocal: isLocal, logger: logger)
        guard let accelChannels = found.accel else { throw Unavailable(reason: "no accelerometer", nothingToCapture: true) }
        let accelDevice = accelChannels.device
        // iio-sensor-proxy holds the accelerometer's buffer: a gyroscope on a device of its own
        // (a HID hub's gyro_3d, which it never reads) is still buffered, the accelerometer read
        // through sysfs beside it; one device for both, or no gyroscope, is polled whole.
        var claim: String?
        if isLocal, let mark = udevProperty(device: accelDevice.id, BufferClaim.sensorProxyProperty) {
            claim = BufferClaim.claim(deviceID: accelDevice.id, deviceName: accelDevice.name, sensorProxyType: mark,
                                      sensorProxyRunning: SensorProxyBus.isRunning())
        }
        if let claim, found.gyro.map({ $0.device.id == accelDevice.id }) ?? true {
            throw Unavailable(reason: claim)
        }

        // Mount matrices first: the gyroscope's frame follows the accelerometer's.
        let lookup = MountMatrixLookup(logger: logger)
        var resolved: [(kind: SensorKind, channels: IIODiscovery.Channels, axis: TriAxis, matrix: MountMatrix, source: String, frame: SensorFrame, notes: [String])] = []
        for (kind, channels) in [(SensorKind.accelerometer, accelChannels)] + (found.gyro.map { [(SensorKind.gyroscope, $0)] } ?? []) {
            let (matrix, source, frame, notes) = lookup.resolve(
                kind: kind, channels: channels, settings: settings, isLocal: isLocal,
                accelerometer: resolved.first.map { ($0.frame, accelChannels.device.id) })
            do {
                let axis = try TriAxis(kind: kind, channels: channels, matrix: matrix)
                resolved.append((kind, channels, axis, matrix, source, frame, notes))
            } catch {
                throw Unavailable(reason: error.message)
            }
        }
        func sensor(_ kind: SensorKind, on device: IIODeviceHandle) -> DeviceStream.Sensor? {
            resolved.first { $0.kind == kind && $0.channels.device.id == device.id }.map { DeviceStream.Sensor(channels: $0.channels, axis: $0.axis) }
        }

        // One stream per device: the accelerometer's (with the gyroscope when it is on the same
        // device), then the gyroscope's own device. Merged streams share the monotonic clock.
        var devices = claim == nil ? [accelChannels.device] : []
        if let g = found.gyro, g.device.id != accelChannels.device.id { devices.append(g.device) }
        var streams: [DeviceStream] = []
        do throws(Unavailable) {
            for device in devices {
                streams.append(try DeviceStream(
                    device: device, context: context, accel: sensor(.accelerometer, on: device), gyro: sensor(.gyroscope, on: device),
                    pollRate: settings.pollRate, monotonicClock: devices.count > 1 || claim != nil, logger: logger))
            }
        } catch {
            for stream in streams { stream.close() }  // (their triggers too)
            throw error
        }
        self.streams = streams
        let polled = claim.flatMap { _ in
            resolved.first { $0.kind == .accelerometer }.map {
                PolledAccelerometer(device: accelDevice, axis: $0.axis, rate: settings.polledAccelerometerRate, logger: logger)
            }
        }
        polledAccel = polled
        merger = SampleMerger(periods: streams.map(\.period) + (polled.map { [$0.period] } ?? []))
        // Nobody waits for a reading that is taken, not delivered: it goes when it is made.
        if polled != nil { merger.waitForNothing(lane: streams.count) }

        sensors = resolved.map { r in
            let device = r.channels.device
            let stream = streams.first { $0.device.id == device.id }
            if r.kind == .accelerometer, let polled, let claim {
                logger.info("accelerometer: \(device.id) (\(device.name)), mount matrix \(r.matrix.text) from \(r.source), polled at \(FixedRate(polled.rate)) Hz beside the buffered gyroscope")
                return SensorDescription(kind: r.kind, device: device.name, location: device.id, rate: polled.rate,
                                         mountMatrix: r.matrix, mountMatrixSource: r.source, frame: r.frame, notes: r.notes,
                                         capture: "polled at \(FixedRate(polled.rate)) Hz: \(claim)",
                                         choice: found.choice ?? "")
            }
            let rate = stream?.activeRate ?? settings.pollRate
            logger.info("\(r.kind == .accelerometer ? "accelerometer" : "gyroscope"): \(device.id) (\(device.name)), mount matrix \(r.matrix.text) from \(r.source), buffered at \(FixedRate(rate)) Hz")
            return SensorDescription(kind: r.kind, device: device.name, location: isLocal ? device.id : "\(settings.uri) \(device.id)",
                                     rate: rate, mountMatrix: r.matrix, mountMatrixSource: r.source, frame: r.frame, notes: r.notes,
                                     capture: "buffered", trigger: stream?.trigger.description ?? "",
                                     choice: r.kind == .accelerometer ? found.choice ?? "" : "",
                                     limits: stream?.limits.filter { $0.kind == nil || $0.kind == r.kind } ?? [])
        }
        if found.gyro == nil {
            logger.notice("no gyroscope found: accelerometer-only motion (tilt only, no fast rotation)")
        }

        readiness = plx_epoll_create()
        guard readiness >= 0 else {
            let err = errno
            for stream in streams { stream.close() }
            throw Unavailable(reason: "cannot create an epoll descriptor: \(String(cString: strerror(err)))")
        }
        for (i, stream) in streams.enumerated() where plx_epoll_add(readiness, stream.buffer.pollFD, PLX_EPOLLIN, UInt64(i)) < 0 {
            let err = errno
            Glibc.close(readiness)
            for stream in streams { stream.close() }
            throw Unavailable(reason: "the buffer of \(stream.device.id) cannot be polled (\(IIOContext.describe(errno: err)))")
        }
        removalWatch = isLocal ? DeviceRemovalWatch(deviceIDs: streams.map(\.device.id)) : nil
        if let removalWatch, plx_epoll_add(readiness, removalWatch.descriptor, PLX_EPOLLIN, UInt64.max) < 0 {
            logger.debug("device removals are noticed only by failed reads (\(IIOContext.describe(errno: errno)))")
        } else if isLocal && removalWatch == nil {
            logger.debug("no kernel uevents (\(IIOContext.describe(errno: errno))): device removals are noticed only by failed reads")
        }
    }

    deinit { Glibc.close(readiness) }

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        while true {
            if let sample = takeReady() { return sample }
            if shouldStop() { return nil }
            // Without a watermark of 1, poll() reports a buffer only once libiio's 16 scans are
            // queued: look every half period instead, so a scan waits at most that long. A
            // sample held for another stream goes at its release time at the latest.
            // A hub whose silence stands for held values is looked at every period too.
            var slice = streams.allSatisfy({ $0.wakesPerScan && !$0.silenceMeansUnchanged })
                ? Self.pollSliceMilliseconds
                : Int32(clamping: max(1, (streams.map(\.period).min() ?? 0) / 2_000_000))
            let start = MonotonicClock.now()
            if let release = merger.releaseTime() {
                slice = min(slice, Int32(clamping: max(0, release.saturatingSubtracting(start) + 999_999) / 1_000_000))
            }
            if let polledAccel {
                slice = min(slice, Int32(clamping: max(0, polledAccel.nextRead.saturatingSubtracting(start) + 999_999) / 1_000_000))
            }
            let ready = wait(milliseconds: slice)
            // Blocked in poll() for more than a wake-up's noise: these scans were waited for.
            let waited = ready && MonotonicClock.now() - start > 100_000
            let count = try refillAll(waited: waited) + readPolledIfDue()
            if count == 0 && merger.count == 0 { try checkStall() }
        }
    }

    /// The next merged sample that may go now, its stream told it was taken.
    func takeReady() -> Sample? { takeReadyFromLane()?.sample }

    /// The same with the lane (stream) it came from.
    func takeReadyFromLane() -> (sample: Sample, lane: Int)? {
        guard let (sample, lane) = merger.next(now: MonotonicClock.now()) else { return nil }
        if lane < streams.count { streams[lane].sampleTaken(at: sample.t) }
        lastReturned = sample.t
        return (sample, lane)
    }

    /// The polled accelerometer's reading if one is due (blocks for it: the capture thread
    /// only), into its lane; how many samples that made.
    func readPolledIfDue() throws(SensorError) -> Int {
        guard let polledAccel, let sample = try polledAccel.readIfDue(now: MonotonicClock.now()) else { return 0 }
        merger.push(sample, lane: streams.count)
        return 1
    }

    /// Waits up to `milliseconds` for any stream's buffer to be readable; true when one is.
    func wait(milliseconds: Int32) -> Bool {
        var fds = pollfd(fd: readiness, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, milliseconds) > 0
    }

    /// Reads every stream's queued scans into the merger; how many samples that made.
    @discardableResult
    func refillAll(waited: Bool) throws(SensorError) -> Int {
        var count = 0
        for i in streams.indices { count += try refill(lane: i, waited: waited) }
        // While moving, a hub's silence within its sensitivity is a held value (at rest the
        // rest's own rules apply: RestingSource).
        if restPace == nil {
            let now = MonotonicClock.now()
            for (lane, stream) in streams.enumerated() {
                count += stream.heldWhileSilent(now: now) { merger.push($0, lane: lane) }
            }
        }
        // Only a wake-up with no scans may be a removal's uevent (a moving device's removal also
        // fails its reads): the uevent socket costs no syscall on the reads that bring samples.
        if count == 0, let gone = removalWatch?.removedDevice() {
            throw SensorError(.lost, "\(gone) was removed")
        }
        return count
    }

    func refill(lane: Int, waited: Bool) throws(SensorError) -> Int {
        try streams[lane].refill(waited: waited) { merger.push($0, lane: lane) }
    }

    private func checkStall() throws(SensorError) {
        guard restPace == nil else { return }
        let newest = streams.map(\.lastData).max() ?? 0
        if MonotonicClock.now() - newest > Self.stallLimit {
            throw SensorError(.lost, "the buffer delivered nothing for \(Self.stallLimit / 1_000_000_000) s")
        }
    }

    public func close() {
        for stream in streams { stream.close() }
    }
}

extension IIOBufferedDriver: QueuedSampleSource {
    /// The shortest of the streams' spans: the first queue to fill decides.
    public var queueSpan: Int64 { streams.map(\.queueSpan).min() ?? 0 }

    public var lastSampleArrival: Int64 { lastReturned }

    public var hasEnded: Bool { false }

    /// A polled accelerometer blocks for each reading, and so does a remote context's refill:
    /// the capture thread alone reads then.
    public var takesWithoutBlocking: Bool { polledAccel == nil && readsLocally }

    /// When the first merged sample at or after `time` may go: for each stream, its first sample
    /// from `time` on, once every other stream has delivered the sample after which it cannot
    /// come earlier (SampleMerger: half a period after its newest); the soonest of those.
    public func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        mergedArrival(ofSampleAt: time, promising: true)
    }

    /// `promising`: each stream's forecast learns from the scans that meet it; false for a look
    /// ahead that must not change what they learn (`nextReadable`).
    private func mergedArrival(ofSampleAt time: Int64, promising: Bool) -> Int64 {
        func arrival(_ stream: DeviceStream, _ time: Int64) -> Int64 {
            promising ? stream.expectedArrival(ofSampleAt: time) : stream.arrivalAhead(ofSampleAt: time)
        }
        guard streams.count > 1 else { return streams.first.map { arrival($0, time) } ?? time }
        var soonest = Int64.max
        for (i, stream) in streams.enumerated() {
            let own = arrival(stream, time)
            var release = own
            for (j, other) in streams.enumerated() where j != i {
                let passed = own.saturatingSubtracting(SampleMerger.spacing(forPeriod: other.period))
                release = max(release, arrival(other, passed))
            }
            soonest = min(soonest, release)
        }
        return soonest
    }

    public func takeQueued() throws(SensorError) -> Sample? {
        if let sample = takeReady() { return sample }
        let waited = nextTakeWaited
        nextTakeWaited = false
        if try refillAll(waited: waited) == 0 && merger.count == 0 {
            try checkStall()
            return nil
        }
        return takeReady()
    }
}

/// Read on the event loop (docs/architecture.md "Threads"), where every device is local and
/// no accelerometer is polled beside the buffers (`takesWithoutBlocking`): the capture thread
/// opens it (the probe, the trigger, the first data wait) and hands it over.
extension IIOBufferedDriver: PollableSource {
    /// The next scan's forecast arrival, or a held sample's release if sooner; a look ahead, not
    /// a promise the forecast learns from.
    public var nextReadable: Int64 {
        min(mergedArrival(ofSampleAt: lastReturned.saturatingAdding(1), promising: false), merger.releaseTime() ?? .max)
    }

    /// Every buffer's descriptor and the removal watch's, as one epoll descriptor.
    public var descriptor: FileDescriptor? { FileDescriptor(rawValue: readiness) }

    /// A sample the merger holds for another device goes at its release at the latest; a device
    /// that does not wake per scan (a watermark the kernel refused), or whose silence stands for
    /// held values (a hub's sensitivity), is looked at every half period, as `nextSample` does.
    public var lookAtTheLatest: Int64 {
        let release = merger.releaseTime() ?? .max
        guard !streams.allSatisfy({ $0.wakesPerScan && !$0.silenceMeansUnchanged }) else { return release }
        let halfPeriod = max(1_000_000, (streams.map(\.period).min() ?? 0) / 2)
        return min(release, MonotonicClock.now().saturatingAdding(halfPeriod))
    }

    public func descriptorBecameReadable() { nextTakeWaited = true }
}
