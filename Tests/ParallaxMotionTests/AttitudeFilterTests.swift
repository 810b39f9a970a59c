// The attitude filter: initialisation, start-up ramp, integration, feedback, free fall, overrange.
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// Accelerometer reading for a device tilted by `angle` about `axis` from flat face-up.
func tiltedGravity(_ angle: Double, axis: Vector3 = .unitX) -> Vector3 {
    Quaternion(axis: axis, angle: angle).conjugate.rotate(Vector3(0, 0, -g))
}

/// Estimated up vector in the device frame.
func estimatedUp(_ f: AttitudeFilter) -> Vector3 { f.attitude.conjugate.rotate(.unitZ) }

/// Disagreement (rad) between a filter's up and the up of a gravity reading.
func tiltError(_ f: AttitudeFilter, gravity: Vector3) -> Double { estimatedUp(f).angle(to: -gravity) }

/// Error (rad) left after `steps` updates of `dt` s with the feedback k·sin(e), each turned with
/// Fusion's first-order step (a turn r becomes 2·atan(r/2)): the discrete law the filter follows.
func discreteSineFeedbackError(start: Double, gain k: Double, dt: Double, steps: Int) -> Double {
    var e = start
    for _ in 0..<steps { e -= 2 * atan(k * dt * sin(e) / 2) }
    return e
}

/// Error (rad) left after `seconds` of feedback `k·sin(e)` from `start` (rad): Fusion's feedback
/// is the cross product, so de/dt = −k·sin e, solved by tan(e/2) = tan(e₀/2)·e^(−k·t).
func sineFeedbackError(start: Double, gain k: Double, seconds: Double) -> Double {
    2 * atan(tan(start / 2) * exp(-k * seconds))
}

@Suite struct AttitudeFilterTests {
    @Test func initialisesFromFirstPlausibleAccelWithYawZero() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, -0.1 * g, 0), gyro: .zero, dt: 0)  // too weak: not gravity
        #expect(!f.isInitialized)
        f.update(accel: nil, gyro: Vector3(1, 0, 0), dt: 0.01)  // gyro alone cannot start it
        #expect(!f.isInitialized)
        let a = Vector3(1.5, -9.0, -3.0)
        f.update(accel: a, gyro: nil, dt: 0)
        #expect(f.isInitialized && f.isStartingUp)
        #expect(close(estimatedUp(f), -a.normalized()!, 1e-12))
        // Yaw 0: the device X axis, seen from above, points along earth +X (no heading).
        let x = f.attitude.rotate(.unitX)
        #expect(abs(x.y) < 1e-12 && x.x > 0)
    }

    @Test func startupGainRampsDownOverThreeSeconds() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        #expect(f.rampedGain == MotionSettings.defaultStartupGain)
        for _ in 0..<150 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        #expect(abs(f.rampedGain - (10 + 0.5) / 2) < 1e-9)
        for _ in 0..<151 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        #expect(f.rampedGain == MotionSettings.defaultFilterGain && !f.isStartingUp)
    }

    @Test func startupGainPullsAnErrorInFast() {
        // Initialised flat, then the accelerometer says 30° with no gyroscope motion: gain ≥ 9.5
        // for the first 0.1 s, so after 0.1 s the error is at most what gain 9.5 leaves.
        var f = AttitudeFilter(settings: MotionSettings(stillGain: 0))
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        let a = tiltedGravity(30 * degree)
        for _ in 0..<10 { f.update(accel: a, gyro: .zero, dt: 0.01) }
        let bound = sineFeedbackError(start: 30 * degree, gain: 9.5, seconds: 0.1)
        #expect(tiltError(f, gravity: a) < bound * 1.02)
        // …and no less than gain 10 would (the discrete steps decay ≈5 % faster than the continuous law).
        #expect(tiltError(f, gravity: a) > sineFeedbackError(start: 30 * degree, gain: 10, seconds: 0.1) * 0.9)
    }

    @Test func gyroIntegratesWithFusionsFirstOrderStep() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: nil, dt: 0)
        for _ in 0..<100 { f.update(accel: nil, gyro: Vector3(0, 0, 0.5), dt: 0.01) }
        // 100 steps of 0.005 rad: each first-order step falls short by at most θ³/12.
        let bound = 100 * pow(0.005, 3) / 12 * 1.1
        #expect(f.attitude.angle(to: Quaternion(axis: .unitZ, angle: 0.5)) <= bound)
        #expect(f.attitude.angle(to: Quaternion(axis: .unitZ, angle: 0.5)) > bound / 10)  // first order, not exact
        // Non-finite or absurd rates are ignored.
        let before = f.attitude
        f.update(accel: nil, gyro: Vector3(0, .nan, 0), dt: 0.01)
        f.update(accel: nil, gyro: Vector3(0, 500, 0), dt: 0.01)
        #expect(f.attitude == before)
    }

    @Test func consistentSensorsStayWithinFusionsOneSampleLead() {
        // Fusion compares the accelerometer with the attitude before the update, so while turning
        // the estimate settles up to one sample's rotation (|ω|·dt) off the truth, never more.
        var f = AttitudeFilter()
        var device = SyntheticDevice()
        f.update(accel: device.gravity, gyro: .zero, dt: 0)
        var worst = 0.0
        var maxStep = 0.0
        for i in 0..<300 {
            let rate = Vector3(0.4 * sin(Double(i) * 0.03), 0.3, -0.2)
            let s = device.advance(rate: rate, dt: 0.01)
            f.update(accel: s.accel, gyro: s.gyro, dt: 0.01)
            worst = max(worst, tiltError(f, gravity: device.gravity))
            maxStep = max(maxStep, rate.length * 0.01)
        }
        #expect(worst <= maxStep * 1.05, "worst \(worst / degree)°, one step \(maxStep / degree)°")
        #expect(worst > maxStep * 0.2)  // the lead is real (this is Fusion's behaviour, not an accident)
    }

    @Test func noGyroscopeFollowsGravityAtTheAccelerometerOnlyGainAndKeepsYaw() {
        var f = AttitudeFilter()
        let start = Quaternion(axis: .unitX, angle: .pi / 2) * Quaternion(axis: .unitY, angle: 0.3)
        let a0 = start.conjugate.rotate(Vector3(0, 0, -g))
        f.update(accel: a0, gyro: nil, dt: 0)
        for _ in 0..<400 { f.update(accel: a0, gyro: nil, dt: 0.01) }
        #expect(f.isAccelerometerOnly)
        let before = f.attitude
        // The true attitude tilts 20° about a horizontal earth axis; the accelerometer alone sees it.
        let tilted = Quaternion(axis: .unitX, angle: 20 * degree) * start
        let a = tilted.conjugate.rotate(Vector3(0, 0, -g))
        for _ in 0..<20 { f.update(accel: a, gyro: nil, dt: 0.01) }
        let expected = discreteSineFeedbackError(start: 20 * degree, gain: MotionSettings.defaultAccelerometerOnlyGain, dt: 0.01, steps: 20)
        #expect(abs(tiltError(f, gravity: a) - expected) < 0.01 * degree, "error \(tiltError(f, gravity: a) / degree)°")
        // Tilt only: the change is about a horizontal earth axis.
        let change = f.attitude * before.conjugate
        #expect(abs(change.z) < 1e-9)
    }

    @Test func accelerationsCorrectAsInFusionButFreeFallAndGarbageDoNot() {
        var f = AttitudeFilter(settings: MotionSettings(stillGain: 0))
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        for _ in 0..<400 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        let start = f.attitude
        // Under 0.1 g (free fall) and non-finite or absurd readings: no correction at all.
        for _ in 0..<100 { f.update(accel: tiltedGravity(0.5) * 0.05, gyro: .zero, dt: 0.01) }
        for bad in [Vector3(.nan, 0, -g), Vector3(0, .infinity, 0), Vector3(0, 0, -5000)] {
            f.update(accel: bad, gyro: .zero, dt: 0.01)
        }
        #expect(f.attitude == start)
        // A 2 g reading still corrects, by its direction, at the filter gain (as Fusion does).
        f.update(accel: tiltedGravity(0.5) * 2, gyro: .zero, dt: 0.01)
        let turned = f.attitude.angle(to: start)
        #expect(abs(turned - 0.5 * sin(0.5) * 0.01) < 1e-6, "turned \(turned)")
    }

    @Test func withoutGyroscopeOnlyPlausibleGravityCorrects() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: nil, dt: 0)
        for _ in 0..<400 { f.update(accel: Vector3(0, 0, -g), gyro: nil, dt: 0.01) }
        let start = f.attitude
        for s in [2.0, 0.3] {
            for _ in 0..<50 { f.update(accel: tiltedGravity(0.5) * s, gyro: nil, dt: 0.01) }
        }
        #expect(f.attitude == start)
    }

    @Test func gyroscopeOverrangeRestartsTheStartupRamp() {
        var f = AttitudeFilter(settings: MotionSettings(gyroscopeRange: 10))
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        for _ in 0..<400 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        #expect(!f.isStartingUp)
        f.update(accel: Vector3(0, 0, -g), gyro: Vector3(0, 9.7, 0), dt: 0.01)  // under 98 %
        #expect(!f.isStartingUp)
        f.update(accel: Vector3(0, 0, -g), gyro: Vector3(0, -9.9, 0), dt: 0.01)  // over 98 %
        #expect(f.isStartingUp && f.rampedGain > 9.9)
        // With the range unknown (0, the default), nothing restarts.
        var off = AttitudeFilter()
        off.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        for _ in 0..<400 { off.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        off.update(accel: Vector3(0, 0, -g), gyro: Vector3(0, 30, 0), dt: 0.01)
        #expect(!off.isStartingUp)
    }

    @Test func correctionNeverOvershootsWithHugeGainTimesInterval() {
        // Gain 10 over a 0.2 s interval is 2 rad per rad: the cap keeps the turn at the error.
        var f = AttitudeFilter(settings: MotionSettings(stillGain: 0))
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        let a = tiltedGravity(40 * degree)
        f.update(accel: a, gyro: .zero, dt: 0.2)
        // Capped at the error (0.698 rad), the first-order step turns 2·atan(0.349) = 0.672 rad:
        // short of the target, never past it.
        let turned = f.attitude.angle(to: .identity)
        #expect(abs(turned - 2 * atan(20 * degree)) < 1e-9)
        // Upside down (180° off) the correction still has an axis and converges.
        let flipped = tiltedGravity(179.9 * degree)
        for _ in 0..<300 { f.update(accel: flipped, gyro: .zero, dt: 0.01) }
        #expect(tiltError(f, gravity: flipped) < 1 * degree)
    }
}
