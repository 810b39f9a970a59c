import Testing
@testable import ParallaxIIO

/// Paced capture's decisions with made-up clocks (ns): who takes the next batch, what follows a
/// take, how long the capture thread sleeps, when a sample wakes the loop.
@Suite struct SamplePacerTests {
    static let now: Int64 = 10_000_000_000
    static let ms: Int64 = 1_000_000

    @Test func theLoopTakesWhenTheSourceKeepsSamplesAndTheNeedIsAhead() {
        let need = SampleNeed(need: Self.now + 16 * Self.ms, following: Self.now + 33 * Self.ms)
        var asked: [Int64] = []
        let plan = SamplePacer.planBatch(need: need, now: Self.now, canTakeQueued: true) { time in
            asked.append(time)
            return time + 2 * Self.ms
        }
        #expect(plan == .loopTakes(at: Self.now + 18 * Self.ms, need: need.need))
        #expect(asked == [need.need])
    }

    @Test func aReplayFasterThanRecordedIsTakenAtItsClockTime() {
        // Sample time runs 4x ahead of the clock: the need 64 ms ahead in sample time is
        // readable 16 ms from now, and waiting for the clock to reach the need would gather a
        // whole batch for one frame.
        let need = SampleNeed(need: Self.now + 64 * Self.ms)
        let plan = SamplePacer.planBatch(need: need, now: Self.now, canTakeQueued: true) { Self.now + ($0 - Self.now) / 4 }
        #expect(plan == .loopTakes(at: Self.now + 16 * Self.ms, need: need.need))
        // Already readable by the clock although ahead in sample time: the capture thread has it.
        let readable = SamplePacer.planBatch(need: need, now: Self.now, canTakeQueued: true) { _ in Self.now }
        #expect(readable == .captureWakes(need))
    }

    @Test(arguments: [
        // (can take, need from now (ns), forecast available)
        (false, 16 * ms, true),          // polled: keeps nothing
        (true, SamplePacer.minimumSleep, true),  // due now: not worth a timer
        (true, 16 * ms, false),           // the capture thread holds the source
    ] as [(Bool, Int64, Bool)])
    func otherwiseTheCaptureThreadWakesTheLoop(canTake: Bool, ahead: Int64, forecastAvailable: Bool) {
        let need = SampleNeed(need: Self.now + ahead, following: nil)
        let plan = SamplePacer.planBatch(need: need, now: Self.now, canTakeQueued: canTake) { forecastAvailable ? $0 : nil }
        #expect(plan == .captureWakes(need))
    }

    @Test func aTakeEndsTheBatchOnlyWithTheFreshSample() {
        let need = Self.now + 16 * Self.ms
        #expect(SamplePacer.afterTake(newest: need, need: need) == .batchEnds)
        #expect(SamplePacer.afterTake(newest: need + 1, need: need) == .batchEnds)
        #expect(SamplePacer.afterTake(newest: need - 1, need: need) == .captureWakes(SampleNeed(need: need)))
        // Nothing taken (0), or the capture thread was reading (nil): it brings the sample.
        #expect(SamplePacer.afterTake(newest: 0, need: need) == .captureWakes(SampleNeed(need: need)))
        #expect(SamplePacer.afterTake(newest: nil, need: need) == .captureWakes(SampleNeed(need: need)))
    }

    @Test func theCaptureThreadSleepsToTheForecastButNeverPastHalfTheQueue() {
        let span = 100 * Self.ms
        // Until the forecast arrival.
        #expect(SamplePacer.sleepTarget(now: Self.now, need: Self.now + 16 * Self.ms, queueSpan: span) { $0 + Self.ms }
            == Self.now + 17 * Self.ms)
        // A need far ahead: the queue span bounds the sleep.
        #expect(SamplePacer.sleepTarget(now: Self.now, need: Self.now + 900 * Self.ms, queueSpan: span) { $0 }
            == Self.now + span)
        // No need (the loop takes): keep the queue from overflowing, without asking the forecast.
        #expect(SamplePacer.sleepTarget(now: Self.now, need: .max, queueSpan: span) { _ in
            Issue.record("forecast asked for .max")
            return 0
        } == Self.now + span)
        // Due now, or a forecast that says now: read instead of sleeping.
        #expect(SamplePacer.sleepTarget(now: Self.now, need: Self.now + SamplePacer.minimumSleep, queueSpan: span) { $0 } == nil)
        #expect(SamplePacer.sleepTarget(now: Self.now, need: Self.now + 16 * Self.ms, queueSpan: span) { _ in Self.now } == nil)
    }

    @Test func theSampleForTheNeedWakesTheLoopAndTheNeedMovesOn() {
        var need = SampleNeed(need: Self.now + 16 * Self.ms, following: Self.now + 33 * Self.ms)
        var woke = need.wakes(arrival: Self.now + 10 * Self.ms)
        #expect(!woke)
        woke = need.wakes(arrival: Self.now + 16 * Self.ms)
        #expect(woke)
        #expect(need == SampleNeed(need: Self.now + 33 * Self.ms))
        woke = need.wakes(arrival: Self.now + 20 * Self.ms)
        #expect(!woke)
        woke = need.wakes(arrival: Self.now + 34 * Self.ms)
        #expect(woke)
        // No forecast after it: wait for the loop's word.
        #expect(need == SampleNeed(need: .max))
        woke = need.wakes(arrival: Self.now + 1_000 * Self.ms)
        #expect(!woke)
        // Every sample wakes the loop while the need is 0.
        var every = SampleNeed.everySample
        let first = every.wakes(arrival: 1)
        let second = every.wakes(arrival: 2)
        #expect(first && second)
        #expect(every == .everySample)
    }
}
