import ParallaxMotion

/// The capture thread's side of paced capture (the decisions are `SamplePacer`'s and
/// `SampleNeed.wakes`): the loop's word on when it needs samples, and the thread's copy of it.
extension SensorCapture {
    /// nil: the loop never reads a capture thread's source; it drains `events()` when woken.
    public func takeQueuedEvents() -> (events: [Event], dropped: Int, newestArrival: Int64)? { nil }

    /// nil, as for `takeQueuedEvents`: the loop plans no take of its own from this source.
    public func expectedArrival(ofSampleAt time: Int64) -> Int64? { nil }

    /// Says when the loop next needs samples: those read before `need.need` are queued without
    /// waking it; the first one at or after it wakes the loop, which then takes the whole batch.
    /// Other events always wake it.
    ///
    /// Why: the loop only needs samples when a subscriber is due for a frame (30–60 Hz), while
    /// sensors deliver 100–200 Hz. The engine integrates the batch in order, so nothing is lost,
    /// and the sample that wakes the loop is the fresh one the due subscriber gets, so latency
    /// does not grow. The thread itself still wakes per sample: its reads block until one comes.
    public func wakeForSamples(_ need: SampleNeed) {
        word.withLock { w in
            w.need = need
            w.generation &+= 1
        }
    }

    /// The capture thread's copy of the loop's word, advanced on its own between the loop's updates.
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

        /// A sample read at `arrival` is queued; whether it must wake the loop (SamplePacer.swift).
        mutating func take(arrival: Int64) -> Bool { need.wakes(arrival: arrival) }
    }
}
