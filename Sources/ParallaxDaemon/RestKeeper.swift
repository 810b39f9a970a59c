import ParallaxIIO
import ParallaxMotion

/// The loop's side of power at rest, as one value (docs/power.md): the settings, the stillness
/// of the raw samples, the newest sample's time and where the capture is (`RestCycle`). It
/// decides; the supervisor carries the decisions out on the capture (Supervisor+Rest.swift), as
/// `SamplePacer` decides pacing and the supervisor arms the timers.
struct RestKeeper {
    /// `[Sensor] RestAfter=`, `RestRate=`.
    private(set) var settings: RestSettings
    /// The raw samples' stillness, fed the same samples in the same order as a resting capture's
    /// gate sees (`RestOrder.gate` is a copy of it).
    private(set) var stillness = Stillness()
    /// The newest sample's time (monotonic ns), 0 before the first.
    private(set) var newestSample: Int64 = 0
    private(set) var cycle = RestCycle()

    init(settings: RestSettings) {
        self.settings = settings
    }

    /// The pace the sensors run at while resting; nil at full rate.
    var pace: RestPace? { cycle.pace }

    /// Full rate, and the loop plans every batch.
    var isRunning: Bool { cycle.phase == .running }

    /// What the supervisor does after a batch has been integrated and delivered.
    enum AfterBatch: Equatable {
        /// Plan the next batch (`SamplePacer.planBatch`).
        case planNext
        /// Give the capture this order; plan nothing.
        case order(RestOrder)
        /// Tell the capture to come back to full rate, then plan the next batch.
        case withdraw
        /// Wait for the capture's next word.
        case keep
    }

    /// - Parameters:
    ///   - canRest: a capture is open and its source can slow down (`SourceAbilities.rests`).
    ///   - quiet: nothing published for `RestAfter=`, nothing left to deliver, nothing needs
    ///     every sample; asked only when the decision hangs on it.
    mutating func afterBatch(now: Int64, canRest: Bool, quiet: @escaping (Int64) -> Bool) -> AfterBatch {
        let hold = holdAfterWithdrawal
        let conditions = RestCycle.Conditions(
            after: settings.after, canRest: canRest,
            stillFor: newestSample > 0 ? stillness.stillFor(at: newestSample) : nil,
            quiet: { quiet(hold) })
        switch cycle.afterBatch(now: now, conditions) {
        case .planNext: return .planNext
        case .order(let serial): return .order(RestOrder(gate: stillness, request: settings.request, serial: serial))
        case .withdraw: return .withdraw
        case .keep: return .keep
        }
    }

    /// Back to full rate (recenter, calibration, a subscriber waiting for a current sample),
    /// holding off the next rest for `RestAfter=`; true when the capture must be told.
    mutating func withdraw(now: Int64) -> Bool {
        cycle.withdraw(now: now, holding: holdAfterWithdrawal)
    }

    /// New settings (a reload); true when they differ and the capture must come back to full
    /// rate (the current rest was ordered with the old ones).
    mutating func reconfigure(_ new: RestSettings, now: Int64) -> Bool {
        guard new != settings else { return false }
        settings = new
        return withdraw(now: now)
    }

    /// A capture opened these sensors: a fresh stillness, coarsened to a device that passes on
    /// only steps of its quantum (an evdev fuzz, docs/sensors.md), and full rate.
    mutating func opened(_ sensors: [SensorDescription]) {
        stillness = Stillness(settings: Stillness.Settings().coarsened(
            accelerometerQuantum: sensors.filter { $0.kind == .accelerometer }.map(\.quantum).max() ?? 0,
            gyroscopeQuantum: sensors.filter { $0.kind == .gyroscope }.map(\.quantum).max() ?? 0))
        cycle.reset()
    }

    mutating func observe(_ sample: Sample) {
        stillness.observe(sample)
        newestSample = max(newestSample, sample.t)
    }

    /// The capture closed, failed or ended: no order stands.
    mutating func captureEnded() {
        cycle.reset()
    }

    /// The capture's answer to an order; false for an order since withdrawn (ignored).
    mutating func began(_ pace: RestPace, order: UInt64) -> Bool {
        cycle.began(pace, order: order)
    }

    /// The capture left the rest for an order; false for an order since withdrawn.
    mutating func ended(order: UInt64) -> Bool {
        cycle.ended(order: order)
    }

    /// `RestAfter=` in ns: how long a withdrawal holds off the next rest, and how long the
    /// daemon must have been quiet before one.
    private var holdAfterWithdrawal: Int64 { Int64(settings.after * 1e9) }
}
