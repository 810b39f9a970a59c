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
        var forecast = Self.deck(reports: 20, lag: 6_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_996_000_000) == 10_004_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_998_000_000) == 10_004_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_998_000_001) == 10_008_000_000)
        // A frame ahead (60 Hz): four or five reports on.
        #expect(forecast.expectedArrival(ofSampleAt: 9_994_000_000 + 16_666_667) == 10_020_000_000)
    }

    @Test func aNeedAlreadyCarriedIsTheNewestArrival() {
        var forecast = Self.deck(reports: 5, lag: 3_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 9_997_000_000) == 10_000_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: 1) == 10_000_000_000)
    }

    @Test func nothingIsForecastBeforeAReport() {
        var forecast = ReportForecast(rate: 0)
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

    @Test func reportsLaterThanTheirPeriodsMoveTheForecastLater() {
        // Reports on a 4 ms grid, every other one delivered 1.5 ms late (a busy machine): after
        // an on-time report the next promise is 1.5 ms early. The forecast learns to aim later,
        // near the lateness's upper range: (1.5 − m)/4 rising = m/16 falling at m = 1.2 ms.
        var forecast = ReportForecast(rate: 250)
        let grid = { (k: Int) -> Int64 in 1_000_000_000 + Int64(k) * 4_000_000 }
        var k = 0
        func report(late: Int64) {
            _ = forecast.expectedArrival(ofSampleAt: forecast.lastSampleTime + 1)
            forecast.reported(arrival: grid(k) + late, sampleTime: grid(k) - 2_000_000)
            k += 1
        }
        for i in 0..<200 { report(late: i % 2 == 1 ? 1_500_000 : 0) }
        #expect(forecast.margin > 1_000_000 && forecast.margin < 1_400_000, "\(forecast.margin)")
        // The next report: a period after the newest, and the margin.
        #expect(abs(forecast.nextArrival - (forecast.lastArrival + Int64(forecast.period) + forecast.margin)) <= 1)
        // Back on time: the margin falls away, more slowly than it rose.
        for _ in 0..<200 { report(late: 0) }
        #expect(forecast.margin < 100_000, "\(forecast.margin)")
    }

    @Test func farNeedsSaturate() {
        var forecast = Self.deck(reports: 3, lag: 1_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: .max) == .max)
    }
}
