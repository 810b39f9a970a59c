// A sparse accelerometer (read through sysfs at 25 Hz or, at rest, 0.5 Hz) beside a gyroscope at full rate.
import Testing
@testable import ParallaxMotion

@Suite struct SparseAccelerometerTests {
    @Test func gravityReferenceRateFollowsTheGain() {
        #expect(MotionSettings().gravityReferenceRate == 8)
        #expect(MotionSettings(filterGain: 1).gravityReferenceRate == 16)
        // Never under 1/maxGap: a slower reading while moving would count for maxGap only.
        #expect(MotionSettings(filterGain: 0.1).gravityReferenceRate == 5)
        #expect(MotionSettings(filterGain: 0.1, maxGap: 0.5).gravityReferenceRate == 2)
        // Validated first: nonsense settings give the defaults' rate.
        #expect(MotionSettings(filterGain: .nan, maxGap: -1).gravityReferenceRate == 8)
    }

    /// A still device whose gyroscope (25 Hz, a rest rate) has a bias of 0.5°/s the filter may
    /// not learn; the accelerometer read every 1.52 s. Each reading must correct over its whole
    /// interval: at gain 0.5 the error then saws between ≈ 0.24° and 1.0° (b·T per interval,
    /// (1 − K·T) of it left after a reading). Before the fix a reading counted for maxGap (0.2 s)
    /// only, the gain was 0.5 × 0.2/1.52, and the error settled at ≈ 7.6°.
    @Test func atRestASparseReadingCorrectsOverItsWholeInterval() {
        var f = AttitudeFilter(settings: MotionSettings(biasEstimation: false, stillGain: 0))
        let flat = Vector3(0, 0, -g)
        let bias = Vector3(0.5 * degree, 0, 0)
        f.update(accel: flat, accelInterval: 0, gyro: bias, gyroInterval: 0)
        var worst = 0.0
        for i in 1...(120 * 25) {  // two minutes at 25 Hz
            let reads = i % 38 == 0
            f.update(accel: reads ? flat : nil, accelInterval: 1.52, gyro: bias, gyroInterval: 0.04)
            if i > 60 * 25 { worst = max(worst, tiltError(f, gravity: flat)) }
        }
        #expect(worst < 1.2 * degree, "worst \(worst / degree)°")
        #expect(worst > 0.8 * degree, "worst \(worst / degree)°")  // b·T: the gyroscope still drifts between readings
    }

    /// While moving the weight stays capped at maxGap: a reading at the end of a long interval is
    /// one instant of the motion's linear acceleration.
    @Test func whileMovingALateReadingCountsForMaxGapOnly() {
        var f = stillFilter(seconds: 4)
        let turning = Vector3(0, 0, 10 * degree)  // about the vertical: the tilt stays flat
        for _ in 0..<100 { f.update(accel: nil, accelInterval: 0, gyro: turning, gyroInterval: 0.01) }
        let pushed = Vector3(3, 0, -g)  // 17° off by a sideways acceleration
        f.update(accel: pushed, accelInterval: 1.0, gyro: turning, gyroInterval: 0.01)
        // gain 0.5 × 0.2 s of sin 17°: ≈ 1.7°, not 0.5 × 1 s (≈ 8°).
        #expect(tiltError(f, gravity: Vector3(0, 0, -g)) < 2 * degree)
    }

    /// The gyroscope stopped for 0.5 s (its buffer restarted) and has run again for 0.25 s when the
    /// next reading of a 4 Hz accelerometer comes, 0.25 s after the previous one: the gyroscope
    /// followed all but its first 10 ms. The reading shows a sideways acceleration (17° off); it
    /// must correct at the gain, not snap the attitude onto itself as after a real gap.
    @Test func aResumedGyroscopeCoversTheNextSparseInterval() {
        var f = stillFilter(seconds: 5)
        let flat = Vector3(0, 0, -g)
        // 0.5 s without any sample, then the accelerometer (after a gap: it snaps, to flat).
        f.update(accel: flat, accelInterval: 0.5, gyro: nil, gyroInterval: 0, elapsed: 0.5)
        // The gyroscope again: its first reading is a gap, then 24 readings 10 ms apart.
        f.update(accel: nil, accelInterval: 0, gyro: .zero, gyroInterval: 0.51)
        for _ in 0..<23 { f.update(accel: nil, accelInterval: 0, gyro: .zero, gyroInterval: 0.01) }
        f.update(accel: Vector3(3, 0, -g), accelInterval: 0.25, gyro: .zero, gyroInterval: 0.01)
        #expect(tiltError(f, gravity: flat) < 2 * degree, "\(tiltError(f, gravity: flat) / degree)°")
    }

    /// The same gyroscope readings, with or without accelerometer samples of their own between
    /// them: the rest gate's integrated turn must not lose the time up to an accelerometer sample.
    @Test func stillnessIntegratesTheGyroscopeOverItsOwnIntervals() {
        func movedAt(interleaved: Bool) -> Int? {
            var s = Stillness()
            let samples = StillnessTests.still(count: 100, rate: 100, noise: 0)
            for sample in samples { s.observe(sample) }
            let rate = 1.0 * degree
            for i in 1...300 {
                let t = samples.last!.t + Int64(i) * 10_000_000
                if interleaved { s.observe(Sample(t: t - 5_000_000, accel: StillnessTests.gravity)) }
                if s.observe(Sample(t: t, gyro: StillnessTests.bias + Vector3(rate, 0, 0))) { return i }
            }
            return nil
        }
        let alone = movedAt(interleaved: false)
        let between = movedAt(interleaved: true)
        #expect(alone != nil && between != nil)
        #expect(abs((alone ?? 0) - (between ?? 1000)) <= 1, "gyroscope alone: \(String(describing: alone)), between accelerometer samples: \(String(describing: between))")
    }
}
