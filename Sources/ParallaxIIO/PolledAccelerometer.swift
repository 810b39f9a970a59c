import Logging
import ParallaxMotion

/// An accelerometer read through sysfs beside buffered gyroscope capture: a HID sensor hub whose
/// `accel_3d` buffer iio-sensor-proxy holds for screen rotation (BufferClaim) while `gyro_3d`,
/// which it never reads, is parallaxd's (docs/sensors.md "Beside iio-sensor-proxy").
///
/// How often (`PolledReadSchedule`): 25 readings a second while moving, 75 GET_REPORTs on a HID
/// hub (each reading is three synchronous GET_REPORT round trips to the hub's firmware), 0.5 at
/// rest. The attitude filter needs gravity only to pull the gyroscope's slow drift back, which 8
/// readings a second do (`MotionSettings.gravityReferenceRate`); 25 is for the motion's linear
/// acceleration, which sparse readings sample instead of average (docs/motion.md
/// "Accelerometer rate": within 0.35° of the full-rate filter's median tilt error on the oracle
/// recordings).
final class PolledAccelerometer {
    /// Consecutive failed readings after which the sensor counts as lost: a third of a second of
    /// fast errors while moving, or eight GET_REPORTs the hub left unanswered (5 s each).
    static let failureLimit = 8

    let device: IIODeviceHandle
    let axis: TriAxis
    private var schedule: PolledReadSchedule
    private var consecutiveFailures = 0
    private var garbageReads = 0
    private let logger: Logger

    init(device: IIODeviceHandle, axis: TriAxis, rate: Double, logger: Logger) {
        self.device = device
        self.axis = axis
        schedule = PolledReadSchedule(rate: rate, now: MonotonicClock.now())
        self.logger = logger
    }

    /// Readings a second while moving (Hz).
    var rate: Double { schedule.rate }
    /// Time between readings while moving (ns).
    var period: Int64 { schedule.period }
    /// When the next reading is due (monotonic ns).
    var nextRead: Int64 { schedule.nextRead }
    /// Reads at the rest rate while set (the capture rests).
    var resting: Bool {
        get { schedule.resting }
        set { schedule.resting = newValue }
    }

    /// A reading if one is due at `now` (blocks while the driver reads; its time is when the
    /// reading began), nil when none is due or the values were unusable. Throws when the device
    /// is gone or failed `failureLimit` times in a row.
    func readIfDue(now: Int64) throws(SensorError) -> Sample? {
        guard schedule.take(now: now) else { return nil }
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
    func readSoon() { schedule.readAt(MonotonicClock.now()) }
}
