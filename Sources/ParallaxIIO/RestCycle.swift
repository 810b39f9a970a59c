import ParallaxMotion

/// Rest's decisions, all in one place (docs/power.md): when the loop orders a rest, which
/// answers it takes, when it withdraws, and, on the capture thread, when a rest ends, when the
/// kept still samples go to the loop and when the thread looks next. The threads, locks and
/// eventfds that carry them out live in `SensorCapture` (capture thread) and the daemon's
/// `Supervisor` (event loop); every choice they make is a transition here, tested with made-up
/// clocks (`RestCycleTests`), as `SamplePacer` is for pacing.
///
/// States, as the loop sees them (`phase`):
///
/// - **running**: full rate; the loop plans every batch (`SamplePacer`). After a batch
///   (`afterBatch`) a device still for `RestAfter=`, with nothing left to send, is ordered to
///   rest: a new serial, → ordered.
/// - **ordered(serial)**: the capture thread has the order (`RestOrder`) and has not answered.
///   Its answer `.resting(pace, serial)` (`began`) → resting; an answer for an older serial (an
///   order since withdrawn) is ignored.
/// - **resting(pace, serial)**: the capture thread runs the source slowed down (`Watch`) and
///   wakes the loop only at the first sample that moved, or every drain interval.
///
/// Transitions back to running: the capture thread's `.awake` for the current order (`ended`);
/// the loop's withdrawal (`withdraw`: a recenter, a calibration, a new setting, a subscriber
/// that waits for a current sample, a drained batch that published a frame), which also holds
/// off the next rest for `RestAfter=`; a capture that opens, fails or closes (`reset`).
///
/// The capture's half, while it rests for an order, is `Watch`: its own state (the gate, the
/// serial it answered, what it kept for the loop) because the supervisor does not see each slow
/// sample. The halves stay two, and the serials stay, for captures read on the loop too
/// (`LoopCapture`): their rest begins only after the device's slow write (`BackgroundTask`), so
/// `ordered` lasts tens of ms on a HID hub and an order can be withdrawn meanwhile
/// (docs/decisions.md "Capture on the event loop").
public struct RestCycle: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        case running
        case ordered(UInt64)
        case resting(RestPace, UInt64)
    }

    public private(set) var phase = Phase.running
    /// Orders given so far: the serial of the newest.
    public private(set) var orders: UInt64 = 0
    /// No rest before this (monotonic ns): set when a rest is withdrawn.
    public private(set) var heldUntil: Int64 = 0

    public init() {}

    /// The pace the source runs at while resting.
    public var pace: RestPace? {
        if case .resting(let pace, _) = phase { return pace }
        return nil
    }

    /// The order the capture is resting for, or has been given.
    public var order: UInt64? {
        switch phase {
        case .running: nil
        case .ordered(let serial), .resting(_, let serial): serial
        }
    }

    /// What the loop does after a batch has been integrated and delivered.
    public enum AfterBatch: Sendable, Equatable {
        /// Running: plan the next batch (`SamplePacer.planBatch`).
        case planNext
        /// Give the capture the order with this serial; plan nothing.
        case order(UInt64)
        /// Resting or ordered, and something was published: the capture goes back to full
        /// rate (tell it, then plan the next batch).
        case withdraw
        /// Resting or ordered, nothing new: wait for the capture's next word.
        case keep
    }

    /// Whether the device may rest, as the loop sees it after a batch.
    public struct Conditions {
        /// `RestAfter=` (s); 0: never.
        public var after: Double
        /// The open source can slow down (`RestingSource`).
        public var canRest: Bool
        /// How long (s) the raw samples have been still, at the newest one's time; nil before
        /// the first sample (`Stillness.stillFor`).
        public var stillFor: Double?
        /// Nothing published for `after`, nothing left to deliver, nothing that needs every
        /// sample (a calibration): asked last, only when the decision hangs on it.
        public var quiet: () -> Bool

        public init(after: Double, canRest: Bool, stillFor: Double?, quiet: @escaping () -> Bool) {
            self.after = after
            self.canRest = canRest
            self.stillFor = stillFor
            self.quiet = quiet
        }

        /// `after` in ns: how long a withdrawal holds off the next rest.
        public var hold: Int64 { Int64(saturating: after * 1e9) }
    }

    public mutating func afterBatch(now: Int64, _ conditions: Conditions) -> AfterBatch {
        switch phase {
        case .running:
            guard conditions.after > 0, conditions.canRest, let still = conditions.stillFor, now >= heldUntil,
                  still >= conditions.after, conditions.quiet() else { return .planNext }
            orders += 1
            phase = .ordered(orders)
            return .order(orders)
        case .ordered, .resting:
            // A drained batch that published a frame (a re-centring step): back to full rate.
            guard !conditions.quiet() else { return .keep }
            return withdraw(now: now, holding: conditions.hold) ? .withdraw : .keep
        }
    }

    /// Back to full rate at once, and no rest for `holding` ns: what made the loop withdraw must
    /// show first (a recenter's frame comes with the next sample, which the capture may not have
    /// read yet). True when there was an order or a rest to withdraw: tell the capture.
    public mutating func withdraw(now: Int64, holding: Int64) -> Bool {
        heldUntil = now.saturatingAdding(holding)
        guard phase != .running else { return false }
        phase = .running
        return true
    }

    /// The capture's `.resting(pace, order:)`; false (ignored) for an order since withdrawn.
    public mutating func began(_ pace: RestPace, order: UInt64) -> Bool {
        guard phase == .ordered(order) else { return false }
        phase = .resting(pace, order)
        return true
    }

    /// The capture's `.awake(order:)`; false (ignored) for an order since withdrawn.
    public mutating func ended(order: UInt64) -> Bool {
        guard self.order == order else { return false }
        phase = .running
        return true
    }

    /// A capture opened, failed, ended or closed: whatever it was ordered is gone with it.
    public mutating func reset() { phase = .running }
}

/// The loop's order to run a source at rest (docs/power.md).
public struct RestOrder: Sendable, Equatable {
    /// The loop's stillness so far: the capture thread tests each slow sample with it and ends
    /// the rest at the first that moved.
    public var gate: Stillness
    public var request: RestRequest
    /// Longest (ns) the capture thread keeps still samples from the loop: the engine integrates
    /// them late but in order; this bounds the queue and keeps the status report current.
    public var drainInterval: Int64
    /// Tells the loop which order an answer is for (it may have withdrawn one and given another).
    public var serial: UInt64

    /// 2 s: half a wake-up a second for the loop, and a re-centring step that still moves a
    /// little at rest shows within 2 s.
    public static let defaultDrainInterval: Int64 = 2_000_000_000

    public init(gate: Stillness, request: RestRequest = RestRequest(),
                drainInterval: Int64 = RestOrder.defaultDrainInterval, serial: UInt64 = 0) {
        self.gate = gate
        self.serial = serial
        self.request = request
        self.drainInterval = max(100_000_000, drainInterval)
    }
}

extension RestCycle {
    /// The capture thread's half of a rest, from the order it was given until it leaves.
    public struct Watch: Sendable, Equatable {
        /// The loop's stillness, advanced by each slow sample.
        public private(set) var gate: Stillness
        /// The order this rest answers (`.resting`, `.awake`).
        public private(set) var serial: UInt64
        public let drainInterval: Int64
        /// A slow sample moved (or the source reported motion): the rest ends.
        public private(set) var moved = false
        /// Samples were queued for the loop since it was last woken: only they need a drain. A
        /// source that sends nothing at rest (a hub) then leaves the thread asleep with no deadline.
        public private(set) var kept = false
        /// When the loop was last woken (or had nothing to be woken for), and when the thread last looked.
        public private(set) var lastLoopWake: Int64
        public private(set) var lastLook: Int64

        public init(order: RestOrder, now: Int64) {
            gate = order.gate
            serial = order.serial
            drainInterval = order.drainInterval
            lastLoopWake = now
            lastLook = now
        }

        /// A slow sample taken from the source, to be queued for the loop (without waking it).
        public mutating func observe(_ sample: Sample, sourceReportedMotion: Bool) {
            if gate.observe(sample) || sourceReportedMotion { moved = true }
            kept = true
        }

        /// What the capture thread does after taking everything readable.
        public enum Look: Sendable, Equatable {
            /// Leave the rest: wake the loop first if `moved` (the moving sample must not wait for
            /// the source's return to full rate), then answer `.awake(moved:order: serial)`.
            case leave(moved: Bool, serial: UInt64)
            /// Stay: answer `.resting` again if the order was `renewed` (withdrawn and given
            /// again before the thread looked), wake the loop if a `drain` is due; then wait.
            case stay(renewed: Bool, drain: Bool)
        }

        /// At `now`, with the loop's current order (`order`, nil when withdrawn) and whether the
        /// capture is stopping.
        public mutating func look(now: Int64, order: RestOrder?, stopping: Bool) -> Look {
            lastLook = now
            guard !moved, let order, !stopping else { return .leave(moved: moved, serial: serial) }
            let renewed = order.serial != serial
            serial = order.serial
            var drain = false
            if !kept {
                lastLoopWake = now
            } else if now - lastLoopWake >= drainInterval {
                drain = true
                lastLoopWake = now
                kept = false
            }
            return .stay(renewed: renewed, drain: drain)
        }

        /// When (monotonic ns) to look next, for a source at `pace` that says `wakeup`: a source
        /// with a descriptor at its due time (`.max`: when the descriptor says), another at least
        /// a look interval after the last look; sooner if kept samples are due to drain.
        public func deadline(pace: RestPace, wakeup: RestWakeup) -> Int64 {
            let earliest = lastLook.saturatingAdding(pace.lookInterval)
            let paced = wakeup.due == .max ? earliest : max(wakeup.due, earliest)
            let drain = kept ? lastLoopWake.saturatingAdding(drainInterval) : Int64.max
            return min(drain, wakeup.descriptor != nil ? wakeup.due : paced)
        }
    }
}
