import Testing
@testable import ParallaxDaemon

/// The due grid alone (FramePacing.swift), fed made-up sample times: every subscribed rate of
/// 1–240 Hz against sources of 6.25–400 Hz with jittered sample times, sample by sample and as a
/// loop would take them in batches at the pacing's own need. Issue 31: a subscriber gets
/// min(subscribed, source) within ±3 %, evenly spaced (p95 of |interval − ideal| at most one
/// source period), never more than it asked for; its first frame does not count.
@Suite struct FramePacingTests {
    static let subscribed = [1, 2, 5, 10, 15, 24, 30, 48, 50, 59, 60, 72, 75, 90, 100, 120, 144, 165, 200, 240]
    static let sources = [6.25, 12.5, 25.0, 30.0, 50.0, 60.0, 100.0, 144.0, 200.0, 400.0]

    /// A deterministic generator (SplitMix64): the same jitter on every run.
    struct Jitter {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Uniform in [-1, 1].
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
    }

    /// Sample times of a source at `rate` Hz for `seconds`, each off its nominal time by up to
    /// `jitter` of a period (a timer's or a driver's timestamp noise), starting at an odd offset
    /// so that the grid's phase is arbitrary.
    static func samples(rate: Double, seconds: Double, jitter: Double = jitter, seed: UInt64 = 1) -> [Int64] {
        var random = Jitter(state: seed)
        let period = 1e9 / rate
        let start = 1_234_567_891.0
        return (0..<Int(seconds * rate)).map { i in Int64(start + Double(i) * period + jitter * period * random.unit()) }
    }

    /// What a subscriber is sent: the sample times of its frames, the first excluded.
    struct Delivery {
        var times: [Int64]
        let seconds: Double

        var rate: Double { Double(times.count) / seconds }

        /// p95 of |interval − ideal| (ns).
        func p95Error(ideal: Double) -> Double {
            let errors = zip(times, times.dropFirst()).map { abs(Double($1 - $0) - ideal) }.sorted()
            guard !errors.isEmpty else { return 0 }
            return errors[min(errors.count - 1, Int(Double(errors.count) * 0.95))]
        }
    }

    /// Every sample is a frame (the device moves, MinimumChange=0) and the hub sees each one.
    static func deliverEach(_ times: [Int64], rate: Int) -> Delivery {
        var pacing = FramePacing(rate: rate)
        var sent: [Int64] = []
        for t in times where pacing.isDue(sampleAt: t) {
            pacing.sent(sampleAt: t)
            sent.append(t)
        }
        let seconds = Double(times.last! - times.first!) / 1e9
        return Delivery(times: Array(sent.dropFirst()), seconds: seconds)
    }

    /// As the daemon's loop takes samples: each arrives `latency` after it was taken (plus up to
    /// as much again of jitter), in groups of `group` (a buffered device's watermark: a group
    /// arrives with its last sample). The loop wakes when the sample for the pacing's need has
    /// arrived, takes everything arrived by then, and the hub looks at the newest only.
    static func deliverInBatches(_ times: [Int64], rate: Int, latency: Int64 = 1_000_000, group: Int = 1) -> Delivery {
        var random = Jitter(state: 7)
        var arrivals = times.map { $0 + latency + Int64(Double(latency) * (random.unit() + 1) / 2) }
        for start in stride(from: 0, to: arrivals.count, by: group) {
            let end = min(arrivals.count, start + group)
            let last = arrivals[start..<end].max()!
            for i in start..<end { arrivals[i] = last }
        }
        for i in arrivals.indices.dropFirst() { arrivals[i] = max(arrivals[i], arrivals[i - 1]) }   // in order
        var pacing = FramePacing(rate: rate)
        var sent: [Int64] = []
        var taken = 0
        var now = arrivals[0]
        while taken < times.count {
            let need = pacing.need(latest: taken > 0 ? times[taken - 1] : nil, now: now)
            // The first sample taken at or after the need, and when it arrives.
            guard let first = times[taken...].firstIndex(where: { $0 >= need }) else { break }
            now = max(now, arrivals[first])
            var newest = first
            while newest + 1 < times.count && arrivals[newest + 1] <= now { newest += 1 }
            taken = newest + 1
            let t = times[newest]
            if pacing.isDue(sampleAt: t) {
                pacing.sent(sampleAt: t)
                sent.append(t)
            }
        }
        let seconds = Double(times.last! - times.first!) / 1e9
        return Delivery(times: Array(sent.dropFirst()), seconds: seconds)
    }

    /// Long enough for ±3 % to hold a whole frame at the slowest rate.
    static func seconds(for expected: Double) -> Double { max(20, 40 / expected) }

    /// Sample-time jitter of the grid tests (fraction of a source period, either way).
    static let jitter = 0.2

    /// `jitter`: the samples' own jitter. The frame for a point is the first sample at or after
    /// it, so the spacing error is under one source period when samples come on time; a
    /// jittered sample moves its frame with it, and where the points fall on the samples'
    /// nominal times (30 of 60 Hz in phase) the first sample after a point alternates between
    /// two a period apart: the bound is the longest gap such a source makes, (1 + 2 × jitter)
    /// periods. Measured: up to 1.12 periods at ±20 % (`withoutJitterTheSpacingErrorIsUnderAPeriod`
    /// holds the strict bound).
    static func check(_ delivery: Delivery, rate: Int, source: Double, jitter: Double = jitter, _ how: String) {
        let expected = min(Double(rate), source)
        let label = "\(how): subscribed \(rate) Hz, source \(source) Hz"
        #expect(abs(delivery.rate - expected) <= 0.03 * expected, "\(label): \(delivery.rate) frames/s")
        // Never more than asked for: the grid's points in the span, one more at its edges.
        #expect(Double(delivery.times.count) <= Double(rate) * delivery.seconds + 1, "\(label): \(delivery.times.count) frames")
        let error = delivery.p95Error(ideal: 1e9 / expected)
        #expect(error <= (1 + 2 * jitter) * 1e9 / source, "\(label): p95 spacing error \(error / 1e6) ms")
    }

    @Test(arguments: sources)
    func everySampleSeenGivesTheSubscribedRateOrTheSources(source: Double) {
        for rate in Self.subscribed {
            let times = Self.samples(rate: source, seconds: Self.seconds(for: min(Double(rate), source)))
            Self.check(Self.deliverEach(times, rate: rate), rate: rate, source: source, "each sample")
        }
    }

    @Test(arguments: sources)
    func aLoopTakingBatchesAtTheNeedGivesTheSameRates(source: Double) {
        for rate in Self.subscribed {
            let times = Self.samples(rate: source, seconds: Self.seconds(for: min(Double(rate), source)), seed: 3)
            Self.check(Self.deliverInBatches(times, rate: rate), rate: rate, source: source, "batches")
        }
    }

    @Test(arguments: sources)
    func withoutJitterTheSpacingErrorIsUnderAPeriod(source: Double) {
        for rate in Self.subscribed {
            let times = Self.samples(rate: source, seconds: Self.seconds(for: min(Double(rate), source)), jitter: 0)
            Self.check(Self.deliverEach(times, rate: rate), rate: rate, source: source, jitter: 0, "on time")
        }
    }

    /// Two devices merged in time order (accelerometer and gyroscope at their own rates and
    /// phases): the merged stream is irregular, and the grid still holds.
    @Test(arguments: [(50.0, 100.0), (100.0, 100.0), (100.0, 200.0), (12.5, 400.0)])
    func twoMergedDevices(accel: Double, gyro: Double) {
        for rate in Self.subscribed {
            let seconds = Self.seconds(for: min(Double(rate), gyro))
            let times = (Self.samples(rate: accel, seconds: seconds, seed: 5)
                         + Self.samples(rate: gyro, seconds: seconds, seed: 9).map { $0 + 3_100_000 }).sorted()
            let delivery = Self.deliverEach(times, rate: rate)
            let expected = min(Double(rate), accel + gyro)
            // The merged stream's rate is the sum, its spacing irregular: the rate must hold,
            // never more than asked, spacing within the faster device's period plus the other's.
            #expect(abs(delivery.rate - expected) <= 0.03 * expected, "subscribed \(rate): \(delivery.rate)")
            #expect(Double(delivery.times.count) <= Double(rate) * delivery.seconds + 1)
            #expect(delivery.p95Error(ideal: 1e9 / expected) <= 1e9 / gyro + 1e9 / (accel + gyro), "subscribed \(rate)")
        }
    }

    /// A 60 Hz subscriber of a 100 Hz source: the case issue 31 measured at 40 frames/s.
    @Test func sixtyOfAHundredIsSixty() {
        let times = Self.samples(rate: 100, seconds: 10, jitter: 0)
        let delivery = Self.deliverEach(times, rate: 60)
        #expect(abs(delivery.rate - 60) < 0.5)
        // Frames go at the first sample at or after each point: 20 or 10 ms apart, 1 to 2 ratio.
        let gaps = Set(zip(delivery.times, delivery.times.dropFirst()).map { ($1 - $0 + 500_000) / 1_000_000 })
        #expect(gaps == [10, 20])
    }

    @Test func theFirstFrameIsDueAtOnceAndStartsTheGrid() {
        var pacing = FramePacing(rate: 50)
        #expect(pacing.isDue(sampleAt: 1_013_000_000))
        pacing.sent(sampleAt: 1_013_000_000)
        // The next point of the 20 ms grid, not 20 ms after the frame.
        #expect(pacing.nextDue == 1_020_000_000)
        #expect(!pacing.isDue(sampleAt: 1_019_999_999))
        #expect(pacing.isDue(sampleAt: 1_020_000_000))
    }

    @Test func aLateSampleDoesNotMoveTheGrid() {
        var pacing = FramePacing(rate: 50)
        pacing.sent(sampleAt: 1_000_000_000)
        pacing.sent(sampleAt: 1_039_000_000)   // 19 ms late for the 1.02 s point
        #expect(pacing.nextDue == 1_040_000_000)
    }

    @Test func aGapAcrossTwoPointsOwesOneAndNoMore() {
        var pacing = FramePacing(rate: 100)
        pacing.sent(sampleAt: 1_000_000_000)
        // The next sample comes 25 ms later: it serves 1.01 s; 1.02 s is owed to the next sample.
        pacing.sent(sampleAt: 1_025_000_000)
        #expect(pacing.nextDue == 1_020_000_000)
        #expect(pacing.need(latest: 1_025_000_000, now: 1_026_000_000) == 1_025_000_001)
        #expect(pacing.isDue(sampleAt: 1_026_000_000))
        // A second late of a pause (the source stopped): one frame owed, not a hundred.
        pacing.sent(sampleAt: 2_025_000_000)
        pacing.sent(sampleAt: 2_026_000_000)
        #expect(!pacing.isDue(sampleAt: 2_027_000_000))
    }

    /// MinimumChange: a due sample with nothing to send gives its point up; a still device sends
    /// nothing, and the first frame of a new motion waits for the next point (no pair of frames).
    @Test func aSampleWithNothingToSendGivesItsPointUp() {
        var pacing = FramePacing(rate: 50)
        pacing.sent(sampleAt: 1_000_000_000)
        for t in stride(from: Int64(1_005_000_000), through: 1_095_000_000, by: 5_000_000) where pacing.isDue(sampleAt: t) {
            pacing.passed(sampleAt: t)
        }
        #expect(pacing.nextDue == 1_100_000_000)
        #expect(pacing.need(latest: 1_095_000_000, now: 1_096_000_000) == 1_100_000_000)
        // A second look at the sample just sent is not a sample that brought nothing.
        pacing.sent(sampleAt: 1_100_000_000)
        pacing.passed(sampleAt: 1_100_000_000)
        #expect(pacing.nextDue == 1_120_000_000)
    }

    @Test func aPointPassedOnTheClockStillWaitsForItsSample() {
        var pacing = FramePacing(rate: 50)
        pacing.sent(sampleAt: 1_000_000_000)
        // 1.02 s has passed, the sample taken at it is not in yet (a buffered device's latency):
        // the need stays that sample, not the next point.
        #expect(pacing.need(latest: 1_015_000_000, now: 1_023_000_000) == 1_020_000_000)
        // A client whose socket is backed up: the next point, not every sample.
        #expect(pacing.need(latest: 1_025_000_000, now: 1_026_000_000, drained: false) == 1_040_000_000)
    }

    @Test func extremeTimesSaturate() {
        var pacing = FramePacing(rate: 1)
        pacing.sent(sampleAt: .max - 1)
        #expect(pacing.nextDue == .max)
        #expect(pacing.need(latest: .max, now: .max) == .max)
        var early = FramePacing(rate: 240)
        early.sent(sampleAt: -5)
        #expect(early.nextDue == 0)
    }
}
