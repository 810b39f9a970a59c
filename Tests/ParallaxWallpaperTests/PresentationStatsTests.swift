import ParallaxClient
import Testing
@testable import ParallaxWallpaper

/// Motion to photon as a value: frames drawn, presented and resolved against the daemon frames
/// that arrive after their presentation time; the summary's counts and percentiles.
@Suite struct PresentationStatsTests {
    static let ms: Int64 = 1_000_000

    /// A daemon frame at `t` ms moving along x at `v` offset units per second from x = 0 at t = 0.
    static func sample(_ t: Int64, v: Double = 1) -> ParallaxOffset {
        ParallaxOffset(x: v * Double(t) / 1000, y: 0, vx: v, vy: 0, t: t * ms)
    }

    @Test func aPresentedFrameIsResolvedOnceAFrameAtOrAfterItsPresentationArrives() {
        var stats = PresentationStats()
        _ = stats.received(Self.sample(0))
        _ = stats.received(Self.sample(10))
        // Drawn from the frame at 10 ms, predicted for 30 ms: x = 0.03 exactly on the motion.
        let drawnFrom = Self.sample(10)
        let drawn = drawnFrom.predicted(at: 30 * Self.ms)
        stats.drew(frame: 1, sample: drawnFrom, x: drawn.x, y: drawn.y, drawnAt: 14 * Self.ms, expectedAt: 30 * Self.ms)
        #expect(stats.presented(frame: 1, at: 30 * Self.ms).isEmpty)    // nothing at or after 30 ms yet
        #expect(stats.received(Self.sample(20)).isEmpty)
        let resolved = stats.received(Self.sample(40))
        #expect(resolved.count == 1)
        let frame = resolved[0]
        #expect(frame.frame == 1 && frame.sampleTime == 10 * Self.ms && frame.presentedAt == 30 * Self.ms)
        #expect(frame.latency == 20 * Self.ms && frame.drawnAt == 14 * Self.ms && frame.expectedAt == 30 * Self.ms)
        // The truth at 30 ms is halfway between the frames at 20 and 40 ms: x = 0.03, no error.
        #expect(abs(frame.error) < 1e-12)
        // The nearest frame alone is 10 ms away: 0.01 off at 1 unit/s.
        #expect(frame.nearestGap == 10 * Self.ms && abs(frame.nearestError - 0.01) < 1e-12)
        #expect(stats.summary.resolved == 1 && stats.summary.presented == 1)
    }

    @Test func theErrorIsTheDistanceFromTheTrueOffsetOnBothAxes() {
        var stats = PresentationStats()
        _ = stats.received(ParallaxOffset(x: 0, y: 0, t: 0))
        stats.drew(frame: 7, sample: ParallaxOffset(x: 0, y: 0, t: 0), x: 0.3, y: 0.4, drawnAt: 0, expectedAt: 5 * Self.ms)
        _ = stats.presented(frame: 7, at: 5 * Self.ms)
        let resolved = stats.received(ParallaxOffset(x: 0, y: 0, t: 10 * Self.ms))
        #expect(resolved.count == 1 && abs(resolved[0].error - 0.5) < 1e-12)
    }

    @Test func aFrameFallingOnASampleIsComparedWithThatSample() {
        var stats = PresentationStats()
        stats.drew(frame: 1, sample: Self.sample(0), x: 0.02, y: 0, drawnAt: 0, expectedAt: 16 * Self.ms)
        _ = stats.presented(frame: 1, at: 16 * Self.ms)
        let resolved = stats.received(Self.sample(16))
        #expect(resolved.count == 1)
        #expect(abs(resolved[0].error - 0.004) < 1e-12 && resolved[0].nearestGap == 0)
        #expect(abs(resolved[0].nearestError - 0.004) < 1e-12)
    }

    @Test func repeatedAndOlderDaemonFramesAreIgnored() {
        var stats = PresentationStats()
        _ = stats.received(Self.sample(10))
        stats.drew(frame: 1, sample: Self.sample(10), x: 0.02, y: 0, drawnAt: 0, expectedAt: 20 * Self.ms)
        _ = stats.presented(frame: 1, at: 20 * Self.ms)
        // The same frame again (the subscriber's newest offset after an unrelated dispatch), an
        // older one (a reconnect), a NaN: none resolves anything or moves the truth.
        #expect(stats.received(Self.sample(10)).isEmpty)
        #expect(stats.received(Self.sample(5)).isEmpty)
        #expect(stats.received(ParallaxOffset(x: .nan, y: 0, t: 30 * Self.ms)).isEmpty)
        let resolved = stats.received(Self.sample(30))
        #expect(resolved.count == 1 && abs(resolved[0].error) < 1e-12)
    }

    @Test func theCountsAddUp() {
        var stats = PresentationStats()
        _ = stats.received(Self.sample(0))
        for frame in 1...10 {
            let centre = frame == 3                  // drawn at the centre: no daemon frame behind it
            stats.drew(frame: frame, sample: centre ? nil : Self.sample(0),
                       x: 0, y: 0, drawnAt: 0, expectedAt: Int64(frame) * 10 * Self.ms)
        }
        for frame in 1...6 { _ = stats.presented(frame: frame, at: Int64(frame) * 10 * Self.ms) }
        stats.discarded(frame: 7)
        _ = stats.presented(frame: 42, at: 0)      // never drawn: ignored
        stats.discarded(frame: 42)
        _ = stats.received(Self.sample(45))         // resolves frames 1, 2 and 4 (40 ms ≤ 45 ms)
        let summary = stats.finalSummary
        #expect(summary.drawn == 10 && summary.presented == 6 && summary.discarded == 1 && summary.unanswered == 3)
        #expect(summary.unsampled == 1 && summary.resolved == 3 && summary.unresolved == 2)
        #expect(summary.drawn == summary.presented + summary.discarded + summary.unanswered)
        #expect(summary.presented == summary.unsampled + summary.resolved + summary.unresolved)
        #expect(summary.latencies.allSatisfy { $0 >= 0 } && summary.errors.allSatisfy(\.isFinite))
    }

    @Test func waitingFramesAreBoundedAndCountedWhenDropped() {
        var stats = PresentationStats()
        let many = PresentationStats.waitingLimit + 5
        for frame in 1...many {
            stats.drew(frame: frame, sample: Self.sample(0), x: 0, y: 0, drawnAt: 0, expectedAt: 0)
        }
        #expect(stats.finalSummary.unanswered == many)
        // The dropped ones' feedback, coming late, counts for nothing.
        #expect(stats.presented(frame: 1, at: 5 * Self.ms).isEmpty)
        #expect(stats.finalSummary.presented == 0)
        for frame in 6...many { _ = stats.presented(frame: frame, at: Int64(frame) * Self.ms) }
        #expect(stats.finalSummary.presented == PresentationStats.waitingLimit)
        #expect(stats.finalSummary.unresolved == PresentationStats.waitingLimit)
    }

    @Test func extremeTimesNeitherTrapNorGiveNaN() {
        var stats = PresentationStats()
        _ = stats.received(ParallaxOffset(x: 0, y: 0, t: .min))
        stats.drew(frame: 1, sample: ParallaxOffset(x: 0, y: 0, t: .min), x: .infinity, y: 0, drawnAt: 0, expectedAt: .max)
        _ = stats.presented(frame: 1, at: .max - 1)
        let resolved = stats.received(ParallaxOffset(x: 1, y: 0, t: .max))
        #expect(resolved.count == 1)
        #expect(resolved[0].latency == .max && resolved[0].error.isFinite && resolved[0].nearestGap >= 0)
    }

    @Test func percentilesAreNearestRank() {
        let values = Array(1...100).map(Double.init)
        #expect(PresentationSummary.percentile(0.5, of: values) == 50)
        #expect(PresentationSummary.percentile(0.95, of: values) == 95)
        #expect(PresentationSummary.percentile(0.99, of: values) == 99)
        #expect(PresentationSummary.percentile(1, of: values) == 100)
        #expect(PresentationSummary.percentile(0.99, of: [3.0, 1.0, 2.0]) == 3)
        #expect(PresentationSummary.percentile(0.5, of: [Double]()) == nil)
    }

    @Test func theSummaryMergesSurfacesAndSaysItsCounts() {
        var one = PresentationStats()
        var two = PresentationStats()
        for (index, _) in [0, 1].enumerated() {
            for frame in 1...3 {
                let sample = Self.sample(Int64(frame) * 10)
                if index == 0 {
                    one.drew(frame: frame, sample: sample, x: sample.x, y: 0, drawnAt: 0, expectedAt: 0)
                    _ = one.presented(frame: frame, at: Int64(frame) * 10 * Self.ms)
                } else {
                    two.drew(frame: frame, sample: sample, x: sample.x, y: 0, drawnAt: 0, expectedAt: 0)
                    _ = two.presented(frame: frame, at: Int64(frame) * 10 * Self.ms + 5 * Self.ms)
                }
            }
        }
        _ = one.received(Self.sample(100))
        _ = two.received(Self.sample(100))
        var merged = one.finalSummary
        merged.merge(two.finalSummary)
        #expect(merged.presented == 6 && merged.resolved == 6)
        #expect(merged.firstPresented == 10 * Self.ms && merged.lastPresented == 35 * Self.ms)
        let lines = merged.lines(source: "wp_presentation", refresh: 16_666_667)
        #expect(lines[0] == "presentation: by=wp_presentation drawn=6 presented=6 discarded=0 unanswered=0 unsampled=0 resolved=6 unresolved=0")
        #expect(lines[1] == "presented-rate: 200.0/s refresh=16.667 ms")
        #expect(lines.contains { $0.hasPrefix("sample-to-presented ms: p50=") })
        #expect(lines.contains { $0.hasPrefix("prediction-error: p50=") })
        #expect(PresentationSummary().lines(source: "frame-callback", refresh: nil).last?.hasPrefix("sample-to-presented: no frame resolved") == true)
    }
}
