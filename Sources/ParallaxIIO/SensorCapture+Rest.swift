import CLinux
import Glibc
import ParallaxMotion

extension SensorCapture {
    /// Runs the source at rest (`order`), or back at its full rate (nil). The capture thread
    /// answers with `.resting(pace)` once slowed down and `.awake(moved:)` once back.
    ///
    /// Why the capture thread decides the end of a rest: it sees each slow sample first, and
    /// waking the loop for every one of them would cost what resting saves. It wakes the loop
    /// only for the sample that moved (or every `drainInterval`, with what it kept).
    public func rest(_ order: RestOrder?) {
        word.withLock { w in
            w.rest = order
            w.generation &+= 1
        }
        signalCaptureThread()
    }

    /// Wakes the loop for what is queued, if nothing has woken it since it last drained.
    private func nudgeLoop() {
        if shared.withLock({ $0.nudge() }) { wake() }
    }

    /// The capture thread at rest: slow the source down, then wait for its samples (on its
    /// descriptor, or at its pace), test each with the gate, queue them without waking the loop,
    /// and leave at the first that moved, when the loop withdraws the order, or at stop. The
    /// decisions are `RestCycle.Watch`'s.
    func runAtRest(_ source: any RestingSource, order: RestOrder, plan: inout Plan) -> Outcome {
        let pace: RestPace
        do throws(SensorError) {
            pace = try source.enterRest(order.request)
        } catch {
            return .failed(error)
        }
        post(.resting(pace, order: order.serial), wakingLoop: false)
        var watch = RestCycle.Watch(order: order, now: MonotonicClock.now())
        while true {
            // Everything readable now; the queue the source kept while slowing down comes first.
            do throws(SensorError) {
                while let sample = try source.takeResting() {
                    watch.observe(sample, sourceReportedMotion: source.reportedMotion)
                    post(.sample(sample), wakingLoop: false)
                }
            } catch {
                return leaveRest(source, failure: error)
            }
            plan.refresh(self)
            switch watch.look(now: MonotonicClock.now(), order: plan.rest, stopping: isStopping) {
            case .leave(let moved, let serial):
                // The sample that moved goes to the loop before the source is brought back to its
                // full rate: that takes a HID hub one synchronous feature report per attribute
                // (tens of ms each), and the first frame of a motion must not wait for it.
                if moved { nudgeLoop() }
                let outcome = leaveRest(source, failure: nil)
                post(.awake(moved: moved, order: serial))
                if moved {
                    // The order is spent: the loop gives a new one when the device rests again.
                    // Until it plans again, every sample wakes it: the device is moving.
                    word.withLock { if $0.rest?.serial == serial { $0.rest = nil } }
                    plan.rest = nil
                    plan.need = .everySample
                }
                return outcome
            case .stay(let renewed, let drain):
                // Withdrawn and given again before this thread looked: still resting, for the new order.
                if renewed { post(.resting(pace, order: watch.serial), wakingLoop: false) }
                if drain { nudgeLoop() }
            }
            let wakeup = source.restWakeup
            let deadline = watch.deadline(pace: pace, wakeup: wakeup)
            guard let wakeFD else { return leaveRest(source, failure: nil) }
            let ready = plx_wait_either_until(wakeup.descriptor?.rawValue ?? -1, wakeFD.rawValue, deadline)
            if ready < 0 {
                return leaveRest(source, failure: SensorError(.lost, "waiting for the sensors failed: \(String(cString: strerror(errno)))"))
            }
            if ready & 2 != 0 { _ = plx_eventfd_drain(wakeFD.rawValue) }
        }
    }

    /// Back to the full rate, reporting `failure` if there was one (then the source is not asked
    /// to leave its rest: the capture ends and closes it).
    private func leaveRest(_ source: any RestingSource, failure: SensorError?) -> Outcome {
        if let failure { return .failed(failure) }
        do throws(SensorError) { try source.leaveRest() } catch { return .failed(error) }
        return .reading
    }
}
