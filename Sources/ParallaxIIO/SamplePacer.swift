/// Paced capture's decisions, all in one place: who reads the next batch of samples and when.
/// The threads, locks and eventfds that carry them out live in `SensorCapture` (capture thread)
/// and the daemon's `Supervisor` (event loop); every choice they make is one of the pure
/// functions here, tested with made-up clocks (`SamplePacerTests`).
///
/// States of a capture between two batches the loop takes:
///
/// - **loop takes** (`BatchPlan.loopTakes`): the source keeps samples (`QueuedSampleSource`) and
///   the next need is far enough ahead. The loop arms its own timer at the forecast arrival of
///   the sample the next due subscriber needs and, when it fires, takes everything queued itself
///   (`SensorCapture.takeQueuedEvents`). The capture thread meanwhile only keeps the source
///   from overflowing (its need is `.max`: it sleeps up to half the queue span, `sleepTarget`).
/// - **capture wakes** (`BatchPlan.captureWakes`): a source that keeps nothing (polled sysfs),
///   a need due now, or no forecast. The capture thread reads and wakes the loop with the first
///   sample at or after the need (`SampleNeed.wakes`); with a queued source it first sleeps
///   until the forecast arrival (`sleepTarget`).
///
/// Transitions:
///
/// - after every batch the loop plans the next one: `planBatch` → loop takes | capture wakes;
/// - the loop's timer fires (`afterTake`): the capture thread was reading (the try-lock failed)
///   → capture wakes for the same need; the fresh sample was among those taken → the batch
///   ends (frames go out) and the loop plans again; it was not there yet → capture wakes;
/// - the capture thread delivers the sample for its need → the need becomes the forecast one
///   after it (`SampleNeed.following`), or `.max` until the loop speaks again.
///
/// A third state sits beside these two: **resting** (docs/power.md). While the device lies still
/// the loop plans no batch at all; the capture thread runs the source slowed down
/// (`SensorCapture.runAtRest`), wakes the loop only at the first moving sample or every drain
/// interval, and the loop plans again (`planBatch`) once the capture says it is awake.
///
/// The one exception to "only the capture thread touches drivers": the loop's take, under the
/// capture's slot lock, which the loop only ever *tries* (it never waits for the capture thread),
/// and only on a `QueuedSampleSource`, whose `takeQueued` never blocks.
public enum SamplePacer {
    /// Shortest sleep (or timer) worth planning (ns): below it, waiting for the sample costs no more.
    public static let minimumSleep: Int64 = 500_000

    /// Who takes the next batch.
    public enum BatchPlan: Equatable, Sendable {
        /// The loop's timer at `at` takes what is queued; the sample for `need` should be there.
        case loopTakes(at: Int64, need: Int64)
        /// The capture thread wakes the loop with the first sample at or after `need.need`.
        case captureWakes(SampleNeed)
    }

    /// The plan after a batch, at `now`, for `need` (the daemon's next need). `forecast` is the
    /// source's expected arrival of the sample at a time, nil when the loop cannot take (no
    /// queued source, or the capture thread holds it).
    public static func planBatch(need: SampleNeed, now: Int64, canTakeQueued: Bool,
                                 forecast: (Int64) -> Int64?) -> BatchPlan {
        // The forecast is the clock time: a need is a sample time, which runs ahead of the clock
        // for a replay faster than recorded (a kernel buffer's forecast is never before the need).
        if canTakeQueued, let arrival = forecast(need.need), arrival > now + minimumSleep {
            return .loopTakes(at: arrival, need: need.need)
        }
        return .captureWakes(need)
    }

    /// What follows the loop's take for `need`.
    public enum TakeOutcome: Equatable, Sendable {
        /// The fresh sample came: frames go out and the loop plans the next batch.
        case batchEnds
        /// Not yet (or the capture thread was reading): it wakes the loop with that sample.
        case captureWakes(SampleNeed)
    }

    /// `newest`: when the newest sample taken was taken; nil when the loop could not take.
    public static func afterTake(newest: Int64?, need: Int64) -> TakeOutcome {
        guard let newest, newest >= need else { return .captureWakes(SampleNeed(need: need)) }
        return .batchEnds
    }

    /// When the capture thread should wake from a paced sleep for `need`, at `now`; nil when
    /// there is nothing worth sleeping for (read now). `forecast` is asked only when the need is
    /// a real time; `queueSpan` bounds the sleep so the source never overflows.
    public static func sleepTarget(now: Int64, need: Int64, queueSpan: Int64, forecast: (Int64) -> Int64) -> Int64? {
        guard need > now + minimumSleep else { return nil }
        let arrival = need == .max ? Int64.max : forecast(need)
        let target = min(arrival, now + max(minimumSleep, queueSpan))
        return target > now + minimumSleep ? target : nil
    }
}

extension SampleNeed {
    /// A sample taken at `arrival` is queued on the capture thread; true when it must wake the
    /// loop. Once the need is served the forecast one after it takes over (without one, `.max`:
    /// the capture thread waits for the loop's word).
    public mutating func wakes(arrival: Int64) -> Bool {
        guard arrival >= need else { return false }
        if need > 0 { self = SampleNeed(need: following ?? .max) }
        return true
    }
}
