@testable import ParallaxIIO
import Testing

/// How a kernel buffer's forecast learns its margin (ScanForecast): from the scans that meet a
/// promise, not from looks ahead.
struct ScanForecastTests {
    static let period: Int64 = 10_000_000
    static let newest: Int64 = 1_000_000_000

    /// A promise for the next scan, met by a scan waited for `late` ns after it.
    static func lateScan(_ forecast: inout ScanForecast, late: Int64) {
        let promise = forecast.expectedArrival(ofSampleAt: newest + 1, newest: newest)
        forecast.sampleTaken(at: newest + period, waited: true, readTime: promise + late)
    }

    @Test func scansWaitedForRaiseTheMarginAndOnesOnTimeLowerIt() {
        var forecast = ScanForecast(period: Self.period)
        let plain = forecast.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
        for _ in 0..<20 { Self.lateScan(&forecast, late: 4_000_000) }
        let learnt = forecast.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
        #expect(learnt > plain + 3_000_000 && learnt <= plain + 4_000_000)
        for _ in 0..<40 {
            _ = forecast.expectedArrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
            forecast.sampleTaken(at: Self.newest + Self.period, waited: false, readTime: 0)
        }
        #expect(forecast.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest) < learnt - 1_000_000)
    }

    @Test func aLookAheadIsNoPromise() {
        var looked = ScanForecast(period: Self.period)
        var plain = ScanForecast(period: Self.period)
        // Both promise the scan after `newest`; one also looks far ahead meanwhile.
        let promise = looked.expectedArrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
        _ = plain.expectedArrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
        #expect(looked.arrival(ofSampleAt: Self.newest + 5 * Self.period, newest: Self.newest) == Self.newest + 5 * Self.period)
        // The scan meets the first promise, 4 ms late: both learn the same margin.
        looked.sampleTaken(at: Self.newest + Self.period, waited: true, readTime: promise + 4_000_000)
        plain.sampleTaken(at: Self.newest + Self.period, waited: true, readTime: promise + 4_000_000)
        #expect(looked.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest)
                == plain.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest))
        #expect(looked.arrival(ofSampleAt: Self.newest + 1, newest: Self.newest) > promise)
    }
}
