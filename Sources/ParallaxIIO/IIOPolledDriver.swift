import Glibc
import Logging
import ParallaxMotion
import Synchronization

/// Settings of IIO capture.
public struct IIOSettings: Sendable, Equatable {
    /// How often sysfs is polled (Hz). iOS-like parallax needs ≥ 30 Hz of input; 100 Hz keeps
    /// gyro integration accurate at the cost of 600 small reads per second.
    public static let defaultPollRate = 100.0
    /// A device sampling slower than this (Hz) is raised to an available rate (some default to 0 or 1 Hz).
    public static let minimumDeviceRate = 10.0
    /// Readings a second of an accelerometer polled beside buffered gyroscopes while the device
    /// moves (Hz), and the most it is ever read: 25, 75 GET_REPORTs/s on a HID hub (three a
    /// reading), the budget of a hub shared with iio-sensor-proxy. Why more than the 8 Hz of
    /// `MotionSettings().gravityReferenceRate` (the drift correction's floor): sparse readings
    /// sample the motion's linear acceleration instead of averaging it; at 25 Hz the median tilt
    /// error on each oracle recording stays within 0.35° of the full-rate filter's, at 8 Hz it
    /// grew by up to 2° (docs/motion.md "Accelerometer rate", Tests/oracle/test_sparse_accelerometer.py).
    /// At rest: `PolledReadSchedule.restRate`.
    public static let defaultPolledAccelerometerRate = 25.0
    /// Consecutive failed polls after which the sensors count as lost (at 100 Hz: half a second).
    public static let defaultFailureLimit = 50

    public var uri: String
    public var pollRate: Double
    public var accelMountMatrix: MountMatrix?
    public var gyroMountMatrix: MountMatrix?
    public var failureLimit: Int
    public var capture: CaptureMethod
    /// How often an accelerometer whose buffer iio-sensor-proxy holds is read through sysfs
    /// while a gyroscope of another device is buffered and the device moves (Hz), each read
    /// costing a HID hub three GET_REPORTs (docs/sensors.md "Beside iio-sensor-proxy"); never
    /// more than `defaultPolledAccelerometerRate`.
    public var polledAccelerometerRate: Double

    public init(uri: String = "local:", pollRate: Double = IIOSettings.defaultPollRate,
                accelMountMatrix: MountMatrix? = nil, gyroMountMatrix: MountMatrix? = nil,
                failureLimit: Int = IIOSettings.defaultFailureLimit, capture: CaptureMethod = .auto,
                polledAccelerometerRate: Double = IIOSettings.defaultPolledAccelerometerRate) {
        self.uri = uri
        self.polledAccelerometerRate = polledAccelerometerRate
        self.capture = capture
        self.pollRate = pollRate
        self.accelMountMatrix = accelMountMatrix
        self.gyroMountMatrix = gyroMountMatrix
        self.failureLimit = failureLimit
    }
}

/// Polls the raw sysfs attributes of an accelerometer and (if present) a gyroscope through libiio.
///
/// Works on every IIO device with `in_accel_{x,y,z}_raw` (or `_input`), with no buffer or trigger
/// set-up, and coexists with another process holding the buffer. Each value is
/// (raw + offset) × scale in SI units, then rotated into the device frame by the mount matrix.
public final class IIOPolledDriver: SensorDriver, RevisedDescriptions, PollsInPlaceOfBuffer {
    public private(set) var sensors: [SensorDescription]
    private let context: IIOContext
    private let accel: TriAxis
    private let gyro: TriAxis?
    let period: Int64
    /// Time between reads (ns) while the device rests (IIOPolledDriver+Rest.swift); nil: `period`.
    var restPeriod: Int64?
    var nextDeadline: Int64
    private var consecutiveFailures = 0
    private var garbageReads = 0
    private let failureLimit: Int
    private let logger: Logger
    /// Whether the reads keep up with `period` (SlowReadWatch.swift).
    private var slowReads: SlowReadWatch
    /// The devices whose slow reads were said at warning level in this process.
    private static let saidSlow = Mutex<Set<String>>([])
    /// `sensors` once revised (reads found slow), until the capture thread takes it.
    private var revised: [SensorDescription]?

    /// Why buffered capture failed when this driver polls in its place (`SourceAbilities.bufferingFailed`).
    public let bufferingFailed: String?

    /// `capture`: how `status` describes this capture ("polled: <why not buffered>");
    /// `bufferingFailed`: why it polls where a buffer could be tried again (IIODriverSelection).
    public init(settings: IIOSettings, logger: Logger, capture: String = "polled",
                bufferingFailed: String? = nil) throws(SensorError) {
        self.logger = logger
        self.bufferingFailed = bufferingFailed
        context = try IIOContext(uri: settings.uri)
        let isLocal = settings.uri == "local:"
        let found = IIODiscovery.find(in: context.devices, isLocal: isLocal, logger: logger)
        guard let accelChannels = found.accel else {
            let names = context.devices.map { "\($0.id) (\($0.name))" }
            throw SensorError(.noSensors, names.isEmpty
                ? "no IIO devices at \(settings.uri)"
                : "no accelerometer among the IIO devices at \(settings.uri): \(names.joined(separator: ", "))")
        }
        let lookup = MountMatrixLookup(logger: logger)
        let pollRate = max(1, settings.pollRate)
        var descriptions: [SensorDescription] = []

        func open(_ channels: IIODiscovery.Channels, kind: SensorKind) throws(SensorError) -> TriAxis {
            let (matrix, source, frame, notes) = lookup.resolve(
                kind: kind, channels: channels, settings: settings, isLocal: isLocal,
                accelerometer: descriptions.first.map { ($0.frame, accelChannels.device.id) })
            let axis = try TriAxis(kind: kind, channels: channels, matrix: matrix)
            let rate = IIODiscovery.ensureRate(channels.device, atLeast: min(pollRate, IIOSettings.minimumDeviceRate),
                                               wanted: pollRate, logger: logger)
            descriptions.append(SensorDescription(kind: kind, device: channels.device.name,
                                                  location: isLocal ? channels.device.id : "\(settings.uri) \(channels.device.id)",
                                                  rate: min(pollRate, rate ?? pollRate),
                                                  mountMatrix: matrix, mountMatrixSource: source, frame: frame, notes: notes,
                                                  capture: capture, choice: kind == .accelerometer ? found.choice ?? "" : ""))
            logger.info("\(kind == .accelerometer ? "accelerometer" : "gyroscope"): \(channels.device.id) (\(channels.device.name)), mount matrix \(matrix.text) from \(source), polled at \(pollRate) Hz")
            return axis
        }

        accel = try open(accelChannels, kind: .accelerometer)
        if let gyroChannels = found.gyro {
            gyro = try open(gyroChannels, kind: .gyroscope)
        } else {
            gyro = nil
            logger.notice("no gyroscope found: accelerometer-only motion (tilt only, no fast rotation)")
        }
        sensors = descriptions
        period = Int64(1e9 / pollRate)
        slowReads = SlowReadWatch(period: period)
        nextDeadline = MonotonicClock.now()
        failureLimit = settings.failureLimit
    }

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        scheduleNextRead()
        guard MonotonicClock.sleep(until: nextDeadline, shouldStop: shouldStop) else { return nil }
        return try readNow()
    }

    /// An absolute schedule: the read time does not accumulate into drift. After a long stall
    /// (a suspended machine) restart the schedule rather than firing a burst of catch-up reads.
    func scheduleNextRead() {
        let now = MonotonicClock.now()
        let step = restPeriod ?? period
        nextDeadline = now - nextDeadline > step * 10 ? now : nextDeadline + step
    }

    /// Reads both sensors now. The sample's time is the middle of its reads: each read may
    /// wait for the device (a HID hub answers a GET_REPORT per value; the first after the sensor
    /// slept takes 0.22 s), and the values are as old as the reads that returned them.
    func readNow() throws(SensorError) -> Sample {
        let started = MonotonicClock.now()
        let a = read(accel)
        let g = gyro.map(read)
        let finished = MonotonicClock.now()
        // Only at full rate: at rest the period is long on purpose.
        if restPeriod == nil, let slow = slowReads.observe(readTook: finished - started) { sayReadsAreSlow(slow) }
        var sample = Sample(t: started + (finished - started) / 2, accel: nil, gyro: nil)
        var failed = false
        for (result, isAccel) in [(a, true), (g, false)] {
            switch result {
            case .value(let v)?: if isAccel { sample.accel = v } else { sample.gyro = v }
            case .garbage(let text)?:
                garbageReads += 1
                // Once, then rarely: a device stuck on garbage must not flood the journal.
                if garbageReads == 1 || garbageReads % 1000 == 0 {
                    logger.warning("unparseable sysfs value \"\(text)\" from the \(isAccel ? "accelerometer" : "gyroscope") (\(garbageReads) so far); sample skipped")
                }
            case .failed(let error)?:
                if error.isDeviceGone {
                    throw SensorError(.lost, "\(isAccel ? "accelerometer" : "gyroscope") vanished: \(error.description)")
                }
                failed = true
                if consecutiveFailures == 0 {
                    logger.warning("reading the \(isAccel ? "accelerometer" : "gyroscope") failed: \(error.description)")
                }
            case nil: break
            }
        }
        consecutiveFailures = failed ? consecutiveFailures + 1 : 0
        if consecutiveFailures >= failureLimit {
            throw SensorError(.lost, "sensor reads failed \(consecutiveFailures) times in a row")
        }
        return sample
    }

    /// Reads much slower than the period, found once: said in the journal and, through the
    /// revised descriptions, in `status` (the capture line and the rate the reads allow).
    private func sayReadsAreSlow(_ slow: SlowReadWatch.Verdict) {
        let devices = Set(sensors.map(\.location)).sorted().joined(separator: ", ")
        // Once per process and devices at warning level: the service opens the sensors at start
        // (a look for `status`) and again for each subscriber, each a capture of its own.
        let first = Self.saidSlow.withLock { $0.insert(devices).inserted }
        logger.log(level: first ? .warning : .debug, "\(devices): \(slow), not the \(Int((1e9 / Double(period)).rounded())) Hz asked (each raw read waits for the device: docs/sensors.md \"Slow polled reads\")")
        sensors = sensors.map { description in
            var d = description
            d.capture += "; \(slow)"
            d.rate = min(d.rate, slow.rate)
            return d
        }
        revised = sensors
    }

    public func takeRevisedSensors() -> [SensorDescription]? {
        defer { revised = nil }
        return revised
    }

    public func close() {
        // The context is destroyed with this object; nothing else is held open between polls.
    }

    private func read(_ axis: TriAxis) -> TriAxis.Reading { axis.readSysfs() }
}
