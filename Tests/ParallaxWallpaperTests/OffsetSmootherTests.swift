import ParallaxClient
import Testing
import Glibc
@testable import ParallaxWallpaper

@Suite struct OffsetSmootherTests {
    @Test func withoutATimeConstantTheTargetIsShownAtOnce() {
        var smoother = OffsetSmoother(timeConstant: 0)
        let shown = smoother.advance(toward: ParallaxOffset(x: 0.5, y: -0.5), at: 1_000)
        #expect(shown.x == 0.5 && shown.y == -0.5 && smoother.isSettled)
    }

    @Test func itMovesOneMinusEToTheMinusDtOverTauOfTheWayAndSettles() {
        var smoother = OffsetSmoother(timeConstant: 0.1)
        _ = smoother.advance(toward: .zero, at: 0)
        let shown = smoother.advance(toward: ParallaxOffset(x: 1, y: 0), at: 100_000_000)   // one τ later
        #expect(abs(shown.x - (1 - exp(-1))) < 1e-12)
        #expect(!smoother.isSettled)
        var time: Int64 = 100_000_000
        var frames = 0
        while !smoother.isSettled && frames < 1_000 {
            time += 16_666_667
            _ = smoother.advance(toward: ParallaxOffset(x: 1, y: 0), at: time)
            frames += 1
        }
        // ln(1e4) τ ≈ 0.92 s ≈ 55 frames at 60 Hz to get within 1e-4.
        #expect(smoother.isSettled && (40...70).contains(frames))
    }

    @Test func theSameTimeConstantLooksTheSameAtAnyFrameRate() {
        func after(_ seconds: Double, frames: Int) -> Double {
            var smoother = OffsetSmoother(timeConstant: 0.2)
            _ = smoother.advance(toward: .zero, at: 0)
            var shown = ParallaxOffset.zero
            for n in 1...frames {
                shown = smoother.advance(toward: ParallaxOffset(x: 1, y: 0), at: Int64(Double(n) / Double(frames) * seconds * 1e9))
            }
            return shown.x
        }
        #expect(abs(after(0.3, frames: 18) - after(0.3, frames: 36)) < 1e-9)
    }

    @Test func theYawIsSmoothedTheShorterWayRoundAndSettles() {
        var smoother = OffsetSmoother(timeConstant: 0.1)
        _ = smoother.advance(toward: ParallaxOffset(x: 0, y: 0, yaw: 3.0), at: 0)
        // From 3.0 to −3.0 rad is 0.283 rad forward across ±π, not 6 rad back.
        let target = ParallaxOffset(x: 0, y: 0, yaw: -3.0)
        let shown = smoother.advance(toward: target, at: 100_000_000)
        let gap = 2 * Double.pi - 6.0
        #expect(abs(remainder(shown.yaw! - (3.0 + gap * (1 - exp(-1))), 2 * .pi)) < 1e-12)
        #expect(!smoother.isSettled)
        var time: Int64 = 100_000_000
        var last = shown
        while !smoother.isSettled && time < 5_000_000_000 {
            time += 16_666_667
            last = smoother.advance(toward: target, at: time)
        }
        #expect(smoother.isSettled && last.yaw == -3.0)
        // Without a time constant, or when the heading first appears, it is shown at once.
        var plain = OffsetSmoother(timeConstant: 0)
        #expect(plain.advance(toward: target, at: 0).yaw == -3.0)
        var fresh = OffsetSmoother(timeConstant: 0.1)
        _ = fresh.advance(toward: .zero, at: 0)
        #expect(fresh.advance(toward: target, at: 1_000_000).yaw == -3.0)
    }
}
