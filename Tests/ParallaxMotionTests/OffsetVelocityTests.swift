// The offset's velocity (vx, vy on the wire): it must be the derivative of the offset the engine
// publishes, in both modes, every pose and every display rotation, and 0 when nothing moves.
import Testing
import ParallaxMotion

/// An engine started at `start` (re-centring and lock as given), past its 3 s start-up.
private func settledEngine(at start: Quaternion, settings: MotionSettings) -> (MotionEngine, SyntheticDevice) {
    var engine = MotionEngine(settings: settings)
    var device = SyntheticDevice(attitude: start)
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    return (engine, device)
}

/// The engine's velocity after turning at `rate` for `steps` samples, beside the offset's
/// central difference over the next and previous sample (offset units per second).
private func velocityAndDifference(
    start: Quaternion, rate: Vector3, steps: Int, settings: MotionSettings
) -> (velocity: OffsetVelocity, difference: OffsetVelocity) {
    var (engine, device) = settledEngine(at: start, settings: settings)
    let dt = 0.002
    feed(&engine, count: steps) { device.advance(rate: rate, dt: dt) }
    let before = engine.current
    _ = engine.update(device.advance(rate: rate, dt: dt))
    let velocity = engine.velocity
    _ = engine.update(device.advance(rate: rate, dt: dt))
    let after = engine.current
    return (velocity, OffsetVelocity(x: (after.x - before.x) / (2 * dt), y: (after.y - before.y) / (2 * dt)))
}

@Suite struct OffsetVelocityTests {
    static let still = MotionSettings(recenter: false, minimumChange: 0, directionalLock: false)

    @Test(arguments: startPoses)
    func attitudeVelocityIsTheOffsetsDerivative(start: Quaternion) {
        // A turn about a skew axis, partway to a large tilt: both axes move, neither is small.
        for (rate, steps) in [(Vector3(0.6, 1.1, 0.3), 100), (Vector3(-1.4, 0.2, -0.8), 300), (Vector3(0.1, -2.0, 0), 150)] {
            let (v, d) = velocityAndDifference(start: start, rate: rate, steps: steps, settings: Self.still)
            #expect(abs(v.x - d.x) <= 0.01 * max(abs(d.x), 0.1), "vx \(v.x) against \(d.x)")
            #expect(abs(v.y - d.y) <= 0.01 * max(abs(d.y), 0.1), "vy \(v.y) against \(d.y)")
        }
    }

    @Test func aTurnTowardTheRightHasPositiveVX() {
        // 1 rad/s about device +Y from rest: x grows at 1/(π/2) per second.
        var (engine, device) = settledEngine(at: .identity, settings: Self.still)
        _ = engine.update(device.advance(rate: Vector3(0, 1, 0), dt: 0.01))
        #expect(abs(engine.velocity.x - 2 / Double.pi) < 0.01)
        #expect(abs(engine.velocity.y) < 1e-9)
    }

    @Test func stillDevicesAndNoiseHaveNoVelocity() {
        var (engine, device) = settledEngine(at: SyntheticDevice.upright.attitude, settings: Self.still)
        var noise = TestRandom(seed: 5)
        for _ in 0..<200 {
            // A few mrad/s of gyroscope noise (more than a real MEMS gyroscope at rest).
            let jitter = Vector3(noise.signedUnit(), noise.signedUnit(), noise.signedUnit()) * 0.005
            _ = engine.update(Sample(t: device.t, accel: device.gravity, gyro: jitter))
            device.t += 10_000_000
            #expect(engine.velocity == .zero)
        }
    }

    @Test func withoutAGyroscopeThereIsNoVelocity() {
        var (engine, device) = settledEngine(at: .identity, settings: Self.still)
        feed(&engine, count: 50) { device.advance(rate: Vector3(0, 1, 0), dt: 0.01, gyro: false) }
        #expect(engine.velocity == .zero)
    }

    @Test func aSaturatedAxisPushedFurtherDoesNotMove() {
        let settings = MotionSettings(saturationAngle: 20 * degree, recenter: false, minimumChange: 0, directionalLock: false)
        var (engine, device) = settledEngine(at: .identity, settings: settings)
        feed(&engine, count: 60) { device.advance(rate: Vector3(0, 1, 0), dt: 0.01) }
        #expect(engine.current.x == 1)
        #expect(engine.velocity.x == 0)
        _ = engine.update(device.advance(rate: Vector3(0, -1, 0), dt: 0.01))
        #expect(engine.velocity.x < 0, "turning back leaves the limit at once")
    }

    @Test func aHeldAxisMovesOnlyAsFastAsThePublishedOffset() {
        // Directional lock on: a long horizontal swing holds the vertical axis, so a small
        // vertical part of the turn shows in y only partly — and vy says exactly that much.
        let settings = MotionSettings(recenter: false, minimumChange: 0, directionalLock: true)
        let rate = Vector3(0.05, 1.2, 0)
        let (v, d) = velocityAndDifference(start: .identity, rate: rate, steps: 500, settings: settings)
        let unlocked = 0.05 / (Double.pi / 2)
        #expect(abs(v.y) < 0.5 * unlocked, "the lock holds most of y: vy \(v.y)")
        #expect(abs(v.y - d.y) <= 0.05 * unlocked, "vy \(v.y) against the published y's \(d.y)")
        #expect(abs(v.x - d.x) <= 0.01 * abs(d.x))
    }

    @Test func recenteringStopsTheVelocity() {
        var (engine, device) = settledEngine(at: .identity, settings: Self.still)
        _ = engine.update(device.advance(rate: Vector3(0, 1, 0), dt: 0.01))
        #expect(engine.velocity.x > 0)
        engine.recenter()
        #expect(engine.velocity == .zero)
    }

    @Test func rateModeVelocityIsGainTimesThresholdedRate() {
        let settings = MotionSettings(mode: .rate, minimumChange: 0, rateThreshold: 0.1, rateGain: 0.5, rateReturn: 0)
        var engine = MotionEngine(settings: settings)
        var device = SyntheticDevice()
        _ = engine.update(device.hold(dt: 0.01))
        _ = engine.update(device.advance(rate: Vector3(0.05, 0.8, 0), dt: 0.01))
        #expect(abs(engine.velocity.x - 0.4) < 1e-9, "0.8 rad/s × 0.5 /rad")
        #expect(engine.velocity.y == 0, "0.05 rad/s is under the threshold")
    }

    @Test func rateModeReturnPullsTowardCentre() {
        let settings = MotionSettings(mode: .rate, minimumChange: 0, rateThreshold: 0.1, rateGain: 0.5, rateReturn: 2)
        var engine = MotionEngine(settings: settings)
        var device = SyntheticDevice()
        feed(&engine, count: 30) { device.advance(rate: Vector3(0, 1, 0), dt: 0.01) }
        _ = engine.update(device.hold(dt: 0.01))
        #expect(engine.current.x > 0)
        #expect(abs(engine.velocity.x + 2 * engine.current.x) < 1e-9)
    }

    @Test(arguments: DisplayRotation.allCases)
    func velocityTurnsWithTheOutputLikeTheOffset(rotation: DisplayRotation) {
        let v = OffsetVelocity(x: 0.3, y: -0.7)
        let o = ViewerOffset(x: 0.3, y: -0.7).rotated(by: rotation)
        #expect(v.rotated(by: rotation) == OffsetVelocity(x: o.x, y: o.y))
    }

    @Test func framesCarryTheVelocityOfTheirSample() {
        var (engine, device) = settledEngine(at: .identity, settings: Self.still)
        let frame = engine.update(device.advance(rate: Vector3(0.4, 0, 0), dt: 0.01))
        #expect(frame?.velocity == engine.velocity)
        #expect((frame?.velocity.y ?? 0) > 0)
    }
}
