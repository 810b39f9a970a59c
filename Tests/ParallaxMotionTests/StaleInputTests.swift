// Stale input: after ≥ 0.25 s without samples, a jump of the offset is absorbed (iOS).
import Testing
import ParallaxMotion

/// Upright engine past start-up; then no samples for `gap` s while the device tips `degrees`
/// about X; then one still sample (both sensors). Returns (offset before, offset after the gap).
func afterSilence(gap: Double, degrees: Double, settings: MotionSettings = MotionSettings(directionalLock: false)) -> (before: ViewerOffset, after: ViewerOffset) {
    var engine = MotionEngine(settings: settings)
    var device = SyntheticDevice.upright
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    feed(&engine, count: 20) { device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01) }  // x ≈ 0.064
    feed(&engine, count: 2) { device.hold(dt: 0.01) }
    let before = engine.current
    device.attitude = device.attitude * Quaternion(axis: .unitX, angle: degrees * degree)
    device.t += Int64(gap * 1e9)
    _ = engine.update(Sample(t: device.t, accel: device.gravity, gyro: .zero))
    return (before, engine.current)
}

@Suite struct StaleInputTests {
    // Each case is compared with the same silence without a pose change: re-centring runs over
    // the silent time either way, so only the pose change differs.

    @Test func aJumpAfterStaleInputIsAbsorbed() {
        let control = afterSilence(gap: 0.3, degrees: 0).after
        let (before, after) = afterSilence(gap: 0.3, degrees: 10)
        #expect(abs(after.x - control.x) < 0.001 && abs(after.y - control.y) < 0.001, "\(before) → \(after), control \(control)")
        #expect(before.x > 0.05)
    }

    @Test func aSmallChangeAfterStaleInputIsKept() {
        // 1° ≈ 0.011 < 0.02: a real (small) change, not a jump.
        let control = afterSilence(gap: 0.3, degrees: 0).after
        let after = afterSilence(gap: 0.3, degrees: 1).after
        #expect(abs(after.y - control.y - 1.0 / 90) < 0.001)
    }

    @Test func aShorterSilenceIsNotStale() {
        // 0.22 s: longer than the integration gap (the filter snaps to gravity, by the smallest
        // rotation, which need not be the true one) but not stale.
        let control = afterSilence(gap: 0.22, degrees: 0).after
        let after = afterSilence(gap: 0.22, degrees: 10).after
        #expect(abs(after.y - control.y - 10.0 / 90) < 0.006)
    }

    @Test func withRecentringOffTheReferenceStays() {
        let (before, after) = afterSilence(gap: 0.3, degrees: 10, settings: MotionSettings(recenter: false, directionalLock: false))
        #expect(abs(after.y - before.y - 10.0 / 90) < 0.006)
    }
}
