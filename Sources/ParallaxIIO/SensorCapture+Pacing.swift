import CLinux
import ParallaxMotion

/// Paced capture's mechanisms (the decisions are `SamplePacer`'s): the loop's take from a
/// queued source, the forecast it plans with, its word on when it needs samples, and the capture
/// thread's copy of that word and its paced sleep.
extension SensorCapture {
    /// Takes every queued event and then, on the calling thread, every sample the source holds
    /// now, in order; `newestArrival` is when the last sample taken from the source was taken
    /// (0 if none). nil when there is no queued source or the capture thread is reading it (it
    /// then queues what it reads itself).
    ///
    /// Why on the loop: a due frame then costs the daemon one wake-up (the loop's timer at the
    /// forecast arrival) instead of two (the capture thread's, then the loop's). The reads never
    /// block: a non-blocking kernel buffer read, a replay's due samples.
    public func takeQueuedEvents() -> (events: [Event], dropped: Int, newestArrival: Int64)? {
        let taken = slot.withLockIfAvailable { s -> (events: [Event], dropped: Int, newestArrival: Int64)? in
            guard let source = s.forLoop else { return nil }
            var (events, dropped) = events()
            var newest: Int64 = 0
            do throws(SensorError) {
                newest = try source.takeAll(into: &events)
            } catch {
                // The capture thread reports it (and ends), as if it had met it itself.
                s = .failed(error)
                signalCaptureThread()
            }
            return (events, dropped, newest)
        }
        return taken ?? nil
    }

    /// The source's forecast of when the sample for `time` is readable; nil as for `takeQueuedEvents`.
    public func expectedArrival(ofSampleAt time: Int64) -> Int64? {
        let forecast = slot.withLockIfAvailable { s -> Int64? in
            guard let source = s.forLoop else { return nil }
            return source.expectedArrival(ofSampleAt: time)
        }
        return forecast ?? nil
    }

    /// Says when the loop next needs samples: those taken before `need.need` are queued without
    /// waking it; the first one at or after it wakes the loop, which then takes the whole batch.
    /// Other events always wake it.
    ///
    /// Why: the loop only needs samples when a subscriber is due for a frame (30–60 Hz), while
    /// sensors deliver 100–200 Hz. The engine integrates the batch in order, so nothing is lost,
    /// and the sample that wakes the loop is the fresh one the due subscriber gets, so latency
    /// does not grow. With a `QueuedSampleSource` the capture thread itself also sleeps until
    /// then instead of waking per sample.
    public func wakeForSamples(_ need: SampleNeed) {
        let oversleeps = word.withLock { w -> Bool in
            w.need = need
            w.generation &+= 1
            // Wake a paced sleep only if it would oversleep the new need.
            return w.sleepingFor != 0 && need.need < w.sleepingFor
        }
        if oversleeps { signalCaptureThread() }
    }

    /// The capture thread's copy of the loop's need, advanced on its own between the loop's updates.
    struct Plan {
        var need = SampleNeed.everySample
        var rest: RestOrder?
        var generation: UInt64 = .max

        /// Takes the loop's latest word if it has spoken since.
        mutating func refresh(_ capture: SensorCapture) {
            capture.word.withLock { w in
                guard w.generation != generation else { return }
                generation = w.generation
                need = w.need
                rest = w.rest
            }
        }

        /// A sample taken at `arrival` is queued; whether it must wake the loop (SamplePacer.swift).
        mutating func take(arrival: Int64) -> Bool { need.wakes(arrival: arrival) }
    }

    /// Sleeps until the source will have the sample the loop needs, or the loop needs one sooner.
    /// Returns false when there was nothing to sleep for.
    func pacedSleep(_ source: any QueuedSampleSource, plan: Plan) -> Bool {
        guard let wakeFD else { return false }
        let need = plan.need.need
        // The forecast under the slot's lock: the loop may be taking from the source right now.
        guard let target = SamplePacer.sleepTarget(
            now: MonotonicClock.now(), need: need, queueSpan: source.queueSpan,
            forecast: { time in slot.withLock { _ in source.expectedArrival(ofSampleAt: time) } }) else { return false }
        // Noted under the word's lock, with a check that the loop has not spoken since the plan's
        // refresh: a need the loop gives after this sees the sleep and wakes it if sooner.
        let sleeps = word.withLock { w -> Bool in
            guard w.generation == plan.generation, !w.stopping else { return false }
            w.sleepingFor = need
            return true
        }
        if sleeps {
            if plx_wait_readable_until(wakeFD.rawValue, target) > 0 { _ = plx_eventfd_drain(wakeFD.rawValue) }
            word.withLock { $0.sleepingFor = 0 }
        }
        return true
    }
}
