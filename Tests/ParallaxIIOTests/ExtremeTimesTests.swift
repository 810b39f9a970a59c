import Glibc
import Logging
import Testing
@testable import ParallaxIIO

/// Times from outside (a trace's stamps, a need of .max meaning "none") never trap the capture:
/// spans saturate, and a sample that far off is simply never due.
@Suite struct ExtremeTimesTests {
    @Test func saturatingArithmeticClampsAtBothEnds() {
        #expect(Int64.max.saturatingAdding(1) == .max)
        #expect(Int64.min.saturatingAdding(-1) == .min)
        #expect(Int64.max.saturatingSubtracting(-5) == .max)
        #expect(Int64.min.saturatingSubtracting(5) == .min)
        #expect(Int64(4).saturatingSubtracting(9) == -5)
        #expect(Int64.max.saturatingMultiplied(by: 2) == .max)
        #expect(Int64.max.saturatingMultiplied(by: -2) == .min)
        #expect(Int64(saturating: 1e300) == .max && Int64(saturating: -1e300) == .min)
        #expect(Int64(saturating: .nan) == 0 && Int64(saturating: 9_223_372_036_854_775_808.0) == .max)
        #expect(Int64(saturating: 1234.9) == 1234)
    }

    @Test func aTraceSpanningInt64PlaysWithoutTrapping() throws {
        // Stamps from Int64.min to Int64.max: their difference does not fit an Int64.
        let path = try temporaryFile("""
            t_ns,ax,ay,az,gx,gy,gz
            \(Int64.min),0,0,9.81,0,0,0
            \(Int64.min + 5_000_000),0,0,9.81,0,0,0
            \(Int64.max),0,0,9.81,0,0,0

            """)
        defer { unlink(path) }
        for speed in [1.0, 0.01, 1000] {
            let driver = try ReplayDriver(path: path, speed: speed, loop: false, logger: Logger(label: "test"))
            let first = try #require(try driver.nextSample(shouldStop: { false }))
            let second = try #require(try driver.nextSample(shouldStop: { false }))
            #expect(second.t > first.t)
            // The third is ~292 years (at 1×) after the first: never due, asked about without a trap.
            #expect(try driver.takeQueued() == nil)
            let forecast = driver.expectedArrival(ofSampleAt: .max)
            #expect(forecast >= driver.lastSampleArrival)
            _ = driver.expectedArrival(ofSampleAt: second.t + 1)
        }
    }

    @Test func aBufferForecastForAnyTimeSaturates() {
        var forecast = ScanForecast(period: 5_000_000)
        let newest: Int64 = 1_000_000_000
        #expect(forecast.expectedArrival(ofSampleAt: .max, newest: newest) == .max)
        #expect(forecast.expectedArrival(ofSampleAt: .min, newest: newest) == newest + 5_000_000)
        #expect(forecast.expectedArrival(ofSampleAt: newest + 12_000_000, newest: newest) == newest + 15_000_000)
    }
}
