// When an evdev report carrying a sample time becomes readable (ReportForecast.swift): the
// event loop's need is a sample time, and a Steam Deck's counter puts sample times a few ms
// before the reports that carry them.
import Testing
@testable import ParallaxIIO

struct ReportForecastTests {
    /// 250 Hz reports, each arriving `lag` ns after the sample time it carries; the newest at `last`.
    static func deck(reports: Int, lag: Int64, last: Int64 = 10_000_000_000) -> ReportForecast {
        var forecast = ReportForecast(rate: 250)
        for i in (0..<reports).reversed() {
            let arrival = last - Int64(i) * 4_000_000
            forecast.reported(arrival: arrival, sampleTime: arrival - lag)
        }
        return forecast
    }

    @Test func aNeedAfterTheNewestSampleIsTheNextReportNotNow() {
        // The newest report arrived at 10.000 s carrying 9.994 s: a need of 9.996 s is the next
        // report's sample (at 9.998 s), arriving at 10.004 s. Counted from arrivals, the need
        // looked met at once.
        let forecast = Self.deck(reports: 20, lag: 6_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_996_000_000) == 10_004_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_998_000_000) == 10_004_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_998_000_001) == 10_008_000_000)
        // A frame ahead (60 Hz): four or five reports on.
        #expect(forecast.expectedArrival(ofSampleAt: 9_994_000_000 + 16_666_667) == 10_020_000_000)
    }

    @Test func aNeedAlreadyCarriedIsTheNewestArrival() {
        let forecast = Self.deck(reports: 5, lag: 3_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_997_000_000) == 10_000_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 1) == 10_000_000_000)
    }

    @Test func nothingIsForecastBeforeAReport() {
        let forecast = ReportForecast(rate: 0)
        #expect(forecast.period == ReportForecast.defaultPeriod)
        #expect(forecast.expectedArrival(ofSampleAt: 123_456_789) == 123_456_789)
    }

    @Test func theSpacingIsLearntAndGapsAreNot() {
        // Known as 250 Hz, reporting at 200 Hz: the period moves to 5 ms.
        var forecast = ReportForecast(rate: 250)
        var t: Int64 = 1_000_000_000
        for _ in 0..<200 {
            forecast.reported(arrival: t, sampleTime: t - 1_000_000)
            t += 5_000_000
        }
        #expect(abs(forecast.period - 5_000_000) < 10_000, "\(forecast.period)")
        // A device muted for 3 s: the spacing across the gap is no rate.
        forecast.reported(arrival: t + 3_000_000_000, sampleTime: t + 3_000_000_000)
        #expect(abs(forecast.period - 5_000_000) < 10_000, "\(forecast.period)")
    }

    @Test func farNeedsSaturate() {
        let forecast = Self.deck(reports: 3, lag: 1_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: .max) == .max)
    }
}
