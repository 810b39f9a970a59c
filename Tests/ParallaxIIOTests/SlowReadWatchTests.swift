import Testing
@testable import ParallaxIIO

/// When polled reads are found too slow for their period, with made-up durations (ns), and the
/// words `status` and the journal get.
@Suite struct SlowReadWatchTests {
    static let ms: Int64 = 1_000_000
    static let period = 10 * ms   // 100 Hz

    @Test func readsFarSlowerThanThePeriodAreSaidOnceAfterThreeInARow() {
        var watch = SlowReadWatch(period: Self.period)
        // st_lsm6dsx with its sensor off: six raw reads of ≈ 300 ms per sample.
        #expect(watch.observe(readTook: 1_850 * Self.ms) == nil)
        #expect(watch.observe(readTook: 1_800 * Self.ms) == nil)
        let verdict = watch.observe(readTook: 1_820 * Self.ms)
        #expect(verdict == SlowReadWatch.Verdict(readTime: 1_800 * Self.ms, rate: 1e9 / Double(1_800 * Self.ms)))
        #expect(verdict?.description == "reads take 1.8 s: polled at 0.56 Hz")
        // Said once: later slow reads, fast ones and slow ones again say nothing more.
        #expect(watch.observe(readTook: 1_800 * Self.ms) == nil)
        #expect(watch.observe(readTook: Self.ms) == nil)
        for _ in 0..<5 { #expect(watch.observe(readTook: 2_000 * Self.ms) == nil) }
        #expect(watch.verdict == verdict)
    }

    @Test func aSingleSlowReadIsNotASlowDevice() {
        // A HID hub's first read after runtime PM (0.22 s), then fast reads: nothing said, and
        // the count starts again after each fast read.
        var watch = SlowReadWatch(period: Self.period)
        for _ in 0..<10 {
            #expect(watch.observe(readTook: 220 * Self.ms) == nil)
            #expect(watch.observe(readTook: 220 * Self.ms) == nil)
            #expect(watch.observe(readTook: 2 * Self.ms) == nil)
        }
        #expect(watch.verdict == nil)
    }

    @Test(arguments: [
        // (read time, slow?) at a 10 ms period: the line is four periods.
        (9 * ms, false), (39 * ms, false), (40 * ms, true), (300 * ms, true),
    ] as [(Int64, Bool)])
    func slowMeansFourPeriodsOrMore(read: Int64, slow: Bool) {
        var watch = SlowReadWatch(period: Self.period)
        let verdicts = (0..<SlowReadWatch.evidence).compactMap { _ in watch.observe(readTook: read) }
        #expect(verdicts.count == (slow ? 1 : 0))
    }

    @Test func theRateIsWhatTheReadsAllowAndTheWordsFitTheSize() {
        var watch = SlowReadWatch(period: Self.period)
        var verdict: SlowReadWatch.Verdict?
        for _ in 0..<3 { verdict = watch.observe(readTook: 50 * Self.ms) ?? verdict }
        #expect(verdict?.description == "reads take 50 ms: polled at 20 Hz")
        var slower = SlowReadWatch(period: Self.period)
        for _ in 0..<3 { verdict = slower.observe(readTook: 320 * Self.ms) ?? verdict }
        #expect(verdict?.description == "reads take 320 ms: polled at 3.1 Hz")
        // A period of 0 (nonsense) is taken as 1 ns, never a division by zero.
        var zero = SlowReadWatch(period: 0)
        for _ in 0..<3 { verdict = zero.observe(readTook: 2_000 * Self.ms) ?? verdict }
        #expect(verdict?.description == "reads take 2 s: polled at 0.5 Hz")
    }
}
