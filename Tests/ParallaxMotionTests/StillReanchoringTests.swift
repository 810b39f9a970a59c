// Still re-anchoring: a steady disagreement while the gyroscope is still means it missed a rotation.
import Testing
import ParallaxMotion

/// A filter initialised flat and held still (gyroscope reading 0) for `seconds`, at 100 Hz.
func stillFilter(seconds: Double = 4, settings: MotionSettings = MotionSettings()) -> AttitudeFilter {
    var f = AttitudeFilter(settings: settings)
    f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
    for _ in 0..<Int(seconds * 100) { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
    return f
}

@Suite struct StillReanchoringTests {
    @Test func engagesOnlyBeyondFiveDegreesAfterHalfASecondStill() {
        var f = stillFilter()
        f.update(accel: tiltedGravity(4 * degree), gyro: .zero, dt: 0.01)
        #expect(!f.isStillReanchoring)  // within 5°: the normal gain
        f.update(accel: tiltedGravity(10 * degree), gyro: .zero, dt: 0.01)
        #expect(f.isStillReanchoring)
        // Hysteresis: once engaged it continues under 5°, down to 1°.
        for _ in 0..<100 where f.isStillReanchoring { f.update(accel: tiltedGravity(10 * degree), gyro: .zero, dt: 0.01) }
        #expect(tiltError(f, gravity: tiltedGravity(10 * degree)) < 1.01 * degree)
        #expect(tiltError(f, gravity: tiltedGravity(10 * degree)) > 0.9 * degree)
    }

    @Test func notWhileRotatingNorRightAfter() {
        var f = stillFilter()
        // 4°/s on one axis is motion (Fusion's 3°/s stationary threshold, per axis).
        f.update(accel: tiltedGravity(10 * degree), gyro: Vector3(0, 4 * degree, 0), dt: 0.01)
        #expect(!f.isStillReanchoring)
        // Still again, but only for 0.3 s: a turning point of a hand motion, not rest.
        for _ in 0..<30 { f.update(accel: tiltedGravity(10 * degree), gyro: .zero, dt: 0.01) }
        #expect(!f.isStillReanchoring)
        for _ in 0..<25 { f.update(accel: tiltedGravity(10 * degree), gyro: .zero, dt: 0.01) }
        #expect(f.isStillReanchoring)
    }

    @Test func notOnReadingsAwayFromOneG() {
        var f = stillFilter()
        f.update(accel: tiltedGravity(10 * degree) * 1.2, gyro: .zero, dt: 0.01)
        #expect(!f.isStillReanchoring)
        f.update(accel: tiltedGravity(10 * degree) * 1.05, gyro: .zero, dt: 0.01)
        #expect(f.isStillReanchoring)
    }

    @Test func anAccelerometerOnlyGyroSampleStillKnowsItIsStill() {
        // Sensors delivered in separate samples: the accelerometer's own samples carry no rate.
        var f = stillFilter()
        f.update(accel: tiltedGravity(10 * degree), gyro: nil, dt: 0.01)
        #expect(f.isStillReanchoring)
    }

    /// Flat device, 4 s still (start-up over), then the accelerometer alone reports a 20° tilt
    /// about +X while the gyroscope keeps reading zero. Returns y after `seconds` s.
    func offsetAfterAccelStep(seconds: Double, settings: MotionSettings) -> Double {
        var engine = MotionEngine(settings: settings)
        var t: Int64 = 1_000_000_000
        func sample(_ a: Vector3) -> Sample {
            t += 10_000_000
            return Sample(t: t, accel: a, gyro: .zero)
        }
        feed(&engine, count: 400) { sample(Vector3(0, 0, -g)) }
        feed(&engine, count: Int(seconds * 100)) { sample(tiltedGravity(20 * degree)) }
        return engine.current.y
    }

    @Test func accelOnlyStepIsReachedWithinASecond() {
        let settings = MotionSettings(recenter: false, directionalLock: false)
        let y = offsetAfterAccelStep(seconds: 1, settings: settings)
        #expect(abs(y - 20.0 / 90) < 1.2 / 90, "y = \(y)")
    }

    @Test func withoutReanchoringTheSameStepLags() {
        // Control: with the still gain off, Fusion's 0.5 leaves most of the step after 1 s.
        let settings = MotionSettings(recenter: false, directionalLock: false, stillGain: 0)
        let y = offsetAfterAccelStep(seconds: 1, settings: settings)
        let expected = 20 * degree - sineFeedbackError(start: 20 * degree, gain: 0.5, seconds: 1)
        #expect(abs(y - expected / (90 * degree)) < 0.005, "y = \(y)")
    }
}
