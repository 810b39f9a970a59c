import CLinux
import Glibc
import ParallaxMotion

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

extension SensorCapture {
    /// Whether the opened source can slow down at rest (`RestingSource`).
    public var canRest: Bool { hasRestingSource.load(ordering: .acquiring) }

    /// Runs the source at rest (`order`), or back at its full rate (nil). The capture thread
    /// answers with `.resting(pace)` once slowed down and `.awake(moved:)` once back.
    ///
    /// Why the capture thread decides the end of a rest: it sees each slow sample first, and
    /// waking the loop for every one of them would cost what resting saves. It wakes the loop
    /// only for the sample that moved (or every `drainInterval`, with what it kept).
    public func rest(_ order: RestOrder?) {
        restOrder.withLock { $0 = order }
        requestGeneration.add(1, ordering: .sequentiallyConsistent)
        signalCaptureThread()
    }

    /// Wakes the loop for what is queued, if nothing has woken it since it last drained.
    private func nudgeLoop() {
        let mustWake = shared.withLock { s -> Bool in
            guard !s.wakePending else { return false }
            s.wakePending = true
            return true
        }
        if mustWake { wake() }
    }

    /// The capture thread at rest: slow the source down, then wait for its samples (on its
    /// descriptor, or at its pace), test each with the gate, queue them without waking the loop,
    /// and leave at the first that moved, when the loop withdraws the order, or at stop.
    func runAtRest(_ source: any RestingSource, order: RestOrder, plan: inout Plan) -> Outcome {
        var gate = order.gate
        let pace: RestPace
        do throws(SensorError) {
            // Under the slot's lock, taken from the loop: from here it takes nothing itself.
            pace = try slot.withLock { s throws(SensorError) -> RestPace in
                s.setResting(true)
                return try source.enterRest(order.request)
            }
        } catch {
            return .failed(error)
        }
        var serial = order.serial
        post(.resting(pace, order: serial), wakingLoop: false)
        var lastLoopWake = MonotonicClock.now()
        var lastLook = lastLoopWake
        var moved = false
        // Samples queued for the loop since it was last woken: only they need a drain. A source
        // that sends nothing at rest (a hub) then leaves this thread asleep with no deadline.
        var kept = false
        while true {
            // Everything readable now; the queue the source kept while slowing down comes first.
            let failure = slot.withLock { s -> SensorError? in
                if let failure = s.failure { return failure }
                do throws(SensorError) {
                    while let sample = try source.takeResting() {
                        if gate.observe(sample) || source.reportedMotion { moved = true }
                        post(.sample(sample), wakingLoop: false)
                        kept = true
                    }
                } catch {
                    return error
                }
                return nil
            }
            if let failure { return leaveRest(source, failure: failure) }
            let now = MonotonicClock.now()
            lastLook = now
            plan.refresh(self)
            if moved || plan.rest == nil || stopping.load(ordering: .acquiring) {
                // The sample that moved goes to the loop before the source is brought back to its
                // full rate: that takes a HID hub one synchronous feature report per attribute
                // (tens of ms each), and the first frame of a motion must not wait for it.
                if moved { nudgeLoop() }
                let outcome = leaveRest(source, failure: nil)
                post(.awake(moved: moved, order: serial))
                if moved {
                    // The order is spent: the loop gives a new one when the device rests again.
                    // Until it plans again, every sample wakes it: the device is moving.
                    restOrder.withLock { if $0?.serial == serial { $0 = nil } }
                    plan.rest = nil
                    plan.need = .everySample
                }
                return outcome
            }
            if let renewed = plan.rest, renewed.serial != serial {
                // Withdrawn and given again before this thread looked: still resting, for the new order.
                serial = renewed.serial
                post(.resting(pace, order: serial), wakingLoop: false)
            }
            if !kept {
                lastLoopWake = now
            } else if now - lastLoopWake >= order.drainInterval {
                nudgeLoop()
                lastLoopWake = now
                kept = false
            }
            let wakeup = source.restWakeup
            let paced = wakeup.due == .max ? lastLook + pace.lookInterval : max(wakeup.due, lastLook + pace.lookInterval)
            let drain = kept ? lastLoopWake + order.drainInterval : Int64.max
            let deadline = min(drain, wakeup.descriptor >= 0 ? wakeup.due : paced)
            guard let wakeFD else { return leaveRest(source, failure: nil) }
            let ready = plx_wait_either_until(wakeup.descriptor, wakeFD.rawValue, deadline)
            if ready < 0 {
                return leaveRest(source, failure: SensorError(.lost, "waiting for the sensors failed: \(String(cString: strerror(errno)))"))
            }
            if ready & 2 != 0 { _ = plx_eventfd_drain(wakeFD.rawValue) }
        }
    }

    /// Back to the full rate (the slot's `resting` cleared), reporting `failure` if there was one.
    private func leaveRest(_ source: any RestingSource, failure: SensorError?) -> Outcome {
        let left = slot.withLock { s -> SensorError? in
            defer { s.setResting(false) }
            guard failure == nil else { return nil }
            do throws(SensorError) { try source.leaveRest() } catch { return error }
            return nil
        }
        if let error = failure ?? left { return .failed(error) }
        return .reading
    }
}
