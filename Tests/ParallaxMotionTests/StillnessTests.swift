import Glibc
import Testing
@testable import ParallaxMotion

/// The rest gate (docs/power.md): a device lying still with sensor noise stays still; a tilt, a
/// turn and a slow turn each end the still period at the sample that shows them.
@Suite struct StillnessTests {
    static let gravity = Vector3(0, 0, -9.81)
    static let bias = Vector3(0.004, -0.003, 0.002)

    /// A still device at `rate` Hz with noise of `noise` m/s² and rad/s (a fixed pseudo-random
    /// sequence, so the test is the same every run).
    static func still(count: Int, rate: Double, noise: Double, from t0: Int64 = 1_000_000_000) -> [Sample] {
        var seed: UInt64 = 0x2545F4914F6CDD1D
        func jitter() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return (Double(seed >> 11) / Double(1 << 53) * 2 - 1) * noise
        }
        return (0..<count).map { i in
            Sample(t: t0 + Int64(Double(i) * 1e9 / rate),
                   accel: gravity + Vector3(jitter(), jitter(), jitter()),
                   gyro: bias + Vector3(jitter(), jitter(), jitter()) * 0.1)
        }
    }

    @Test func aStillDeviceWithNoiseStaysStillAndCountsItsTime() {
        var s = Stillness()
        let samples = Self.still(count: 400, rate: 200, noise: 0.03)
        let moved = samples.filter { s.observe($0) }
        #expect(moved.isEmpty)
        #expect(abs(s.stillFor(at: samples.last!.t) - 399.0 / 200) < 1e-9)
    }

    @Test func aTiltOfOneDegreeIsMotionAtTheSampleThatShowsIt() {
        var s = Stillness()
        let samples = Self.still(count: 100, rate: 100, noise: 0.01)
        for sample in samples { s.observe(sample) }
        let tilted = Sample(t: samples.last!.t + 10_000_000,
                            accel: Vector3(0, 9.81 * sin(1.0 * .pi / 180), -9.81 * cos(1.0 * .pi / 180)), gyro: Self.bias)
        let moved = s.observe(tilted)
        #expect(moved)
        // A new still period starts at it.
        #expect(s.stillFor(at: tilted.t) == 0)
    }

    @Test func aTurnIsMotionAtOnce() {
        var s = Stillness()
        for sample in Self.still(count: 50, rate: 100, noise: 0.01) { s.observe(sample) }
        let moved = s.observe(Sample(t: 2_000_000_000, accel: Self.gravity, gyro: Vector3(0.3, 0, 0)))
        #expect(moved)
    }

    /// 1°/s (under the per-sample tolerance of 2.9°/s): the angle gives it away after about two
    /// thirds of a second (0.5° against a mean that takes in some of the turn), well before the
    /// layers would move (1.35°, 1.35 s), and not before half a degree has turned.
    @Test func aSlowTurnIsMotionOnceItsAngleAddsUp() {
        var s = Stillness()
        let samples = Self.still(count: 100, rate: 100, noise: 0)
        for sample in samples { s.observe(sample) }
        let rate = 1.0 * .pi / 180
        var movedAt: Int?
        for i in 1...100 {
            let sample = Sample(t: samples.last!.t + Int64(i) * 10_000_000, accel: Self.gravity,
                                gyro: Self.bias + Vector3(rate, 0, 0))
            if s.observe(sample) { movedAt = i; break }
        }
        #expect(movedAt != nil)
        #expect((50..<135).contains(movedAt ?? 0))
    }

    @Test func nonFiniteReadingsSayNothing() {
        var s = Stillness()
        for sample in Self.still(count: 10, rate: 100, noise: 0) { s.observe(sample) }
        let moved = s.observe(Sample(t: 2_000_000_000, accel: Vector3(.nan, 0, 0), gyro: Vector3(.infinity, 0, 0)))
        #expect(!moved)
        #expect(s.stillFor(at: 2_000_000_000) > 0.9)
    }

    /// At 6.25 Hz (the rest rate) the same noise stays still: the test does not depend on the rate.
    @Test func theRestRateKeepsAStillDeviceStill() {
        var s = Stillness()
        let samples = Self.still(count: 60, rate: 6.25, noise: 0.03)
        let moved = samples.filter { s.observe($0) }
        #expect(moved.isEmpty)
    }
}
