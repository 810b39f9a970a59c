/// Paced capture's decisions, all in one place: who reads the next batch of samples and when.
/// The loop (`LoopCapture`, its timers and descriptors; the daemon's `Supervisor`) and the
/// capture thread (`SensorCapture`) carry them out; every choice they make is one of the pure
/// functions here, tested with made-up clocks (`SamplePacerTests`).
///
/// States of a capture between two batches the loop takes:
///
/// - **loop takes** (`BatchPlan.loopTakes`): the loop reads the source itself (a
///   `PollableSource`: a replay, an evdev node, local IIO buffers, which keep samples) and the
///   next need is far enough ahead. The supervisor arms a timer at the forecast arrival of the
///   sample the next due subscriber needs and, when it fires, takes everything queued
///   (`LoopCapture.takeQueuedEvents`). Meanwhile the capture's own need is `.max`: it only keeps
///   the source from overflowing (it looks at most every half queue span, `sleepTarget`).
/// - **capture wakes** (`BatchPlan.captureWakes`): a source read on a capture thread (polled
///   sysfs, an accelerometer polled beside buffers, a remote context: reads that block and keep
///   nothing), a need due now, or no forecast. The capture reads and wakes the loop with the
///   first sample at or after the need (`SampleNeed.wakes`); `LoopCapture` first waits for the
///   forecast arrival (`sleepTarget`), a capture thread's read blocks until a sample comes.
///
/// Transitions:
///
/// - after every batch the loop plans the next one: `planBatch` → loop takes | capture wakes;
/// - the loop's timer fires (`afterTake`): the source could not be taken from (it went to rest,
///   or a slow write of it runs away from the loop) → capture wakes for the same need; the fresh
///   sample was among those taken → the batch ends (frames go out) and the loop plans again; it
///   was not there yet → capture wakes;
/// - the capture delivers the sample for its need → the need becomes the forecast one after it
///   (`SampleNeed.following`), or `.max` until the loop speaks again.
///
/// A third state sits beside these two: **resting** (docs/power.md). While the device lies still
/// the loop plans no batch at all; the capture runs the source slowed down (`LoopCapture`'s rest
/// steps, `SensorCapture.runAtRest`), wakes the loop only at the first moving sample or every
/// drain interval, and the loop plans again (`planBatch`) once the capture says it is awake.
public enum SamplePacer {
    /// Shortest sleep (or timer) worth planning (ns): below it, waiting for the sample costs no more.
    public static let minimumSleep: Int64 = 500_000

    /// Who takes the next batch.
    public enum BatchPlan: Equatable, Sendable {
        /// The loop's timer at `at` takes what is queued; the sample for `need` should be there.
        case loopTakes(at: Int64, need: Int64)
        /// The capture wakes the loop with the first sample at or after `need.need`.
        case captureWakes(SampleNeed)
    }

    /// The plan after a batch, at `now`, for `need` (the daemon's next need). `forecast` is the
    /// source's expected arrival of the sample at a time, nil when the loop cannot take from it
    /// now (a capture thread's source, or one at rest or away).
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
        /// Not yet (or the source could not be taken from): the capture wakes the loop with that sample.
        case captureWakes(SampleNeed)
    }

    /// `newest`: when the newest sample taken was taken; nil when the loop could not take.
    public static func afterTake(newest: Int64?, need: Int64) -> TakeOutcome {
        guard let newest, newest >= need else { return .captureWakes(SampleNeed(need: need)) }
        return .batchEnds
    }

    /// When the capture should look at the source again for `need`, at `now`; nil when
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
    /// A sample taken at `arrival` is queued by the capture; true when it must wake the loop.
    /// Once the need is served the forecast one after it takes over (without one, `.max`: the
    /// capture waits for the loop's word).
    public mutating func wakes(arrival: Int64) -> Bool {
        guard arrival >= need else { return false }
        if need > 0 { self = SampleNeed(need: following ?? .max) }
        return true
    }
}
