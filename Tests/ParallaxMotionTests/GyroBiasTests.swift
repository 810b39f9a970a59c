// Gyroscope bias estimation (x-io Fusion's FusionBias): learned while still, never while moving.
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// Fusion's bias stage: stationary for 3 s, then a 0.02 Hz low-pass (time constant τ = 1/(2π·0.02)).
let biasTimeConstant = 1 / (2 * Double.pi * MotionSettings.defaultBiasCutoff)
/// When the bias stage has settled (s after the device came to rest): the stationary period plus
/// 4 τ (≈ 35 s), after which 1.8 % of the bias is left: 0.016°/s of 0.87°/s, ≈0.03° of tilt at gain 0.5.
let biasSettledAfter = MotionSettings.defaultStationaryPeriod + 4 * biasTimeConstant

/// A still device (upright, tilted a little so that no axis is special) whose gyroscope reads
/// `bias`, at 100 Hz for `seconds`; returns the worst tilt error (rad) from `from` s on and the filter.
func stillWithBias(_ bias: Vector3, seconds: Double, from: Double, settings: MotionSettings = MotionSettings()) -> (worst: Double, filter: AttitudeFilter) {
    var f = AttitudeFilter(settings: settings)
    let truth = Quaternion(axis: Vector3(1, 0.3, 0.2), angle: 1.2)
    let gravity = truth.conjugate.rotate(Vector3(0, 0, -g))
    f.update(accel: gravity, gyro: bias, dt: 0)
    var worst = 0.0
    for i in 1...Int(seconds * 100) {
        f.update(accel: gravity, gyro: bias, dt: 0.01)
        if Double(i) * 0.01 >= from { worst = max(worst, tiltError(f, gravity: gravity)) }
    }
    return (worst, f)
}

@Suite struct GyroBiasTests {
    static let bias = Vector3(0.5, -0.5, 0.5) * degree  // 0.5°/s on every axis

    @Test func constantHalfDegreePerSecondBiasLeavesUnderATenthOfADegree() {
        let (worst, f) = stillWithBias(Self.bias, seconds: biasSettledAfter + 30, from: biasSettledAfter)
        #expect(worst < 0.1 * degree, "worst tilt error \(worst / degree)° after \(biasSettledAfter) s")
        #expect((f.gyroscopeBias - Self.bias).length < 0.02 * Self.bias.length)
    }

    @Test func withoutBiasEstimationTheErrorIsBiasOverGain() {
        // Control (docs/motion.md "Background"): a complementary filter settles at ≈ b/gain; the tilt part of the
        // bias here is what lies across gravity.
        let (worst, f) = stillWithBias(Self.bias, seconds: 40, from: 30, settings: MotionSettings(biasEstimation: false))
        let up = estimatedUp(f)
        let across = (Self.bias - up * Self.bias.dot(up)).length
        #expect(abs(worst - across / MotionSettings.defaultFilterGain) < 0.1 * across / MotionSettings.defaultFilterGain,
                "worst \(worst / degree)°, expected \(across / 0.5 / degree)°")
        #expect(f.gyroscopeBias == .zero)
    }

    @Test func nothingIsLearnedBeforeThreeStillSeconds() {
        let (_, early) = stillWithBias(Self.bias, seconds: 2.9, from: 0)
        #expect(early.gyroscopeBias == .zero)
        let (_, later) = stillWithBias(Self.bias, seconds: 3.5, from: 0)
        // 0.5 s of a 0.02 Hz low-pass: 1 − e^(−0.5/τ) ≈ 6 % of the bias.
        let expected = (1 - exp(-0.5 / biasTimeConstant)) * Self.bias.length
        #expect(abs(later.gyroscopeBias.length - expected) < 0.15 * expected)
    }

    @Test func motionIsNeverLearned() {
        // A slow turn at 5°/s (over the 3°/s threshold) for 20 s: not a bias.
        var f = AttitudeFilter()
        var device = SyntheticDevice.upright
        f.update(accel: device.gravity, gyro: .zero, dt: 0)
        for _ in 0..<2000 {
            let s = device.advance(rate: Vector3(0, 5 * degree, 0), dt: 0.01)
            f.update(accel: s.accel, gyro: s.gyro, dt: 0.01)
        }
        #expect(f.gyroscopeBias == .zero)
        #expect(f.stationaryTime == 0)
    }

    @Test func theBiasSurvivesAResetOfTheEngine() {
        var engine = MotionEngine()
        var t: Int64 = 1_000_000_000
        feed(&engine, count: 2000) {
            t += 10_000_000
            return Sample(t: t, accel: Vector3(0, 0, -g), gyro: Self.bias)
        }
        let learned = engine.gyroscopeBias
        #expect(learned.length > 0.5 * Self.bias.length)
        engine.reset()
        // What was learned in the last second is provisional and dropped; the rest stays.
        #expect((engine.gyroscopeBias - learned).length < 0.05 * learned.length && !engine.isInitialized)
    }

    @Test func theSlowStartOfAMotionIsNotLearned() {
        // Still with the bias for 60 s, then a motion whose rate grows from 0 to 6°/s over 1 s
        // about X: under the 3°/s threshold for its first half second.
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: Self.bias, dt: 0)
        for _ in 0..<6000 { f.update(accel: Vector3(0, 0, -g), gyro: Self.bias, dt: 0.01) }
        let before = (f.gyroscopeBias - Self.bias).length
        for i in 1...100 {
            let onset = Vector3(6 * degree * Double(i) / 100, 0, 0)
            f.update(accel: Vector3(0, 0, -g), gyro: Self.bias + onset, dt: 0.01)
        }
        let after = (f.gyroscopeBias - Self.bias).length
        #expect(after <= before + 1e-12, "bias error \(before / degree)°/s before, \(after / degree)°/s after")
        // Control: the part of the onset under the threshold would have moved it by ≈ k·Σω.
        let learnedOnset = 2 * Double.pi * 0.02 * 0.01 * (0..<50).reduce(0.0) { $0 + 6 * degree * Double($1) / 100 }
        #expect(learnedOnset > 10 * max(before, 1e-6))
    }
}
