import CIIO
import Glibc
import Logging
import ParallaxMotion

/// One device's kernel buffer and everything that belongs to it alone: its trigger, queue,
/// scan layout, sample times, forecast, rates and hub sensitivity. A combined IMU (bmi160) or
/// an accelerometer-only device is one stream; a HID hub's `accel_3d` and `gyro_3d` are two,
/// each with its own trigger and clock, merged in time order by `IIOBufferedDriver`
/// (`SampleMerger`).
///
/// Why one owner per buffer: every invariant of a buffer (the watermark it was given, the
/// period its times are spaced by, the scans staged from a short read) holds per device; with
/// two devices nothing of one may leak into the other.
final class DeviceStream {
    let device: IIODeviceHandle
    /// The kernel buffer (it keeps the libiio context alive).
    let buffer: IIOBuffer
    let layout: ScanLayout
    private let accel: TriAxis?
    private let gyro: TriAxis?
    /// The device measures rotation (a gyroscope's stream is brought back first after a rest).
    var hasGyroscope: Bool { gyro != nil }
    /// Expected time between scans (ns): the rate the device runs at now.
    var period: Int64
    var times: ScanTimes
    var forecast: ScanForecast
    /// The device's full rate (Hz), where its rate is set and each place's rate at open.
    let activeRate: Double
    let samplingRate: SamplingRate?
    let activeRates: [Double?]
    /// Time between scans at `activeRate` (ns).
    var fullRatePeriod: Int64 { Int64(1e9 / max(activeRate, 1)) }
    /// The hub's change sensitivity (HID sensor hubs only).
    let sensitivity: HubSensitivity?
    /// Whether the device rests at the hub: it has a change sensitivity the daemon may write.
    var restsAtHub: Bool { sensitivity?.isWritable == true }
    /// What drives its buffer (shown in `status`), and the software trigger it owns, if any.
    let trigger: DeviceTrigger
    /// What this device was refused at open, worded by consequence (SensorLimit).
    private(set) var limits: [SensorLimit] = []
    /// How the device runs at rest, nil while it runs at its full rate (IIOBufferedDriver+Rest.swift).
    var rest: StreamRest?
    /// Scans the kernel buffer holds, and whether it wakes poll() at every scan (watermark 1).
    private(set) var queueScans = IIOBufferedDriver.scansPerRefill * 4
    private(set) var wakesPerScan = false
    /// When this stream last delivered scans (monotonic ns).
    var lastData: Int64
    /// The newest sample this stream delivered.
    private(set) var newestSample: Sample?
    /// When the last refill read, and whether it had to wait for the scans it got.
    private(set) var lastReadTime: Int64 = 0
    private(set) var lastRefillWaited = false
    let logger: Logger

    /// Refilled bytes not yet decoded (a partial scan from a short read waits here).
    private let staging: ScanStaging
    /// Decoded scans of the current refill; capacity reserved once.
    private var raws: [ScanLayout.Raw] = []

    /// What one sensor of the device needs to be scanned: its channels and their conversion.
    struct Sensor {
        let channels: IIODiscovery.Channels
        let axis: TriAxis
    }

    /// Opens the buffer of `device` for `accel` and/or `gyro` (both its own channels).
    /// `monotonicClock`: set `current_timestamp_clock` to monotonic before enabling (streams
    /// merged with others must share the daemon's clock).
    init(device: IIODeviceHandle, context: IIOContext, accel: Sensor?, gyro: Sensor?, pollRate: Double,
         monotonicClock: Bool, logger: Logger) throws(IIOBufferedDriver.Unavailable) {
        typealias Unavailable = IIOBufferedDriver.Unavailable
        self.device = device
        self.logger = logger
        self.accel = accel?.axis
        self.gyro = gyro?.axis
        let scanned = (accel?.channels.axes ?? []) + (gyro?.channels.axes ?? [])
        guard scanned.allSatisfy({ iio_channel_is_scan_element($0.pointer) }) else {
            throw Unavailable(reason: "\(device.id) (\(device.name)) has no scan elements for its motion channels")
        }
        let timestampChannel = device.channels.first { $0.id == "timestamp" && iio_channel_is_scan_element($0.pointer) }

        var limits: [SensorLimit] = []
        if monotonicClock && timestampChannel != nil, let refused = Self.useMonotonicClock(device, logger: logger) {
            limits.append(refused)
        }

        let types = [accel.map { (SensorKind.accelerometer, $0.channels.axes[0]) },
                     gyro.map { (SensorKind.gyroscope, $0.channels.axes[0]) }].compactMap { $0 }
        let samplingRate = SamplingRate(device: device, types: types.map { $0.1 })
        let rate = Self.raiseRate(device, samplingRate: samplingRate, to: max(1, pollRate), logger: logger)
        period = Int64(1e9 / max(1, rate))
        activeRate = rate
        forecast = ScanForecast(period: period)
        self.samplingRate = samplingRate
        activeRates = samplingRate?.current ?? []
        sensitivity = HubSensitivity(types: [accel.map { (SensorKind.accelerometer, $0.channels.axes[0], $0.axis.scales[0]) },
                                              gyro.map { (SensorKind.gyroscope, $0.channels.axes[0], $0.axis.scales[0]) }].compactMap { $0 })
        if let refused = sensitivity?.refused { limits.append(refused) }
        for limit in limits { logger.warning("\(device.id) (\(device.name)): \(limit)") }
        self.limits = limits

        // After the rate: a software trigger is made to fire at the device's rate.
        let trigger = try IIOBufferedDriver.ensureTrigger(device, context: context, rate: rate,
                                                          isLocal: context.uri == "local:", logger: logger)
        self.trigger = trigger
        // A trigger made for this stream goes again if the stream does not come to be (after
        // the buffer is disabled: an enabled buffer's trigger cannot be detached).
        var opened: IIOBuffer?
        do throws(Unavailable) {
            for channel in scanned { iio_channel_enable(channel.pointer) }
            if let timestampChannel { iio_channel_enable(timestampChannel.pointer) }
            let buffer: IIOBuffer
            do throws(IIOBufferError) {
                do throws(IIOBufferError) {
                    buffer = try IIOBuffer(device: device, context: context, scans: IIOBufferedDriver.scansPerRefill)
                } catch .cannotCreate(let err) where err == EBUSY && context.uri == "local:"
                            && PreviousCaptureHold.awaitRelease(of: "/dev/\(device.id)") {
                    // Busy with our own capture being replaced, now closed: once more.
                    buffer = try IIOBuffer(device: device, context: context, scans: IIOBufferedDriver.scansPerRefill)
                }
            } catch {
                switch error {
                case .cannotCreate(let err):
                    throw Unavailable(reason: IIOBufferedDriver.explainCreateFailure(errno: err, deviceID: device.id, deviceName: device.name))
                case .cannotPoll(let err):
                    throw Unavailable(reason: "the buffer of \(device.id) cannot be polled (\(IIOContext.describe(errno: err)))")
                }
            }
            opened = buffer
            self.buffer = buffer
            (queueScans, wakesPerScan) = try IIOBufferedDriver.configureKernelQueue(device, logger: logger)

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
            func fields(_ sensor: Sensor?) throws(Unavailable) -> [ScanField]? {
                guard let sensor else { return nil }
                var out: [ScanField] = []
                for c in sensor.channels.axes { out.append(try field(c)) }
                return out
            }
            let timestampField = try timestampChannel.map { (c) throws(Unavailable) in try field(c) }
            layout = ScanLayout(accel: try fields(accel), gyro: try fields(gyro), timestamp: timestampField, step: buffer.step)
            times = ScanTimes(source: ScanTimes.source(of: device, hasChannel: timestampField != nil), period: period)
        } catch {
            opened?.close()
            trigger.release()
            throw error
        }
        staging = ScanStaging(layout: layout, scans: IIOBufferedDriver.scansPerRefill)
        raws.reserveCapacity(IIOBufferedDriver.scansPerRefill + 1)
        lastData = MonotonicClock.now()
        logger.info("\(device.id) (\(device.name)): \(layout.step)-byte scans, sample times from \(times.description)")
    }

    /// Reads what the kernel queued (never blocks) and calls `body` with each scan's sample, in
    /// order. `waited`: the caller blocked for these scans (the forecast learns its margin from
    /// it). Returns how many samples there were.
    @discardableResult
    func refill(waited: Bool, _ body: (Sample) -> Void) throws(SensorError) -> Int {
        guard buffer.isOpen else { throw SensorError(.lost, "the buffer of \(device.id) is closed") }
        var fds = pollfd(fd: buffer.pollFD, events: Int16(POLLIN), revents: 0)
        let ready = poll(&fds, 1, 0)
        if ready < 0 && errno != EINTR { throw SensorError(.lost, "poll on the buffer of \(device.id) failed: \(IIOContext.describe(errno: errno))") }
        // A watermark above 1 hides fewer scans from poll(): read whatever is there anyway.
        guard ready > 0 || (!wakesPerScan && ready == 0) else { return 0 }
        let n = buffer.refill()
        guard n > 0 else {
            // Nothing read while poll() reported a hang-up or error: the device is gone (a loop
            // here would spin until the stall limit).
            if fds.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                throw SensorError(.lost, "the buffer of \(device.id) was closed by the device")
            }
            if n == 0 || n == -Int(EAGAIN) || n == -Int(EINTR) { return 0 }
            throw SensorError(.lost, "reading the buffer of \(device.id) failed: \(IIOContext.describe(errno: Int32(-n)))")
        }
        let readTime = MonotonicClock.now()
        lastData = readTime
        lastReadTime = readTime
        lastRefillWaited = waited
        guard let data = buffer.start else { return 0 }
        staging.decode(data, count: n, into: &raws)
        let previousNewest = times.newest
        var count = 0
        times.assign(raws, readTime: readTime) { t, raw in
            let a = raw.accel.flatMap { r in accel?.deviceFrame(Double(r.0), Double(r.1), Double(r.2)) }
            let g = raw.gyro.flatMap { r in gyro?.deviceFrame(Double(r.0), Double(r.1), Double(r.2)) }
            let sample = Sample(t: t, accel: a.flatMap { $0.isFinite ? $0 : nil }, gyro: g.flatMap { $0.isFinite ? $0 : nil })
            newestSample = sample
            body(sample)
            count += 1
        }
        if count > 0 {
            forecast.learn(previousNewest: previousNewest, newest: times.newest, count: count)
        }
        return count
    }

    /// Whether this device's silence means "unchanged": a hub that kept a change sensitivity
    /// above 0 while moving (it refused or clamped 0) sends no report while its values stay
    /// within it, as HID defines (HubSensitivity.swift).
    var silenceMeansUnchanged: Bool { sensitivity?.movingSilenceMeansUnchanged == true }

    /// The reports a silent hub stood for, up to `now`: its newest values again, one full-rate
    /// period apart, each given the merger's hold as grace (a real report may still be on its
    /// way; one later than that is handed over late by the merger anyway).
    /// Nothing for a device that reports every interval, or before its first report.
    ///
    /// Why: to the fusion a silence longer than `MotionSettings.maxGap` is a gap of unknown motion
    /// (a gyroscope reading after it is not integrated): a steady turn, whose rate never changes,
    /// would be lost whole.
    func heldWhileSilent(now: Int64, _ body: (Sample) -> Void) -> Int {
        guard silenceMeansUnchanged, let newest = newestSample else { return 0 }
        let period = fullRatePeriod
        var count = 0
        let grace = SampleMerger.hold(forPeriod: period)
        var t = newest.t.saturatingAdding(period)
        while t.saturatingAdding(grace) <= now {
            let held = Sample(t: t, accel: newest.accel, gyro: newest.gyro)
            newestSample = held
            times.hold(until: t)
            body(held)
            count += 1
            t = t.saturatingAdding(period)
        }
        if count > 0 { lastData = now }
        return count
    }

    /// A sample of this stream at `time` was handed to the engine.
    func sampleTaken(at time: Int64) {
        forecast.sampleTaken(at: time, waited: lastRefillWaited, readTime: lastReadTime)
    }

    func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        forecast.expectedArrival(ofSampleAt: time, newest: times.newest)
    }

    /// `expectedArrival` without the promise (ScanForecast.arrival).
    func arrivalAhead(ofSampleAt time: Int64) -> Int64 {
        forecast.arrival(ofSampleAt: time, newest: times.newest)
    }

    /// Half the kernel queue, at most half a second: the rest is margin for a late wake-up.
    var queueSpan: Int64 { min(Int64(queueScans / 2) * forecast.scanPeriod, 500_000_000) }

    func close() {
        buffer.close()
        trigger.release()
    }

    /// Sets `current_timestamp_clock` to monotonic, so the kernel's scan times are the daemon's
    /// clock. Only while the buffer is disabled: the kernel refuses (EBUSY) while it runs, so
    /// this comes before the buffer is created. A refusal is returned; the sample times then
    /// come from the read time, spaced by the kernel's stamps (ScanTimes).
    static func useMonotonicClock(_ device: IIODeviceHandle, logger: Logger) -> SensorLimit? {
        guard device.hasAttribute("current_timestamp_clock") else { return nil }
        let now = ((try? device.read("current_timestamp_clock").get()) ?? "").filter { !$0.isWhitespace && $0 != "\0" }
        guard now != "monotonic" else { return nil }
        if let refused = device.set("current_timestamp_clock", "monotonic") {
            return .noKernelTimestamps(clock: now.isEmpty ? "unknown" : now, error: refused)
        }
        logger.info("\(device.id) (\(device.name)): timestamp clock \(now.isEmpty ? "unknown" : now) → monotonic")
        return nil
    }

    /// Makes the device sample at least `wanted` Hz and returns its rate (Hz). A device-wide
    /// `sampling_frequency` as polling does it (`IIODiscovery.ensureRate`); per-type rates (HID
    /// hubs: `in_accel_sampling_frequency`, a report interval in ms, with no list of offered
    /// rates) are raised to `wanted` and read back (3 Hz reads back 3.003).
    static func raiseRate(_ device: IIODeviceHandle, samplingRate: SamplingRate?, to wanted: Double, logger: Logger) -> Double {
        if let rate = IIODiscovery.ensureRate(device, atLeast: wanted, wanted: wanted, logger: logger) { return rate }
        guard let samplingRate else { return wanted }
        let current = samplingRate.current
        let offered = samplingRate.available
        let raised: [Double?] = current.enumerated().map { i, now in
            if let now, now >= wanted { return nil }
            return offered[i].isEmpty ? wanted : (offered[i].first { $0 >= wanted } ?? offered[i].last)
        }
        // Fast enough already: the rate asked for is what the buffer is paced by, as before.
        guard raised.contains(where: { $0 != nil }) else { return wanted }
        if !samplingRate.set(raised) {
            logger.warning("\(device.id) (\(device.name)): cannot raise its sampling rate to \(FixedRate(wanted)) Hz")
        }
        let after = samplingRate.current
        logger.notice("\(device.id) (\(device.name)) sampled at \(current.map { $0.map { FixedRate($0).description } ?? "?" }.joined(separator: "/")) Hz; now \(after.map { $0.map { FixedRate($0).description } ?? "?" }.joined(separator: "/")) Hz")
        return after.compactMap { $0 }.max() ?? wanted
    }
}
