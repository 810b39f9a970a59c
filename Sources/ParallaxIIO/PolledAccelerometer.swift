import Logging
import ParallaxMotion

/// An accelerometer read through sysfs beside buffered gyroscope capture: a HID sensor hub whose
/// `accel_3d` buffer iio-sensor-proxy holds for screen rotation (BufferClaim) while `gyro_3d`,
/// which it never reads, is parallaxd's (docs/sensors.md "Beside iio-sensor-proxy").
///
/// Why slowly: the gyroscope carries the motion; the attitude filter needs gravity only to pull
/// the gyroscope's slow drift back, with a time constant of 1/gain seconds, so a few readings a
/// second do it as well as a hundred (`MotionSettings.gravityReferenceRate`, docs/motion.md).
/// Each reading is three synchronous GET_REPORT round trips to the hub's firmware.
final class PolledAccelerometer {
    /// Readings a second at rest (Hz): 1.5 GET_REPORTs/s. Why read at all: a tilt slower than the
    /// gyroscope's rest sensitivity (0.05 rad/s) shows only here.
    static let restRate = 0.5
    /// Consecutive failed readings after which the sensor counts as lost (about 1 s at 8 Hz).
    static let failureLimit = 8

    let device: IIODeviceHandle
    let axis: TriAxis
    /// Time between readings (ns) while moving and at rest.
    let period: Int64
    let restPeriod: Int64
    /// Reads at `restPeriod` while set (the capture rests).
    var resting = false
    /// When the next reading is due (monotonic ns).
    private(set) var nextRead: Int64
    private var consecutiveFailures = 0
    private var garbageReads = 0
    private let logger: Logger

    init(device: IIODeviceHandle, axis: TriAxis, rate: Double, logger: Logger) {
        self.device = device
        self.axis = axis
        let moving = rate.isFinite ? min(max(rate, Self.restRate), 1000) : IIOSettings.defaultPolledAccelerometerRate
        period = Int64(1e9 / moving)
        restPeriod = max(period, Int64(1e9 / Self.restRate))
        nextRead = MonotonicClock.now()
        self.logger = logger
    }

    /// Readings a second while moving (Hz).
    var rate: Double { 1e9 / Double(period) }

    /// A reading if one is due at `now` (blocks while the driver reads; its time is when the
    /// reading began), nil when none is due or the values were unusable. Throws when the device
    /// is gone or failed `failureLimit` times in a row.
    func readIfDue(now: Int64) throws(SensorError) -> Sample? {
        guard now >= nextRead else { return nil }
        let step = resting ? restPeriod : period
        // An absolute schedule, restarted after a stall rather than caught up in a burst.
        nextRead = now - nextRead > step * 4 ? now + step : nextRead + step
        switch axis.readSysfs() {
        case .value(let v):
            consecutiveFailures = 0
            return Sample(t: now, accel: v, gyro: nil)
        case .garbage(let text):
            garbageReads += 1
            if garbageReads == 1 || garbageReads % 1000 == 0 {
                logger.warning("unparseable sysfs value \"\(text)\" from the accelerometer (\(garbageReads) so far); reading skipped")
            }
            return nil
        case .failed(let error):
            if error.isDeviceGone { throw SensorError(.lost, "accelerometer vanished: \(error.description)") }
            consecutiveFailures += 1
            if consecutiveFailures == 1 { logger.warning("reading the accelerometer failed: \(error.description)") }
            if consecutiveFailures >= Self.failureLimit {
                throw SensorError(.lost, "accelerometer reads failed \(consecutiveFailures) times in a row")
            }
            return nil
        }
    }

    /// The next reading comes at once (leaving a rest: gravity now, not in two seconds).
    func readSoon() { nextRead = MonotonicClock.now() }
}
