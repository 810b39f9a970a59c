// Garbage in never yields NaN or an offset outside [−1, 1], and the engine recovers.
import Testing
import ParallaxMotion

@Suite struct RobustnessTests {
    static let garbageSamples: [Sample] = [
        Sample(t: 6_000_000_000, accel: Vector3(.nan, 0, -g), gyro: Vector3(0, 1, 0)),
        Sample(t: 6_010_000_000, accel: Vector3(0, -g, 0), gyro: Vector3(.infinity, 0, 0)),
        Sample(t: 6_020_000_000, accel: Vector3(1e6, 1e6, 0), gyro: Vector3(0, 1e4, 0)),
        Sample(t: 6_030_000_000, accel: .zero, gyro: Vector3(-.infinity, .nan, 0)),
        Sample(t: 5_000_000_000, accel: Vector3(0, 0, -g), gyro: Vector3(0, 3, 0)),  // backwards
        Sample(t: 5_000_000_000, accel: Vector3(0, 0, -g), gyro: Vector3(0, 3, 0)),  // repeated
        Sample(t: .max, accel: Vector3(0, 0, -0.1), gyro: Vector3(99, 99, 99)),
        Sample(t: .min, accel: Vector3(-.nan, -.nan, -.nan), gyro: nil),
        Sample(t: 0, accel: nil, gyro: nil),
        Sample(t: 7_000_000_000, accel: Vector3(0, 0, .greatestFiniteMagnitude), gyro: Vector3(.ulpOfOne, 0, 0)),
    ]

    @Test(arguments: MotionMode.allCases)
    func garbageNeverEscapes(mode: MotionMode) {
        var engine = MotionEngine(settings: MotionSettings(mode: mode))
        var device = SyntheticDevice.upright
        feed(&engine, count: 50) { device.hold(dt: 0.01) }
        for s in Self.garbageSamples {
            let f = engine.update(s)
            #expect(isPublishable(engine.current))
            if let f { #expect(isPublishable(f.offset) && f.attitude.isFinite) }
        }
        #expect(engine.attitude.isFinite && abs(engine.attitude.norm - 1) < 1e-9)
    }

    @Test(arguments: MotionMode.allCases)
    func randomGarbageNeverEscapes(mode: MotionMode) {
        var engine = MotionEngine(settings: MotionSettings(mode: mode, minimumChange: 0))
        var rng = TestRandom(seed: 42)
        let specials: [Double] = [.nan, .infinity, -.infinity, 0, 1e300, -1e-300, 9.81, -9.81, 150]
        func value() -> Double {
            rng.next() % 4 == 0 ? specials[Int(rng.next() % UInt64(specials.count))] : rng.signedUnit() * 30
        }
        var t: Int64 = 0
        for _ in 0..<20_000 {
            t += Int64(bitPattern: rng.next() % 400_000_000) - 100_000_000
            let a = rng.next() % 5 == 0 ? nil : Vector3(value(), value(), value())
            let w = rng.next() % 5 == 0 ? nil : Vector3(value(), value(), value())
            let f = engine.update(Sample(t: t, accel: a, gyro: w))
            #expect(isPublishable(engine.current))
            if let f { #expect(isPublishable(f.offset)) }
        }
        #expect(engine.attitude.isFinite)
    }

    @Test func recoversWhenSaneSamplesReturn() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 100) { device.hold(dt: 0.01) }
        for s in Self.garbageSamples { _ = engine.update(s) }
        // Sane again: the device turns 20° about +Y (consistent sensors), then rests for 2 s.
        feed(&engine, count: 40) { device.advance(rate: Vector3(0, 20 * degree / 0.4, 0), dt: 0.01) }
        feed(&engine, count: 200) { device.hold(dt: 0.01) }
        // The garbage must not have corrupted the tilt estimate: the accelerometer is respected.
        let up = engine.attitude.conjugate.rotate(.unitZ)
        #expect(up.angle(to: -device.gravity) < 0.5 * degree)
        #expect(isPublishable(engine.current))
        #expect(engine.lastSampleTime == device.t)
    }

    @Test func gapsAreNotIntegrated() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 100) { device.hold(dt: 0.01) }
        feed(&engine, count: 10) { device.advance(rate: Vector3(0, 1, 0), dt: 0.01) }
        let before = engine.current.x
        // 5 s without samples, then one gyro-only sample at 1 rad/s: 5 rad must not be integrated.
        var t = device.t + 5_000_000_000
        _ = engine.update(Sample(t: t, gyro: Vector3(0, 1, 0)))
        #expect(abs(engine.current.x - before) < 0.01)
        // Normal integration resumes after the gap.
        for _ in 0..<10 {
            t += 10_000_000
            _ = engine.update(Sample(t: t, gyro: Vector3(0, 1, 0)))
        }
        #expect(abs(engine.current.x - before - 0.1 / (Double.pi / 2)) < 0.002)
    }

    @Test func aGyroscopeThatStopsFallsBackToTheAccelerometerAndResumes() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false, directionalLock: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        // The gyroscope goes silent; the device tips 20° about X in 1 s and rests for 1 s.
        feed(&engine, count: 100) { device.advance(rate: Vector3(20 * degree, 0, 0), dt: 0.01, gyro: false) }
        feed(&engine, count: 100) { device.advance(rate: .zero, dt: 0.01, gyro: false) }
        #expect(engine.attitudeFilter.isAccelerometerOnly)
        #expect(abs(engine.current.y - 20.0 / 90) < 0.005, "y \(engine.current.y)")
        // Back: the gyroscope leads again. Its first reading follows a 2 s gap and is not
        // integrated; the next 19 (0.5 rad/s × 0.19 s) add to the 20° tilt about X.
        feed(&engine, count: 20) { device.advance(rate: Vector3(0.5, 0, 0), dt: 0.01) }
        #expect(!engine.attitudeFilter.isAccelerometerOnly)
        #expect(abs(engine.current.y - (20 * degree + 0.5 * 0.19) / (Double.pi / 2)) < 0.003, "y \(engine.current.y)")
    }

    @Test func anAccelerometerThatStopsLeavesTheGyroscopeInCharge() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false, directionalLock: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 40) { device.advance(rate: Vector3(0.5, 0, 0), dt: 0.01, accel: false) }
        #expect(abs(engine.current.y - 0.2 / (Double.pi / 2)) < 0.003)
        // The accelerometer returns after 0.4 s: no snap (the gyroscope covered the gap), the
        // attitude agrees already, so nothing jumps.
        let before = engine.current
        feed(&engine, count: 10) { device.hold(dt: 0.01) }
        #expect(abs(engine.current.y - before.y) < 0.003)
    }

    @Test func bothSensorsStoppingAndReturningElsewhere() {
        // 2 s of nothing while the device turned 30° about X; then samples again.
        for recenter in [true, false] {
            var engine = MotionEngine(settings: MotionSettings(recenter: recenter, directionalLock: false))
            var device = SyntheticDevice.upright
            feed(&engine, count: 350) { device.hold(dt: 0.01) }
            device.attitude = device.attitude * Quaternion(axis: .unitX, angle: 30 * degree)
            device.t += 2_000_000_000
            feed(&engine, count: 5) { device.hold(dt: 0.01) }
            #expect(isPublishable(engine.current))
            // Re-centring on: the jump is absorbed (stale input); off: the new pose shows at once.
            let expected = recenter ? 0.0 : 30.0 / 90
            #expect(abs(engine.current.y - expected) < 0.005, "recenter \(recenter): y \(engine.current.y)")
        }
    }

    @Test func nanBurstsAndBackwardTimeThenRecovery() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false, directionalLock: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        let t0 = device.t
        for i in 0..<200 {
            let s = device.hold(dt: 0.01)
            let bad = i % 3 == 0 ? Vector3(.nan, .infinity, -.infinity) : s.accel!
            let t = i % 7 == 0 ? t0 - 1_000_000_000 : s.t  // sometimes far in the past
            let f = engine.update(Sample(t: t, accel: bad, gyro: i % 5 == 0 ? Vector3(1e9, 0, 0) : s.gyro))
            #expect(isPublishable(engine.current))
            if let f { #expect(isPublishable(f.offset)) }
        }
        feed(&engine, count: 40) { device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01) }
        #expect(abs(engine.current.x - 0.2 / (Double.pi / 2)) < 0.01)
        #expect(abs(engine.attitude.norm - 1) < 1e-9)
    }

    @Test func invalidSettingsFallBackToDefaults() {
        let s = MotionSettings(saturationAngle: 0, sensitivity: .nan, minimumChange: -1, maxGap: .infinity).validated()
        #expect(s.saturationAngle == MotionSettings.defaultSaturationAngle)
        #expect(s.sensitivity == MotionSettings.defaultSensitivity)
        #expect(s.minimumChange == MotionSettings.defaultMinimumChange)
        #expect(s.maxGap == MotionSettings.defaultMaxGap)
        var engine = MotionEngine(settings: MotionSettings(saturationAngle: .nan, sensitivity: .infinity))
        var device = SyntheticDevice()
        feed(&engine, count: 50) { device.advance(rate: Vector3(0.3, 0.3, 0), dt: 0.01) }
        #expect(isPublishable(engine.current) && engine.current.x > 0)
    }
}
