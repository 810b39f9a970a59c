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

/// Power at rest, carried out on the capture (docs/power.md): the decisions are `RestKeeper`'s.
/// After each batch, order a rest or plan the next batch; while the device rests, plan nothing
/// (the capture wakes the loop at the first motion, or every drain interval with the still
/// samples, which the engine integrates in order); withdraw the rest when the daemon needs
/// samples at full rate again.
extension Supervisor {
    var isResting: Bool { rest.pace != nil }

    /// The pace the sensors run at while resting.
    var restPace: RestPace? { rest.pace }

    /// After a batch has been integrated and delivered.
    func afterBatch() {
        let decision = rest.afterBatch(now: plx_monotonic_ns(), canRest: capture != nil && abilities.rests,
                                       quiet: { [unowned self] in self.events.mayRest(quietFor: $0) })
        switch decision {
        case .planNext: planNextBatch()
        case .order(let order):
            guard let capture else { return }
            cancelTake()
            capture.rest(order)
        case .withdraw: restWithdrawn()
        case .keep: break
        }
    }

    /// Back to full rate at once (recenter, calibration), and for `RestAfter=` at least: what
    /// made the daemon withdraw must show first (a recenter's frame comes with the next sample,
    /// which the capture may not have read yet).
    func withdrawRest() {
        if rest.withdraw(now: plx_monotonic_ns()) { restWithdrawn() }
    }

    /// A reload's rest settings; a rest ordered with the old ones is withdrawn.
    func reconfigureRest(_ settings: RestSettings) {
        if rest.reconfigure(settings, now: plx_monotonic_ns()) { restWithdrawn() }
    }

    private func restWithdrawn() {
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
        if !rest.isRunning {
            withdrawRest()
        } else {
            planNextBatch()
        }
    }

    func restBegan(_ pace: RestPace, order: UInt64) {
        // An answer to an order since withdrawn: the capture sees the withdrawal next.
        guard rest.began(pace, order: order) else { return }
        logger.debug("at rest: \(pace.rate) Hz, \(pace.samplesPerWake) sample(s) per wake-up")
    }

    func restEnded(moved: Bool, order: UInt64) {
        guard rest.ended(order: order) else { return }
        if moved { logger.debug("moving: sensors back to full rate") }
    }
}
