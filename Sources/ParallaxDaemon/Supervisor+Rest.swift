import CLinux
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion

/// `[Sensor] RestAfter=` and `RestRate=` (docs/power.md).
struct RestSettings: Equatable {
    /// Seconds (s) the device must lie still, with nothing left to send, before the sensors slow
    /// down; 0: never. Default 2: re-centring and the last frames of a motion are over by then.
    var after: Double = RestSettings.defaultAfter
    var request = RestRequest()

    static let defaultAfter = 2.0
}

extension RestSettings {
    init(_ config: DaemonConfig) {
        after = config.restAfter
        request = RestRequest(rate: config.restRate)
    }
}

/// Where the capture is, as the loop sees it.
enum RestState: Equatable {
    /// Full rate; the loop plans every batch (SamplePacer).
    case running
    /// The order to rest (`RestOrder.serial`) is given; the capture thread has not answered yet.
    case ordered(UInt64)
    /// The source runs at `pace` for that order; the capture thread wakes the loop at the first motion.
    case resting(RestPace, UInt64)
}

/// Power at rest, the loop's side (docs/power.md): after each batch, decide whether the device
/// has lain still long enough to slow the sensors down; while it rests, plan nothing (the
/// capture thread wakes the loop at the first motion, or every drain interval with the still
/// samples, which the engine integrates in order); withdraw the rest when the daemon needs
/// samples at full rate again.
extension Supervisor {
    var isResting: Bool { restPace != nil }

    /// The pace the sensors run at while resting.
    var restPace: RestPace? {
        if case .resting(let pace, _) = rest { return pace }
        return nil
    }

    /// The order the capture is resting for, or has been given.
    private var restOrder: UInt64? {
        switch rest {
        case .running: nil
        case .ordered(let serial), .resting(_, let serial): serial
        }
    }

    /// After a batch has been integrated and delivered.
    func afterBatch() {
        switch rest {
        case .running:
            if shouldRest() { orderRest() } else { planNextBatch() }
        case .ordered, .resting:
            // A drained batch that published a frame (a re-centring step): back to full rate.
            if !events.mayRest(quietFor: restQuiet) { withdrawRest() }
        }
    }

    /// Back to full rate at once (recenter, calibration, a new rest setting), and for
    /// `RestAfter=` at least: what made the daemon withdraw must show first (a recenter's
    /// frame comes with the next sample, which the capture may not have read yet).
    func withdrawRest() {
        restHeldUntil = plx_monotonic_ns() + restQuiet
        guard rest != .running else { return }
        rest = .running
        capture?.rest(nil)
        logger.debug("rest withdrawn: sensors back to full rate")
        planNextBatch()
    }

    /// A new subscriber waits for a current sample (`Hub.awaitsCurrentSample`): a resting
    /// capture comes back to full rate at once (its next sample may be a rest period away, and
    /// a hub at rest sends none until the device moves), and the next sample wakes the loop.
    /// Opening sensors need nothing: their first sample is current.
    func wantCurrentSample() {
        guard capture != nil else { return }
        if rest != .running {
            withdrawRest()
        } else {
            planNextBatch()
        }
    }

    func restBegan(_ pace: RestPace, order: UInt64) {
        // An answer to an order since withdrawn: the capture thread sees the withdrawal next.
        guard rest == .ordered(order) else { return }
        rest = .resting(pace, order)
        logger.debug("at rest: \(pace.rate) Hz, \(pace.samplesPerWake) sample(s) per wake-up")
    }

    func restEnded(moved: Bool, order: UInt64) {
        guard restOrder == order else { return }
        rest = .running
        if moved { logger.debug("moving: sensors back to full rate") }
    }

    private var restQuiet: Int64 { Int64(restSettings.after * 1e9) }

    private func shouldRest() -> Bool {
        guard restSettings.after > 0, let capture, capture.canRest, newestSample > 0,
              plx_monotonic_ns() >= restHeldUntil else { return false }
        return stillness.stillFor(at: newestSample) >= restSettings.after && events.mayRest(quietFor: restQuiet)
    }

    private func orderRest() {
        guard let capture else { return }
        cancelTake()
        restOrders += 1
        rest = .ordered(restOrders)
        capture.rest(RestOrder(gate: stillness, request: restSettings.request, serial: restOrders))
    }
}
