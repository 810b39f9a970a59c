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

    public let sensors: [SensorDescription]
    /// The kernel buffer (it keeps the libiio context alive).
    let buffer: IIOBuffer
    private let layout: ScanLayout
    private let accel: TriAxis
    private let gyro: TriAxis?
    /// Expected time between scans (ns): the rate the device runs at now.
    var period: Int64
    var times: ScanTimes
    var forecast: ScanForecast
    /// The device, its full rate (Hz) and, while the device rests, the rest pace
    /// (IIOBufferedDriver+Rest.swift).
    let device: IIODeviceHandle
    let activeRate: Double
    var restPace: RestPace?
    /// Where the device's rate is set, and each place's rate at open (Hz).
    let samplingRate: SamplingRate?
    let activeRates: [Double?]
    let logger: Logger

    /// Refilled bytes not yet decoded (a partial scan from a short read waits here).
    private let staging: ScanStaging
    /// Decoded scans of the current refill, and the samples made from them; capacity reserved once.
    private var raws: [ScanLayout.Raw] = []
    var pending: [Sample] = []
    var nextPending = 0
    private var lastData: Int64
    /// Scans the kernel buffer holds, and whether it wakes poll() at every scan (watermark 1).
    private var queueScans = IIOBufferedDriver.scansPerRefill * 4
    private(set) var wakesPerScan = false
    /// When the last refill read, and whether it had to wait for the scans it got.
    private var lastReadTime: Int64 = 0
    private var lastRefillWaited = false
    /// Time of the sample `nextSample` / `takeQueued` last returned.
    private var lastReturned: Int64 = 0

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
        let context: IIOContext
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
        let period = Int64(1e9 / max(1, rate))
        self.period = period
        self.device = device
        activeRate = rate
        forecast = ScanForecast(period: period)

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
        samplingRate = SamplingRate(device: device, types: [accelChannels.axes[0]] + (found.gyro.map { [$0.axes[0]] } ?? []))
        activeRates = samplingRate?.current ?? []
        accel = try mount(accelChannels, .accelerometer)
        gyro = try found.gyro.map { (g) throws(Unavailable) in try mount(g, .gyroscope) }
        sensors = descriptions

        for channel in scanned { iio_channel_enable(channel.pointer) }
        if let timestampChannel { iio_channel_enable(timestampChannel.pointer) }
        let buffer: IIOBuffer
        do throws(IIOBufferError) {
            buffer = try IIOBuffer(device: device, context: context, scans: Self.scansPerRefill)
        } catch {
            switch error {
            case .cannotCreate(let err):
                throw Unavailable(reason: Self.explainCreateFailure(errno: err, deviceID: device.id, deviceName: device.name))
            case .cannotPoll(let err):
                throw Unavailable(reason: "the buffer of \(device.id) cannot be polled (\(IIOContext.describe(errno: err)))")
            }
        }
        self.buffer = buffer
        (queueScans, wakesPerScan) = try Self.configureKernelQueue(device, logger: logger)

        // Where each channel sits in a scan: libiio knows the alignment rules.
        func field(_ channel: IIOChannelHandle) throws(Unavailable) -> ScanField {
            let format = iio_channel_get_data_format(channel.pointer).pointee
            let offset = buffer.offset(of: channel) ?? -1
            let f = ScanField(offset: offset, bytes: Int(format.length) / 8, bits: Int(format.bits),
                              shift: Int(format.shift), isSigned: format.is_signed, isBigEndian: format.is_be)
            guard f.isValid, offset >= 0, format.repeat <= 1 else {
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
        layout = ScanLayout(accel: accelFields, gyro: gyroFields, timestamp: timestampField, step: buffer.step)

        times = ScanTimes(source: ScanTimes.source(of: device, hasChannel: timestampField != nil), period: period)
        staging = ScanStaging(layout: layout, scans: Self.scansPerRefill)
        raws.reserveCapacity(Self.scansPerRefill + 1)
        pending.reserveCapacity(Self.scansPerRefill + 1)
        lastData = MonotonicClock.now()
        logger.info("\(device.id) (\(device.name)): \(layout.step)-byte scans, sample times from \(times.description)")
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
        forecast.sampleTaken(at: sample.t, waited: lastRefillWaited, readTime: lastReadTime)
        return sample
    }

    private func checkStall() throws(SensorError) {
        if MonotonicClock.now() - lastData > Self.stallLimit {
            throw SensorError(.lost, "the buffer delivered nothing for \(Self.stallLimit / 1_000_000_000) s")
        }
    }

    public func close() { buffer.close() }

    /// Waits up to `timeoutMilliseconds` for scans, reads them and queues their samples.
    /// Returns how many samples were queued.
    func refill(timeoutMilliseconds: Int32) throws(SensorError) -> Int {
        guard buffer.isOpen else { throw SensorError(.lost, "the buffer is closed") }
        var fds = pollfd(fd: buffer.pollFD, events: Int16(POLLIN), revents: 0)
        let pollStart = timeoutMilliseconds > 0 ? MonotonicClock.now() : 0
        let ready = poll(&fds, 1, timeoutMilliseconds)
        if ready < 0 && errno != EINTR { throw SensorError(.lost, "poll on the buffer failed: \(IIOContext.describe(errno: errno))") }
        // A watermark above 1 hides fewer scans from poll(): read whatever is there anyway.
        guard ready > 0 || (!wakesPerScan && ready == 0) else { return 0 }
        let n = buffer.refill()
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
        guard let data = buffer.start else { return 0 }
        staging.decode(data, count: n, into: &raws)
        pending.removeAll(keepingCapacity: true)
        nextPending = 0
        let previousNewest = times.newest
        times.assign(raws, readTime: readTime) { t, raw in
            let a = accel.deviceFrame(Double(raw.accel.0), Double(raw.accel.1), Double(raw.accel.2))
            let g = raw.gyro.flatMap { r in gyro?.deviceFrame(Double(r.0), Double(r.1), Double(r.2)) }
            pending.append(Sample(t: t, accel: a.isFinite ? a : nil, gyro: g.flatMap { $0.isFinite ? $0 : nil }))
        }
        if let newest = pending.last?.t {
            forecast.learn(previousNewest: previousNewest, newest: newest, count: pending.count)
        }
        return pending.count
    }
}

extension IIOBufferedDriver: QueuedSampleSource {
    /// Half the kernel queue, at most half a second: the rest is margin for a late wake-up.
    public var queueSpan: Int64 { min(Int64(queueScans / 2) * forecast.scanPeriod, 500_000_000) }

    public var lastSampleArrival: Int64 { lastReturned }

    public var hasEnded: Bool { false }

    public func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        forecast.expectedArrival(ofSampleAt: time, newest: times.newest)
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
