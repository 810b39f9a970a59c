// The prediction every client kit offers (docs/protocol.md, "offset"): x + vx·(t′ − t)/10⁹,
// clamped to [−1, 1], never NaN.

import ParallaxClient
import Testing

@Suite struct ParallaxOffsetTests {
    static let frame = ParallaxOffset(x: 0.5, y: -0.25, vx: 2, vy: -1, t: 1_000_000_000, seq: 7)

    @Test func predictsAlongTheVelocity() {
        let later = Self.frame.predicted(at: 1_100_000_000)  // 0.1 s later
        #expect(abs(later.x - 0.7) < 1e-12 && abs(later.y - -0.35) < 1e-12)
        #expect(later.vx == 2 && later.vy == -1 && later.t == Self.frame.t && later.seq == 7)
        let earlier = Self.frame.predicted(at: 950_000_000)  // 50 ms before t
        #expect(abs(earlier.x - 0.4) < 1e-12 && abs(earlier.y - -0.2) < 1e-12)
        #expect(Self.frame.predicted(at: Self.frame.t) == Self.frame)
    }

    @Test func clampsToTheOffsetRange() {
        let far = Self.frame.predicted(at: 3_000_000_000)  // 2 s: 0.5 + 4 and −0.25 − 2
        #expect(far.x == 1 && far.y == -1)
    }

    @Test func neverProducesNonFiniteValues() {
        let wild = ParallaxOffset(x: .nan, y: 0.5, vx: .infinity, vy: 1e308, t: .min, seq: 0)
        let p = wild.predicted(at: .max)
        #expect(p.x == 0 && p.y == 1)
        let backwards = ParallaxOffset(x: 0.5, y: 0.5, vx: -1e308, vy: .nan, t: .max).predicted(at: .min)
        #expect(backwards.x == 1 && backwards.y == 0.5)
    }
}
