import CLinux
import CSystemd
import Glibc
import Logging
import ParallaxMotion
import SystemPackage

/// An input device that carries motion sensors (INPUT_PROP_ACCELEROMETER: the Steam Deck's
/// "Steam Deck Motion Sensors", a gamepad's IMU), as sysfs describes it: found without opening
/// it, so that looking costs no permission and wakes nothing.
public struct EvdevMotionCandidate: Sendable, Equatable {
    /// "event5"
    public var node: String
    public var name: String
    public var hasGyroscope: Bool

    public var path: String { "/dev/input/\(node)" }

    public static let sysfsRoot = "/sys/class/input"
    /// Bits of the input device's `capabilities/abs`: ABS_X…ABS_Z, ABS_RX…ABS_RZ.
    static let accelAxes: UInt64 = 0b000111
    static let gyroAxes: UInt64 = 0b111000

    /// Every event node of an input device with INPUT_PROP_ACCELEROMETER and the three
    /// acceleration axes, in the kernel's numbering order.
    public static func present(root: String = sysfsRoot) -> [EvdevMotionCandidate] {
        SysfsText.list(root).filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .compactMap { describe(node: $0, root: root) }
    }

    /// The candidate for one event node ("event5"), nil when it is no motion device.
    public static func describe(node: String, root: String = sysfsRoot) -> EvdevMotionCandidate? {
        let device = "\(root)/\(node)/device"
        guard let properties = SysfsText.read("\(device)/properties").flatMap(lowWord),
              properties & (1 << UInt64(PLX_INPUT_PROP_ACCELEROMETER)) != 0,
              let abs = SysfsText.read("\(device)/capabilities/abs").flatMap(lowWord),
              abs & accelAxes == accelAxes
        else { return nil }
        return EvdevMotionCandidate(node: node, name: SysfsText.read("\(device)/name") ?? node,
                                    hasGyroscope: abs & gyroAxes == gyroAxes)
    }

    /// The lowest 64 bits of a sysfs bitmap ("30000 0 3f": space-separated hex longs, the most
    /// significant first).
    static func lowWord(_ bitmap: String) -> UInt64? {
        bitmap.split(separator: " ").last.flatMap { UInt64($0, radix: 16) }
    }
}

/// Reads one evdev motion device (docs/sensors.md "evdev motion devices"): ABS_X/Y/Z
/// acceleration and ABS_RX/RY/RZ angular rate scaled by their resolution (EvdevMotionAxes),
/// mapped to the screen frame (EvdevKnownDevice.frame), one sample per SYN_REPORT, timed by the
/// device's MSC_TIMESTAMP where it sends one (MotionTimestamps) and by the report's time on
/// CLOCK_MONOTONIC otherwise.
///
/// Pollable: the node is read without blocking, so the event loop may take what it queued
/// (`QueuedSampleSource`). The kernel's queue is small (evdev keeps 8 reports' worth of events,
/// 64 ms of a Steam Deck), so `queueSpan` and the rest pace keep reads well within it; a
/// SYN_DROPPED (an overrun) is recovered by reading every axis's value again.
public final class EvdevMotionDriver: SensorDriver {
    /// Events read per read(2).
    static let readBatch = 64
    /// How long to wait in one poll (ms): bounds how late `shouldStop` is noticed.
    static let pollSliceMilliseconds: Int64 = 50
    /// Silence (ns) after which the log says why motion may not come (hid-steam's lizard mode).
    static let silenceNotice: Int64 = 2_000_000_000

    public let sensors: [SensorDescription]
    let candidate: EvdevMotionCandidate
    /// The open node; -1 once closed.
    private var fd: Int32
    private let axes: EvdevMotionAxes
    private let frame: SensorFrame
    private let hasTimestamps: Bool
    private let logger: Logger
    /// The six axes' current values (ABS_X…ABS_RZ), as the kernel's state holds them: a report
    /// carries only the axes that changed beyond the fuzz.
    private var values: [Int32] = [0, 0, 0, 0, 0, 0]
    private var pendingCount: UInt32?
    /// After SYN_DROPPED: events up to the next SYN_REPORT are incomplete and dropped.
    private var dropping = false
    private var clock = MotionTimestamps()
    private var queue: [Sample] = []
    private var queueHead = 0
    private var events = [plx_input_event](repeating: plx_input_event(), count: EvdevMotionDriver.readBatch)
    private var lastReturned: Int64 = 0
    /// The reports' spacing and the newest one's arrival and sample time.
    private var forecast: ReportForecast
    private var opened: Int64
    private var silenceLogged = false
    private(set) var overruns = 0
    var restPace: RestPace?

    public init(candidate: EvdevMotionCandidate, settings: IIOSettings, logger: Logger) throws(SensorError) {
        self.candidate = candidate
        self.logger = logger
        let fd = plx_evdev_open(candidate.path)
        guard fd >= 0 else {
            let err = errno
            throw SensorError(err == ENOENT || err == ENODEV ? .noSensors : .lost,
                              "cannot open \(candidate.path) (\(candidate.name)): \(SysfsText.describe(errno: err))")
        }
        self.fd = fd
        var done = false
        defer { if !done { Glibc.close(fd) } }
        guard plx_evdev_has_property(fd, UInt32(PLX_INPUT_PROP_ACCELEROMETER)) == 1 else {
            throw SensorError(.noSensors, "\(candidate.path) is no motion device (no INPUT_PROP_ACCELEROMETER)")
        }
        // Event times on the daemon's clock (the default is CLOCK_REALTIME).
        if plx_evdev_set_clock(fd, CLOCK_MONOTONIC) < 0 {
            throw SensorError(.lost, "\(candidate.path): cannot put its event times on CLOCK_MONOTONIC: \(SysfsText.describe(errno: errno))")
        }
        var infos: [plx_absinfo] = []
        for code in [PLX_ABS_X, PLX_ABS_Y, PLX_ABS_Z, PLX_ABS_RX, PLX_ABS_RY, PLX_ABS_RZ] {
            var info = plx_absinfo()
            let present = plx_evdev_has_event(fd, UInt32(PLX_EV_ABS), UInt32(code)) == 1 && plx_evdev_abs(fd, UInt32(code), &info) == 0
            infos.append(present ? info : plx_absinfo())
            if !present && code <= PLX_ABS_Z {
                throw SensorError(.noSensors, "\(candidate.path) (\(candidate.name)) has no acceleration axis \(code)")
            }
        }
        let hasGyro = (3..<6).allSatisfy { infos[$0].resolution != 0 || infos[$0].maximum != 0 }
        switch EvdevMotionAxes.make(accelResolution: infos[0..<3].map(\.resolution), accelFuzz: infos[0..<3].map(\.fuzz),
                                    gyroResolution: hasGyro ? infos[3..<6].map(\.resolution) : nil,
                                    gyroFuzz: hasGyro ? infos[3..<6].map(\.fuzz) : []) {
        case .success(let axes): self.axes = axes
        case .failure(let error): throw SensorError(error.kind, "\(candidate.path) (\(candidate.name)): \(error.message)")
        }
        values = infos.map(\.value)
        hasTimestamps = plx_evdev_has_event(fd, UInt32(PLX_EV_MSC), UInt32(PLX_MSC_TIMESTAMP)) == 1

        var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0
        _ = plx_evdev_id(fd, &bus, &vendor, &product)
        let known = EvdevKnownDevice.lookup(vendor: vendor, product: product)
        let hwdb = udevProperty(subsystem: "input", device: candidate.node, "ACCEL_MOUNT_MATRIX")
        frame = EvdevKnownDevice.frame(known: known, hwdb: hwdb, accelOverride: settings.accelMountMatrix,
                                       gyroOverride: settings.gyroMountMatrix, logger: logger)
        let source = settings.accelMountMatrix != nil ? "config AccelMountMatrix"
            : frame.source == .hwdb ? "udev ACCEL_MOUNT_MATRIX (hwdb)"
            : frame.source == .device ? "the \(known?.name ?? "device")'s known axes"
            : "the input ABI's axes"
        let rate = known?.rate ?? 0
        forecast = ReportForecast(rate: rate)
        opened = MonotonicClock.now()
        let name = candidate.name
        let location = candidate.path
        let timing = hasTimestamps ? "MSC_TIMESTAMP" : "report times"
        var described = [SensorDescription(kind: .accelerometer, device: name, location: location, rate: rate,
                                           mountMatrix: frame.accel, mountMatrixSource: source, frame: frame,
                                           capture: "evdev", quantum: axes.accelQuantum)]
        if hasGyro {
            described.append(SensorDescription(kind: .gyroscope, device: name, location: location, rate: rate,
                                               mountMatrix: frame.gyro, mountMatrixSource: source, frame: frame,
                                               capture: "evdev", quantum: axes.gyroQuantum))
        }
        sensors = described
        logger.notice("capture: evdev \(location) (\(name), \(hex4(vendor)):\(hex4(product))), accelerometer\(hasGyro ? " and gyroscope" : ""), frame from \(source), times from \(timing)")
        if !hasGyro { logger.notice("no gyroscope found: accelerometer-only motion (tilt only, no fast rotation)") }
        done = true
    }

    deinit { close() }

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        while true {
            if let sample = try takeQueued() { return sample }
            if shouldStop() { return nil }
            let rc = plx_wait_readable_until(fd, MonotonicClock.now() + Self.pollSliceMilliseconds * 1_000_000)
            if rc < 0 && errno != EINTR {
                throw SensorError(.lost, "\(candidate.path): waiting for events failed: \(SysfsText.describe(errno: errno))")
            }
            noteSilence()
        }
    }

    /// Reads what the kernel queued (never blocks) into `queue`; how many samples that made.
    @discardableResult
    func readQueued() throws(SensorError) -> Int {
        var made = 0
        while true {
            let n = events.withUnsafeMutableBufferPointer { plx_evdev_read(fd, $0.baseAddress, Int32($0.count)) }
            if n < 0 {
                let err = errno
                // ENODEV: unregistered (hid-steam removes it while another program holds the hidraw node).
                throw SensorError(.lost, "\(candidate.path) (\(candidate.name)) \(err == ENODEV ? "is gone" : "cannot be read: \(SysfsText.describe(errno: err))")")
            }
            if n == 0 { return made }
            for i in 0..<Int(n) where consume(events[i]) { made += 1 }
            if n < Int32(Self.readBatch) { return made }
        }
    }

    /// One event into the state; true when it completed a sample.
    private func consume(_ event: plx_input_event) -> Bool {
        switch (Int(event.type), Int(event.code)) {
        case (Int(PLX_EV_SYN), Int(PLX_SYN_DROPPED)):
            dropping = true
            overruns += 1
            logger.log(level: overruns == 1 ? .notice : .debug, "\(candidate.path): the kernel's event queue overran (\(overruns) so far): samples lost, axes read again")
            return false
        case (Int(PLX_EV_SYN), Int(PLX_SYN_REPORT)):
            if dropping {
                // The state after an overrun: the kernel's current values, the counter's spacing lost.
                dropping = false
                resynchronise()
                pendingCount = nil
                clock.restart()
            }
            let t = clock.time(count: hasTimestamps ? pendingCount : nil, report: event.time_ns)
            pendingCount = nil
            forecast.reported(arrival: event.time_ns, sampleTime: t)
            let accel = frame.accel.apply(axes.acceleration(values[0], values[1], values[2]))
            let gyro = axes.rate(values[3], values[4], values[5]).map { frame.gyro.apply($0) }
            guard accel.isFinite, gyro?.isFinite ?? true else { return false }
            queue.append(Sample(t: t, accel: accel, gyro: gyro))
            return true
        case (Int(PLX_EV_MSC), Int(PLX_MSC_TIMESTAMP)):
            if !dropping { pendingCount = UInt32(bitPattern: event.value) }
            return false
        case (Int(PLX_EV_ABS), let code) where code < 6:
            if !dropping { values[code] = event.value }
            return false
        default:
            return false
        }
    }

    /// Every axis's value as the kernel holds it now (after an overrun).
    private func resynchronise() {
        for code in 0..<6 {
            var info = plx_absinfo()
            if plx_evdev_abs(fd, UInt32(code), &info) == 0 { values[code] = info.value }
        }
    }

    private func noteSilence() {
        guard !silenceLogged, forecast.lastArrival == 0, MonotonicClock.now() - opened > Self.silenceNotice else { return }
        silenceLogged = true
        logger.notice("\(candidate.path) (\(candidate.name)) sent no motion for \(Self.silenceNotice / 1_000_000_000) s: hid-steam mutes a Steam Deck's motion sensors in its lizard mode until Options is held (or with the module option lizard_mode=0)")
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

extension EvdevMotionDriver: QueuedSampleSource {
    /// Half of what the kernel keeps for a reader (evdev's buffer holds 8 reports whose every axis
    /// changed; at rest fewer events per report fit more): beyond it reports may be lost.
    public var queueSpan: Int64 { Int64(forecast.period * 8) }

    public var lastSampleArrival: Int64 { lastReturned }

    public var hasEnded: Bool { false }

    public func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        forecast.expectedArrival(ofSampleAt: time)
    }

    public func takeQueued() throws(SensorError) -> Sample? {
        if queueHead >= queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
            try readQueued()
            guard !queue.isEmpty else { noteSilence(); return nil }
        }
        let sample = queue[queueHead]
        queueHead += 1
        lastReturned = sample.t
        return sample
    }
}

/// Read on the event loop (`LoopCapture`): its node is watched while a due sample is awaited,
/// otherwise the loop takes at the forecast arrival of the sample it needs.
extension EvdevMotionDriver: PollableSource {
    public var nextReadable: Int64 {
        forecast.nextArrival
    }

    public var descriptor: FileDescriptor? { fd >= 0 ? FileDescriptor(rawValue: fd) : nil }
}

/// At rest the device keeps reporting at its rate (nothing in the input ABI slows it down): the
/// loop looks in batches instead of at every report, as few as the kernel's small
/// queue allows (`queueSpan`).
extension EvdevMotionDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        let rate = 1e9 / forecast.period
        var pace = RestPace.choose(available: [], active: rate, request: request, wakesThroughDescriptor: false)
        pace.samplesPerWake = max(1, min(pace.samplesPerWake, Int(Double(queueSpan) / forecast.period)))
        restPace = pace
        return pace
    }

    public func leaveRest() throws(SensorError) { restPace = nil }

    /// The next report's forecast: the loop looks no sooner than that (and a look interval).
    public var restWakeup: RestWakeup { RestWakeup(due: forecast.nextArrival) }

    public func takeResting() throws(SensorError) -> Sample? { try takeQueued() }
}

/// "28de" for 0x28de.
private func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
