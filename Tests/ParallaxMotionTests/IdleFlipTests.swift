// iOS's idle detection and flip rule (docs/motion.md "Background").
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// Angle (rad) between the screen normals of two attitudes.
func normalAngle(_ a: Quaternion, _ b: Quaternion) -> Double {
    a.rotate(.unitZ).angle(to: b.rotate(.unitZ))
}

@Suite struct IdleFlipTests {
    @Test func idleAfterHalfASecondOfStillOffset() {
        var engine = MotionEngine()
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 30) { device.advance(rate: Vector3(1, 0, 0), dt: 0.01) }
        #expect(!engine.isIdle)
        feed(&engine, count: 48) { device.hold(dt: 0.01) }
        #expect(!engine.isIdle)  // 0.48 s < 0.52 s
        feed(&engine, count: 8) { device.hold(dt: 0.01) }
        #expect(engine.isIdle)  // 0.56 s (30 Hz frames of 4 samples each: 0.52 s complete by now)
        // Re-centring moves the offset only ≈0.02/s: that stays idle.
        feed(&engine, count: 100) { device.hold(dt: 0.01) }
        #expect(engine.isIdle)
    }

    /// Upright, then turned over by `degrees` about X in 0.5 s and held `hold` s. Returns the
    /// normal angle between reference and attitude just before and after the hold.
    func flip(degrees: Double, recenter: Bool = true, hold: Double) -> (before: Double, after: Double) {
        var engine = MotionEngine(settings: MotionSettings(recenter: recenter))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 50) { device.advance(rate: Vector3(degrees * degree / 0.5, 0, 0), dt: 0.01) }
        let before = normalAngle(engine.referenceAttitude!, engine.attitude)
        feed(&engine, count: Int(hold * 100)) { device.hold(dt: 0.01) }
        return (before, normalAngle(engine.referenceAttitude!, engine.attitude))
    }

    @Test func turnedOverAndIdleTheReferenceJumpsToTheMirrorAngle() {
        // 160° in 0.5 s: re-centring follows by a few degrees only, the normals stay > 135° apart.
        let (before, after) = flip(degrees: 160, hold: 0.6)
        #expect(before > 135 * degree)
        // Jump by 2(θ − 90°): the angle becomes 180° − θ. Re-centring ran before the jump (θ
        // shrinks by ≤ 0.18 rad/s × 0.6 s at most) and a moment after it (at ≤ 0.1 rad/s).
        #expect(after < 45 * degree, "before \(before / degree)°, after \(after / degree)°")
        #expect(after > Double.pi - before - 0.1 * 0.1)
        #expect(after < Double.pi - before + 0.18 * 0.6)
    }

    @Test func noJumpBeforeIdleOrUnder135Degrees() {
        let early = flip(degrees: 160, hold: 0.4)  // not idle yet
        #expect(early.after > 130 * degree)
        let (before, after) = flip(degrees: 120, hold: 1)  // 120° is not "turned over"
        #expect(before < 135 * degree && after > before - 8 * degree)
    }

    @Test func noJumpWithRecentringOff() {
        let (before, after) = flip(degrees: 160, recenter: false, hold: 1)
        #expect(abs(after - before) < 0.5 * degree)
    }
}
