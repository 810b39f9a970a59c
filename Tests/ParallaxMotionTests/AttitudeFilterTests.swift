// The complementary filter: initialisation, rejection, gains and still re-anchoring.
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// Accelerometer reading for a device tilted by `angle` about +X from flat face-up.
func tiltedGravity(_ angle: Double, axis: Vector3 = .unitX) -> Vector3 {
    Quaternion(axis: axis, angle: angle).conjugate.rotate(Vector3(0, 0, -g))
}

/// Estimated up vector in the device frame.
func estimatedUp(_ f: AttitudeFilter) -> Vector3 { f.attitude.conjugate.rotate(.unitZ) }

@Suite struct AttitudeFilterTests {
    @Test func initialisesFromFirstPlausibleAccelWithYawZero() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, -0.1 * g, 0), gyro: .zero, dt: 0)  // too weak: not gravity
        #expect(!f.isInitialized)
        f.update(accel: nil, gyro: Vector3(1, 0, 0), dt: 0.01)  // gyro alone cannot start it
        #expect(!f.isInitialized)
        let a = Vector3(1.5, -9.0, -3.0)
        f.update(accel: a, gyro: nil, dt: 0)
        #expect(f.isInitialized)
        #expect(close(estimatedUp(f), -a.normalized()!, 1e-12))
        // Yaw 0: the device X axis, seen from above, points along earth +X (no heading).
        let x = f.attitude.rotate(.unitX)
        #expect(abs(x.y) < 1e-12 && x.x > 0)
    }

    @Test func startupGainRampsDown() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        #expect(f.rampedGain == MotionSettings.defaultStartupGain)
        for _ in 0..<150 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        #expect(abs(f.rampedGain - (10 + 0.5) / 2) < 1e-9)
        for _ in 0..<151 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        #expect(f.rampedGain == MotionSettings.defaultFilterGain)
    }

    @Test func accelOnlyFollowsWithTheGainAndKeepsYaw() {
        var f = AttitudeFilter()
        let start = Quaternion(axis: .unitX, angle: .pi / 2) * Quaternion(axis: .unitY, angle: 0.3)
        f.update(accel: start.conjugate.rotate(Vector3(0, 0, -g)), gyro: nil, dt: 0)
        for _ in 0..<400 { f.update(accel: start.conjugate.rotate(Vector3(0, 0, -g)), gyro: nil, dt: 0.01) }
        let before = f.attitude
        // The true attitude tilts 20° about a horizontal earth axis; the accelerometer alone sees it.
        let tilted = Quaternion(axis: .unitX, angle: 20 * degree) * start
        let a = tilted.conjugate.rotate(Vector3(0, 0, -g))
        for _ in 0..<200 { f.update(accel: a, gyro: nil, dt: 0.01) }
        // Gain 0.5 for 2 s: the error shrinks by e^−1 (no still re-anchoring without a gyro).
        let err = estimatedUp(f).angle(to: -a) / degree
        #expect(abs(err - 20 * exp(-1.0)) < 0.5, "error \(err)°")
        // Tilt only: the change is about a horizontal earth axis.
        let change = f.attitude * before.conjugate
        #expect(abs(change.z) < 1e-9)
    }

    @Test func implausibleAccelIsNotACorrection() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        let before = f.attitude
        for s in [2.0, 0.3] {
            for _ in 0..<100 { f.update(accel: tiltedGravity(0.5) * s, gyro: .zero, dt: 0.01) }
        }
        for bad in [Vector3(.nan, 0, -g), Vector3(0, .infinity, 0), Vector3(0, 0, -5000)] {
            f.update(accel: bad, gyro: .zero, dt: 0.01)
        }
        #expect(f.attitude == before)
    }

    @Test func gyroOnlyIntegrates() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: nil, dt: 0)
        for _ in 0..<100 { f.update(accel: nil, gyro: Vector3(0, 0, 0.5), dt: 0.01) }
        #expect(sameRotation(f.attitude, Quaternion(axis: .unitZ, angle: 0.5), 1e-9))
        // Non-finite or absurd rates are ignored.
        f.update(accel: nil, gyro: Vector3(0, .nan, 0), dt: 0.01)
        f.update(accel: nil, gyro: Vector3(0, 500, 0), dt: 0.01)
        #expect(sameRotation(f.attitude, Quaternion(axis: .unitZ, angle: 0.5), 1e-9))
    }

    @Test func gyroAgreeingWithAccelNeedsNoCorrection() {
        var f = AttitudeFilter()
        var device = SyntheticDevice()
        f.update(accel: device.gravity, gyro: .zero, dt: 0)
        for i in 0..<300 {
            let rate = Vector3(0.4 * sin(Double(i) * 0.03), 0.3, -0.2)
            let s = device.advance(rate: rate, dt: 0.01)
            f.update(accel: s.accel, gyro: s.gyro, dt: 0.01)
        }
        #expect(estimatedUp(f).angle(to: -device.gravity) < 1e-6)
    }

    @Test func stillReanchoringOnlyWhenStillAndDisagreeing() {
        var f = AttitudeFilter()
        f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0)
        for _ in 0..<400 { f.update(accel: Vector3(0, 0, -g), gyro: .zero, dt: 0.01) }
        f.update(accel: tiltedGravity(1 * degree), gyro: .zero, dt: 0.01)
        #expect(!f.isStillReanchoring)  // within 2°: normal gain
        f.update(accel: tiltedGravity(10 * degree), gyro: Vector3(0.2, 0, 0), dt: 0.01)
        #expect(!f.isStillReanchoring)  // rotating: normal gain
        f.update(accel: tiltedGravity(10 * degree), gyro: Vector3(0.01, 0, 0), dt: 0.01)
        #expect(f.isStillReanchoring)
        // An accelerometer-only sample right after a still gyro sample still knows it is still.
        f.update(accel: tiltedGravity(10 * degree), gyro: nil, dt: 0.01)
        #expect(f.isStillReanchoring)
    }
}

@Suite struct StillReanchoringTests {
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
        let y = offsetAfterAccelStep(seconds: 1, settings: MotionSettings(recenter: false))
        #expect(abs(y - 20.0 / 90) < 0.03, "y = \(y)")
    }

    @Test func withoutReanchoringTheSameStepLags() {
        // Control: with the still gain equal to the normal gain, Fusion's 0.5 leaves most of it.
        let y = offsetAfterAccelStep(seconds: 1, settings: MotionSettings(recenter: false, stillGain: 0.5))
        #expect(y < 0.6 * 20.0 / 90, "y = \(y)")
    }
}
