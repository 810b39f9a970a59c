import CIIO
import Glibc
import Logging
import ParallaxMotion

/// Reads an accelerometer (and a gyroscope on the same device) through the kernel's IIO buffer:
/// the device samples on its own trigger and the kernel queues scans, each with its own
/// timestamp, in /dev/iio:deviceN. Versus polling: no missed or doubled samples, one read per
/// batch instead of six sysfs reads per sample, and sample times taken when the sensor measured.
///
/// Open with `IIOBufferedDriver.open`, which says why when buffered capture is not possible so
/// that the caller can poll instead (docs/sensors.md).
public final class IIOBufferedDriver: SensorDriver {
    /// Scans per libiio buffer: the most one refill returns. Reads are non-blocking, so this
    /// bounds the batch, not the latency (a refill returns as soon as one scan is queued).
    public static let scansPerRefill = 16
    /// Scans the kernel queues for us (buffer/length): at 200 Hz, 1.28 s. libiio sets 4 × 16,
    /// too little for a capture thread that sleeps between frames (SamplePacing.swift).
    public static let kernelQueueScans = 256
    /// A device that delivers nothing for this long (ns) counts as lost, so that the supervisor
    /// reopens it (and polls if the buffer still stays silent).
    public static let stallLimit: Int64 = 2_000_000_000
    /// How long to wait for data in one poll() (ms): bounds how late `shouldStop` is noticed.
    static let pollSliceMilliseconds: Int32 = 50
    /// A monotonic kernel timestamp this far ahead of the read time (ns) is not believed.
    static let timestampFutureTolerance: Int64 = 5_000_000

    public let sensors: [SensorDescription]
    private let context: IIOContext
    private var buffer: OpaquePointer?
    private let pollFD: Int32
    private let layout: ScanLayout
    private let accel: TriAxis
    private let gyro: TriAxis?
    private let timestamps: TimestampSource
    /// Expected time between scans (ns), for spacing scans that carry no usable timestamp.
    private let period: Int64
    private let logger: Logger

    /// Refilled bytes not yet decoded (a partial scan from a short read waits here).
    private var staging: UnsafeMutableRawBufferPointer
    private var staged = 0
    /// Decoded scans of the current refill, and the samples made from them; capacity reserved once.
    private var raws: [ScanLayout.Raw] = []
    private var pending: [Sample] = []
    private var nextPending = 0
    private var lastT: Int64 = 0
    private var lastData: Int64
    /// Scans the kernel buffer holds, and whether it wakes poll() at every scan (watermark 1).
    private var queueScans = IIOBufferedDriver.scansPerRefill * 4
    private var wakesPerScan = false
    /// Smoothed spacing of scan times (ns), for `expectedArrival`.
    private var scanPeriod: Int64
    /// How long after its forecast time (ns) a scan has lately become readable: a scan is read
    /// in the driver's interrupt thread after its timestamp, and triggers jitter.
    private var forecastMargin: Int64 = 0
    /// The last forecast (the need it was for and the arrival promised), until a scan meets it.
    private var forecast: (need: Int64, arrival: Int64)?
    /// When the last refill read, and whether it had to wait for the scans it got.
    private var lastReadTime: Int64 = 0
    private var lastRefillWaited = false
    /// Time of the sample `nextSample` / `takeQueued` last returned.
    private var lastReturned: Int64 = 0

    /// Where sample times come from.
    enum TimestampSource: Equatable {
        /// The timestamp channel counts CLOCK_MONOTONIC: used as is.
        case kernelMonotonic
        /// The timestamp channel counts another clock (realtime, boottime…): only its spacing is
        /// used, anchored at the read time.
        case kernelSpacing(clock: String)
        /// No timestamp channel: scans are spaced by the sampling period back from the read time.
        case readTime
    }

    /// Why buffered capture did not start; the caller logs it and polls.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        public var reason: String
        /// Nothing to capture at all (no context, no accelerometer): polling will say so itself.
        public var nothingToCapture = false
        public var description: String { reason }
    }

    /// Opens buffered capture, or says why not. `firstDataTimeout` (ns): the buffer must deliver
    /// its first scan within it (a device whose trigger never fires delivers nothing).
    public static func open(settings: IIOSettings, firstDataTimeout: Int64, logger: Logger,
                            shouldStop: () -> Bool = { false }) -> Result<IIOBufferedDriver, Unavailable> {
        do throws(Unavailable) {
            let driver = try IIOBufferedDriver(settings: settings, logger: logger)
            let deadline = MonotonicClock.now() + firstDataTimeout
            while driver.pending.count == driver.nextPending {
                if MonotonicClock.now() >= deadline || shouldStop() {
                    driver.close()
                    return .failure(Unavailable(reason: "no buffered data within \(firstDataTimeout / 1_000_000) ms (is the trigger running?)"))
                }
                do {
                    _ = try driver.refill(timeoutMilliseconds: pollSliceMilliseconds)
                } catch {
                    driver.close()
                    return .failure(Unavailable(reason: "the buffer failed before its first scan: \(error.message)"))
                }
            }
            driver.lastData = MonotonicClock.now()
            return .success(driver)
        } catch {
            return .failure(error)
        }
    }

    private init(settings: IIOSettings, logger: Logger) throws(Unavailable) {
        self.logger = logger
        do {
            context = try IIOContext(uri: settings.uri)
        } catch {
            throw Unavailable(reason: error.message, nothingToCapture: true)
        }
        let isLocal = settings.uri == "local:"
        let found = IIODiscovery.find(in: context.devices, isLocal: isLocal, logger: logger)
        guard let accelChannels = found.accel else { throw Unavailable(reason: "no accelerometer", nothingToCapture: true) }
        let device = accelChannels.device
        if let g = found.gyro, g.device.id != device.id {
            // One buffer per device with two clocks to merge is not worth it here: poll split devices.
            throw Unavailable(reason: "accelerometer (\(device.id)) and gyroscope (\(g.device.id)) are separate devices")
        }
        let scanned = accelChannels.axes + (found.gyro?.axes ?? [])
        guard scanned.allSatisfy({ iio_channel_is_scan_element($0.pointer) }) else {
            throw Unavailable(reason: "\(device.id) (\(device.name)) has no scan elements for its motion channels")
        }
        let timestampChannel = device.channels.first { $0.id == "timestamp" && iio_channel_is_scan_element($0.pointer) }

        try Self.ensureTrigger(device, context: context, logger: logger)

        let pollRate = max(1, settings.pollRate)
        let rate = IIODiscovery.ensureRate(device, atLeast: pollRate, wanted: pollRate, logger: logger) ?? pollRate
        period = Int64(1e9 / max(1, rate))
        scanPeriod = period

        let lookup = MountMatrixLookup(logger: logger)
        var descriptions: [SensorDescription] = []
        func mount(_ channels: IIODiscovery.Channels, _ kind: SensorKind) throws(Unavailable) -> TriAxis {
            let (matrix, source, frame, notes) = lookup.resolve(
                kind: kind, channels: channels, settings: settings, isLocal: isLocal,
                accelerometer: descriptions.first.map { ($0.frame, device.id) })
            do {
                let axis = try TriAxis(kind: kind, channels: channels, matrix: matrix)
                descriptions.append(SensorDescription(kind: kind, device: device.name,
                                                      location: isLocal ? device.id : "\(settings.uri) \(device.id)",
                                                      rate: rate, mountMatrix: matrix, mountMatrixSource: source,
                                                      frame: frame, notes: notes))
                logger.info("\(kind == .accelerometer ? "accelerometer" : "gyroscope"): \(device.id) (\(device.name)), mount matrix \(matrix.text) from \(source), buffered at \(rate) Hz")
                return axis
            } catch {
                throw Unavailable(reason: error.message)
            }
        }
        accel = try mount(accelChannels, .accelerometer)
        gyro = try found.gyro.map { (g) throws(Unavailable) in try mount(g, .gyroscope) }
        sensors = descriptions

        for channel in scanned { iio_channel_enable(channel.pointer) }
        if let timestampChannel { iio_channel_enable(timestampChannel.pointer) }
        errno = 0
        guard let buffer = iio_device_create_buffer(device.pointer, Self.scansPerRefill, false) else {
            let err = errno
            throw Unavailable(reason: Self.explainCreateFailure(errno: err, deviceID: device.id, deviceName: device.name))
        }
        self.buffer = buffer
        // Non-blocking refills: poll() in short slices instead, so stopping stays prompt and a
        // refill returns whatever is queued rather than waiting for a full buffer.
        let blockingResult = iio_buffer_set_blocking_mode(buffer, false)
        pollFD = iio_buffer_get_poll_fd(buffer)
        guard blockingResult == 0, pollFD >= 0 else {
            iio_buffer_destroy(buffer)
            self.buffer = nil
            throw Unavailable(reason: "the buffer of \(device.id) cannot be polled (\(IIOContext.describe(errno: -(blockingResult < 0 ? blockingResult : pollFD))))")
        }

        (queueScans, wakesPerScan) = try Self.configureKernelQueue(device, buffer: buffer, logger: logger)

        // Where each channel sits in a scan: libiio knows the alignment rules.
        let start = UnsafeRawPointer(iio_buffer_start(buffer))
        func field(_ channel: IIOChannelHandle) throws(Unavailable) -> ScanField {
            let format = iio_channel_get_data_format(channel.pointer).pointee
            let first = UnsafeRawPointer(iio_buffer_first(buffer, channel.pointer))
            let offset = first.flatMap { f in start.map { f - $0 } } ?? -1
            let f = ScanField(offset: offset, bytes: Int(format.length) / 8, bits: Int(format.bits),
                              shift: Int(format.shift), isSigned: format.is_signed, isBigEndian: format.is_be)
            guard f.isValid, offset >= 0, format.repeat <= 1 else {
                iio_buffer_destroy(buffer)
                throw Unavailable(reason: "\(device.id) \(channel.id): unsupported scan type (\(format.length) bits of storage, \(format.bits) used, shift \(format.shift))")
            }
            return f
        }
        var accelFields: [ScanField] = []
        for c in accelChannels.axes { accelFields.append(try field(c)) }
        var gyroFields: [ScanField]?
        if let g = found.gyro {
            var fields: [ScanField] = []
            for c in g.axes { fields.append(try field(c)) }
            gyroFields = fields
        }
        let timestampField = try timestampChannel.map { (c) throws(Unavailable) in try field(c) }
        layout = ScanLayout(accel: accelFields, gyro: gyroFields, timestamp: timestampField, step: iio_buffer_step(buffer))

        timestamps = Self.timestampSource(device, hasChannel: timestampField != nil)
        staging = .allocate(byteCount: (Self.scansPerRefill + 1) * max(1, layout.step), alignment: 8)
        raws.reserveCapacity(Self.scansPerRefill + 1)
        pending.reserveCapacity(Self.scansPerRefill + 1)
        lastData = MonotonicClock.now()
        logger.info("\(device.id) (\(device.name)): \(layout.step)-byte scans, sample times from \(Self.describe(timestamps))")
    }

    deinit {
        if let buffer { iio_buffer_destroy(buffer) }
        staging.deallocate()
    }

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        // Without a watermark of 1, poll() reports the buffer only once libiio's 16 scans are
        // queued: look every half period instead, so a scan waits at most that long.
        let slice = wakesPerScan ? Self.pollSliceMilliseconds : Int32(clamping: max(1, period / 2_000_000))
        while nextPending == pending.count {
            if shouldStop() { return nil }
            if try refill(timeoutMilliseconds: slice) == 0 { try checkStall() }
        }
        return takePending()
    }

    private func takePending() -> Sample {
        defer { nextPending += 1 }
        let sample = pending[nextPending]
        lastReturned = sample.t
        if let f = forecast, sample.t >= f.need {
            // The scan the forecast was for: was it there at the forecast time, or was it waited for?
            forecast = nil
            if lastRefillWaited {
                let late = min(max(0, lastReadTime - f.arrival), scanPeriod / 2)
                forecastMargin += (late - forecastMargin) / 4
            } else {
                forecastMargin -= forecastMargin / 16
            }
        }
        return sample
    }

    private func checkStall() throws(SensorError) {
        if MonotonicClock.now() - lastData > Self.stallLimit {
            throw SensorError(.lost, "the buffer delivered nothing for \(Self.stallLimit / 1_000_000_000) s")
        }
    }

    public func close() {
        // Destroying the buffer disables it, so that polling (ours after a fallback, or another
        // process) can read the device again.
        if let buffer { iio_buffer_destroy(buffer) }
        buffer = nil
    }

    /// Waits up to `timeoutMilliseconds` for scans, reads them and queues their samples.
    /// Returns how many samples were queued.
    private func refill(timeoutMilliseconds: Int32) throws(SensorError) -> Int {
        guard let buffer else { throw SensorError(.lost, "the buffer is closed") }
        var fds = pollfd(fd: pollFD, events: Int16(POLLIN), revents: 0)
        let pollStart = timeoutMilliseconds > 0 ? MonotonicClock.now() : 0
        let ready = poll(&fds, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR { throw SensorError(.lost, "poll on the buffer failed: \(IIOContext.describe(errno: errno))") }
        // A watermark above 1 hides fewer scans from poll(): read whatever is there anyway.
        guard ready > 0 || (!wakesPerScan && ready == 0) else { return 0 }
        let n = iio_buffer_refill(buffer)
        guard n > 0 else {
            // Nothing read while poll() reported a hang-up or error: the device is gone (a loop
            // here would spin until the stall limit).
            if fds.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                throw SensorError(.lost, "the buffer was closed by the device")
            }
            if n == 0 || n == -Int(EAGAIN) || n == -Int(EINTR) { return 0 }
            throw SensorError(.lost, "reading the buffer failed: \(IIOContext.describe(errno: Int32(-n)))")
        }
        let readTime = MonotonicClock.now()
        lastData = readTime
        lastReadTime = readTime
        // Blocked in poll() for more than a wake-up's noise: these scans were waited for.
        lastRefillWaited = timeoutMilliseconds > 0 && readTime - pollStart > 100_000
        // Append to what a short read left, decode every whole scan, keep the rest.
        let room = staging.count - staged
        let take = min(n, room)
        guard let data = iio_buffer_start(buffer) else { return 0 }
        staging.baseAddress!.advanced(by: staged).copyMemory(from: data, byteCount: take)
        staged += take
        raws.removeAll(keepingCapacity: true)
        let used = layout.forEachScan(in: UnsafeRawBufferPointer(start: staging.baseAddress, count: staged)) { raws.append($0) }
        if used > 0 && used < staged {
            // The remainder is shorter than one scan and starts at least one scan in: no overlap.
            staging.baseAddress!.copyMemory(from: staging.baseAddress!.advanced(by: used), byteCount: staged - used)
        }
        staged -= used
        pending.removeAll(keepingCapacity: true)
        nextPending = 0
        let previousNewest = lastT
        convert(readTime: readTime)
        learnPeriod(previousNewest: previousNewest)
        return pending.count
    }

    /// Follows the scans' real spacing (the device's clock is not ours), for the forecast.
    private func learnPeriod(previousNewest: Int64) {
        guard let newest = pending.last?.t, previousNewest > 0, newest > previousNewest else { return }
        let spacing = (newest - previousNewest) / Int64(pending.count)
        // Gaps (a paused trigger) say nothing about the rate: ignore spacings far off.
        if spacing > scanPeriod / 2 && spacing < scanPeriod * 2 {
            scanPeriod += (spacing - scanPeriod) / 8
        }
    }

    /// Scales the decoded scans and gives each its time.
    private func convert(readTime: Int64) {
        let newestStamp = raws.last?.timestamp
        for (i, raw) in raws.enumerated() {
            var t: Int64
            switch (timestamps, raw.timestamp, newestStamp) {
            case (.kernelMonotonic, let stamp?, _) where stamp <= readTime + Self.timestampFutureTolerance:
                t = stamp
            case (.kernelSpacing, let stamp?, let newest?), (.kernelMonotonic, let stamp?, let newest?):
                t = readTime - max(0, newest - stamp)
            default:
                t = readTime - Int64(raws.count - 1 - i) * period
            }
            // Times never run backwards, whatever the device claims.
            if t <= lastT { t = lastT + 1 }
            lastT = t
            let a = accel.deviceFrame(Double(raw.accel.0), Double(raw.accel.1), Double(raw.accel.2))
            let g = raw.gyro.flatMap { r in gyro?.deviceFrame(Double(r.0), Double(r.1), Double(r.2)) }
            pending.append(Sample(t: t, accel: a.isFinite ? a : nil, gyro: g.flatMap { $0.isFinite ? $0 : nil }))
        }
    }

    /// Uses the device's trigger, or assigns one: its own "<name>-dev<N>" if the context has it,
    /// else the first trigger there is. A device without a trigger directory (hardware FIFO,
    /// HID sensor hubs) needs none.
    private static func ensureTrigger(_ device: IIODeviceHandle, context: IIOContext, logger: Logger) throws(Unavailable) {
        var current: OpaquePointer?
        let rc = iio_device_get_trigger(device.pointer, &current)
        if rc < 0 {
            if rc == -ENXIO { return }  // a trigger outside this context (kernel-internal): it exists
            logger.debug("\(device.id) (\(device.name)) has no trigger to choose (\(IIOContext.describe(errno: -rc)))")
            return
        }
        if let current {
            logger.info("\(device.id) (\(device.name)): using its current trigger \(IIODeviceHandle(pointer: current).name)")
            return
        }
        let triggers = context.devices.filter { iio_device_is_trigger($0.pointer) }
        // "iio:device3" → "bmi160-dev3", the name the driver's own data-ready trigger gets.
        let ownName = "\(device.name)-dev\(device.id.dropFirst("iio:device".count))"
        guard let trigger = triggers.first(where: { $0.name == ownName }) ?? triggers.first else {
            throw Unavailable(reason: "\(device.id) (\(device.name)) has no trigger and none exists to assign")
        }
        let set = iio_device_set_trigger(device.pointer, trigger.pointer)
        guard set >= 0 else {
            throw Unavailable(reason: "cannot assign trigger \(trigger.name) to \(device.id): \(IIOContext.describe(errno: -set))")
        }
        logger.info("\(device.id) (\(device.name)): assigned trigger \(trigger.name)")
    }

    /// Makes the kernel queue deep enough to sleep through and wake poll() at every scan.
    ///
    /// Why: libiio sets buffer/watermark to its refill size (16), and the kernel reports the
    /// buffer readable only once that many scans wait: 80 ms at 200 Hz before the first scan is
    /// seen. Both attributes only change while the buffer is disabled, so briefly disable it.
    /// Returns the queue length in scans and whether the watermark is now 1.
    private static func configureKernelQueue(_ device: IIODeviceHandle, buffer: OpaquePointer,
                                             logger: Logger) throws(Unavailable) -> (Int, Bool) {
        func write(_ attr: String, _ value: Int) -> Int {
            iio_device_buffer_attr_write(device.pointer, attr, String(value))
        }
        let libiioLength = scansPerRefill * 4
        guard write("enable", 0) >= 0 else {
            logger.info("\(device.id) (\(device.name)): cannot disable the buffer to lower its watermark: reading every half period")
            return (libiioLength, false)
        }
        let length = write("length", kernelQueueScans) >= 0 ? kernelQueueScans : libiioLength
        let watermark = write("watermark", 1)
        let enabled = write("enable", 1)
        guard enabled >= 0 else {
            iio_buffer_destroy(buffer)
            throw Unavailable(reason: "cannot re-enable the buffer of \(device.id): \(IIOContext.describe(errno: Int32(-enabled)))")
        }
        if watermark < 0 {
            logger.info("\(device.id) (\(device.name)): buffer watermark not settable (\(IIOContext.describe(errno: Int32(-watermark)))): reading every half period")
        }
        return (length, watermark >= 0)
    }

    /// The kernel stamps scans with `current_timestamp_clock` (realtime unless changed).
    private static func timestampSource(_ device: IIODeviceHandle, hasChannel: Bool) -> TimestampSource {
        guard hasChannel else { return .readTime }
        let clock = ((try? device.read("current_timestamp_clock").get()) ?? "")
            .filter { !$0.isWhitespace && $0 != "\0" }
        return clock == "monotonic" ? .kernelMonotonic : .kernelSpacing(clock: clock.isEmpty ? "unknown" : clock)
    }

    private static func describe(_ source: TimestampSource) -> String {
        switch source {
        case .kernelMonotonic: "the kernel timestamp (CLOCK_MONOTONIC)"
        case .kernelSpacing(let clock): "the read time, spaced by the kernel timestamps (clock \(clock) is not monotonic)"
        case .readTime: "the read time (no timestamp channel)"
        }
    }

    /// Why `iio_device_create_buffer` failed, in words an administrator can act on.
    static func explainCreateFailure(errno err: Int32, deviceID: String, deviceName: String) -> String {
        switch err {
        case EBUSY: "buffer busy (held by another process, e.g. iio-sensor-proxy)"
        case EACCES, EPERM: "no permission to enable the buffer of \(deviceID) (\(IIOContext.describe(errno: err)))"
        default: "cannot enable the buffer of \(deviceID) (\(deviceName)): \(IIOContext.describe(errno: err))"
        }
    }
}

extension IIOBufferedDriver: QueuedSampleSource {
    /// Half the kernel queue, at most half a second: the rest is margin for a late wake-up.
    public var queueSpan: Int64 { min(Int64(queueScans / 2) * scanPeriod, 500_000_000) }

    public var lastSampleArrival: Int64 { lastReturned }

    public var hasEnded: Bool { false }

    public func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        // Scans come every period after the newest one seen, readable a learnt margin later:
        // the margin grows when the capture thread had to wait for the scan and shrinks while
        // it was there, so a steady device costs one wake-up per frame and little latency.
        guard lastT > 0, scanPeriod > 0 else { return time }
        let steps = max(1, (time - lastT + scanPeriod - 1) / scanPeriod)
        let arrival = lastT + steps * scanPeriod + forecastMargin
        forecast = (time, arrival)
        return arrival
    }

    public func takeQueued() throws(SensorError) -> Sample? {
        if nextPending == pending.count {
            guard try refill(timeoutMilliseconds: 0) > 0 else {
                try checkStall()
                return nil
            }
        }
        return takePending()
    }
}
