// Acceleration rejection with recovery (x-io Fusion), in seconds instead of samples.
import Testing
import ParallaxMotion

@Suite struct AccelerationRejectionTests {
    /// Rejection at 10° with a 5 s timeout; re-anchoring off so that only rejection decides.
    static let rejecting = MotionSettings(accelerationRejection: 10 * degree, rejectionTimeout: 5, stillGain: 0)

    @Test func offByDefaultAsInFusion() {
        var f = stillFilter(settings: MotionSettings(stillGain: 0))
        f.update(accel: tiltedGravity(30 * degree), gyro: .zero, dt: 0.01)
        #expect(!f.isAccelerometerIgnored)
        #expect(tiltError(f, gravity: tiltedGravity(30 * degree)) < 30 * degree)
    }

    @Test func ignoresReadingsBeyondTheThresholdAfterStartup() {
        var f = stillFilter(settings: Self.rejecting)
        let before = f.attitude
        f.update(accel: tiltedGravity(15 * degree), gyro: .zero, dt: 0.01)
        #expect(f.isAccelerometerIgnored && f.attitude == before)
        f.update(accel: tiltedGravity(8 * degree), gyro: .zero, dt: 0.01)
        #expect(!f.isAccelerometerIgnored && f.attitude != before)
    }

    @Test func notDuringStartup() {
        var f = stillFilter(seconds: 1, settings: Self.rejecting)
        f.update(accel: tiltedGravity(15 * degree), gyro: .zero, dt: 0.01)
        #expect(!f.isAccelerometerIgnored && f.isStartingUp)
    }

    @Test func recoversAfterTheTimeoutAndThenFollowsGravity() {
        // A sustained 20° disagreement (the device was set down tilted while the gyroscope
        // missed it): ignored for the 5 s timeout, then recovery uses the accelerometer again.
        var f = stillFilter(settings: Self.rejecting)
        let a = tiltedGravity(20 * degree)
        var ignoredFor = 0.0
        for _ in 0..<1000 {
            f.update(accel: a, gyro: .zero, dt: 0.01)
            if f.isAccelerometerIgnored { ignoredFor += 0.01 }
        }
        #expect(abs(ignoredFor - 5) < 0.02, "ignored for \(ignoredFor) s")
        // After recovery began (5 s), 5 s at gain 0.5 brought the error down from 20°, and within
        // the threshold the reading counts as agreeing again: recovery ends.
        #expect(tiltError(f, gravity: a) < 10 * degree)
        #expect(!f.isAccelerometerIgnored)
        for _ in 0..<300 { f.update(accel: a, gyro: .zero, dt: 0.01) }
        #expect(!f.isRecovering)
    }

    @Test func briefDisturbancesAmongGoodReadingsNeverTriggerRecovery() {
        // 50 % of the readings disturbed: the trigger falls by 9 for each rise of 1.
        var f = stillFilter(settings: Self.rejecting)
        for i in 0..<2000 {
            f.update(accel: i % 2 == 0 ? tiltedGravity(30 * degree) : Vector3(0, 0, -g), gyro: .zero, dt: 0.01)
        }
        #expect(!f.isRecovering)
        #expect(tiltError(f, gravity: Vector3(0, 0, -g)) < 0.01 * degree)
    }
}
