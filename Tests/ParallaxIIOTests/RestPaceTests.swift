import Testing
@testable import ParallaxIIO

/// The rest pace out of what a device offers (docs/power.md): the slowest rate at or above the
/// request, and as many samples per wake-up as the pace and the onset budget allow.
@Suite struct RestPaceTests {
    static let bmi160 = [0.78125, 1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600]

    @Test func aDeviceThatOffersTheRestRateWakesPerSample() {
        let pace = RestPace.choose(available: Self.bmi160, active: 200, request: RestRequest(), wakesThroughDescriptor: true)
        #expect(pace == RestPace(rate: 6.25, samplesPerWake: 1, wakesThroughDescriptor: true))
        #expect(pace.wakesPerSecond == 6.25)
        #expect(pace.lookInterval == 160_000_000)
    }

    @Test(arguments: [
        // (slowest offered, samples per wake-up, wake-ups/s)
        (12.5, 2, 6.25),     // round(12.5/6.25) = 2; the first waits 80 ms
        (26.0, 3, 26.0 / 3), // round(4.16) = 4 exceeds the 80 ms budget: 1 + floor(2.08) = 3
        (25.0, 3, 25.0 / 3),
        (104.0, 9, 104.0 / 9), // budget-bound: 1 + floor(8.32)
    ])
    func slowestRatesAboveTheRequestGatherSamplesWithinTheOnsetBudget(slowest: Double, perWake: Int, wakes: Double) {
        let pace = RestPace.choose(available: [slowest, slowest * 2, 400], active: 400, request: RestRequest(),
                                   wakesThroughDescriptor: true)
        #expect(pace.rate == slowest)
        #expect(pace.samplesPerWake == perWake)
        #expect(abs(pace.wakesPerSecond - wakes) < 1e-9)
        // The first sample of a batch waits for the last: within the budget.
        #expect(Double(perWake - 1) / slowest <= Double(RestRequest.defaultOnsetBudget) / 1e9)
    }

    @Test func nothingOfferedKeepsTheActiveRateAndGathersSamples() {
        let pace = RestPace.choose(available: [], active: 200, request: RestRequest(), wakesThroughDescriptor: false)
        #expect(pace.rate == 200)
        #expect(pace.samplesPerWake == 17)  // 1 + floor(200 × 0.08); round(32) is over the budget
    }

    @Test func ratesBelowTheEnginesLongestGapOrAboveTheActiveRateAreNeverChosen() {
        let pace = RestPace.choose(available: [1, 2, 4, 300], active: 200, request: RestRequest(), wakesThroughDescriptor: true)
        #expect(pace.rate == 200)
        #expect(RestRequest(rate: 1).rate == RestRequest.minimumRate)
        #expect(RestRequest(rate: .nan).rate == RestRequest.defaultRate)
    }
}

/// Rates read from sysfs are believed only when plausible, and every rate the drivers compute
/// with stays inside what their integer conversions take.
@Suite struct SysfsRateTests {
    @Test(arguments: [("200", 200.0), ("6.25", 6.25), (" 100000\n", 100_000.0), ("0.001", 0.001)])
    func plausibleRatesAreRead(text: String, hz: Double) {
        #expect(SamplingRate.parse(text) == hz)
    }

    @Test(arguments: ["0", "-5", "1e300", "1e400", "nan", "inf", "100000.5", "0.0009", "5e-324", "", "fast"])
    func implausibleRatesAreNoRate(text: String) {
        #expect(SamplingRate.parse(text) == nil)
    }

    @Test func aWholeRateBeyondIntIsWrittenWithoutTrapping() {
        #expect(FixedRate(200).description == "200")
        #expect(FixedRate(6.25).description == "6.25")
        #expect(FixedRate(1e300).description == "1e+300")
    }

    /// An active rate no device has (a driver that reported 1e300 before rates were checked)
    /// still gives a pace with a sane sample count instead of trapping.
    @Test(arguments: [1e300, Double.greatestFiniteMagnitude, -5, 0])
    func anAbsurdActiveRateGivesASanePace(active: Double) {
        let pace = RestPace.choose(available: [], active: active, request: RestRequest(), wakesThroughDescriptor: true)
        #expect(pace.samplesPerWake >= 1 && pace.samplesPerWake <= RestPace.maximumSamplesPerWake)
        #expect(pace.lookInterval >= 0)
    }
}
