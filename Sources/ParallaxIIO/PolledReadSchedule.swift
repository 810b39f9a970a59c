/// When an accelerometer read through sysfs beside a buffered gyroscope is due
/// (`PolledAccelerometer`): every `period` while the device moves, every `restPeriod` while it
/// rests, on an absolute beat. Apart from the device so that what it costs the hub (readings a
/// second, three GET_REPORTs each on a HID sensor hub) is checked without one.
struct PolledReadSchedule {
    /// Readings a second at rest (Hz): 1.5 GET_REPORTs/s on a HID hub, under the budget of 2.
    /// Why read at all: a tilt slower than the gyroscope's rest sensitivity (0.05 rad/s) shows
    /// only here. Any slower rate keeps the filter's gain at rest (a reading whose interval the
    /// gyroscope saw stationary counts for its whole interval, docs/motion.md).
    static let restRate = 0.5

    /// Time between readings (ns) while moving and at rest.
    let period: Int64
    let restPeriod: Int64
    /// Reads at `restPeriod` while set (the capture rests).
    var resting = false
    /// When the next reading is due (monotonic ns).
    private(set) var nextRead: Int64

    /// `rate`: readings a second while moving (Hz), kept within [`restRate`,
    /// `IIOSettings.defaultPolledAccelerometerRate`] (the hub's budget beside iio-sensor-proxy);
    /// not a number: that rate.
    init(rate: Double, now: Int64) {
        let budget = IIOSettings.defaultPolledAccelerometerRate
        let moving = rate.isFinite ? min(max(rate, Self.restRate), budget) : budget
        period = Int64((1e9 / moving).rounded())
        restPeriod = max(period, Int64((1e9 / Self.restRate).rounded()))
        nextRead = now
    }

    /// Readings a second while moving (Hz).
    var rate: Double { 1e9 / Double(period) }

    /// Whether a reading is due at `now`; if so, the next one is scheduled.
    mutating func take(now: Int64) -> Bool {
        guard now >= nextRead else { return false }
        let step = resting ? restPeriod : period
        // An absolute schedule, restarted after a stall rather than caught up in a burst.
        nextRead = now - nextRead > step * 4 ? now + step : nextRead + step
        return true
    }

    /// The next reading comes at `now` (leaving a rest: gravity now, not in two seconds).
    mutating func readAt(_ now: Int64) { nextRead = now }
}
