// Yaw about the world's vertical (docs/frames.md "Heading"): sign and size for turns about the
// vertical in any pose, what tilts do not change, its rate, re-centring, frames for yaw alone,
// and the sensors it needs.
import Testing
import ParallaxMotion

/// An engine settled (3 s start-up) at `start`, then turned by `angle` about the world's vertical
/// (earth Z) over 1 s at 100 Hz.
func headingAfterTurn(from start: Quaternion, angle: Double, settings: MotionSettings = MotionSettings(recenter: false))
    -> (engine: MotionEngine, frames: [MotionFrame]) {
    var engine = MotionEngine(settings: settings)
    engine.headingWanted = true
    var device = SyntheticDevice(attitude: start)
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    let steps = 100
    let earthRate = Vector3(0, 0, angle / (Double(steps) * 0.01))
    let frames = feed(&engine, count: steps) {
        // The same earth-frame rate seen in the device frame as the attitude turns.
        device.advance(rate: device.attitude.conjugate.rotate(earthRate), dt: 0.01)
    }
    return (engine, frames)
}

@Suite struct HeadingTests {
    @Test(arguments: startPoses)
    func aTurnAboutTheVerticalIsItsYaw(start: Quaternion) {
        for angle in [25 * degree, -40 * degree, 170 * degree] {
            let yaw = headingAfterTurn(from: start, angle: angle).engine.heading.yaw
            #expect(abs(yaw - angle) < 1e-3, "yaw \(yaw) for \(angle)")
        }
    }

    @Test func uprightTheYawHasTheHandOfX() {
        let o = offsetAfterRotation(from: SyntheticDevice.upright.attitude, axis: .unitY, angle: 20 * degree)
        let (engine, _) = headingAfterTurn(from: SyntheticDevice.upright.attitude, angle: 20 * degree)
        #expect(o.x > 0.2 && engine.current.x > 0.2)
        #expect(abs(engine.heading.yaw - 20 * degree) < 1e-3)
    }

    @Test func tiltsLeaveTheYaw() {
        // Upright, tipping forward 30° (about device X, horizontal): x, y move, yaw stays.
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        engine.headingWanted = true
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 30) { device.advance(rate: Vector3(1, 0, 0), dt: 0.01) }
        #expect(abs(engine.current.y) > 0.15)
        #expect(abs(engine.heading.yaw) < 1e-6)
    }

    @Test func theRateIsTheYawsRateOfChange() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        engine.headingWanted = true
        var device = SyntheticDevice(attitude: Quaternion(axis: Vector3(0.4, -0.2, 0.9), angle: 1.1))
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        let earthRate = Vector3(0, 0, 0.8)
        var previous = engine.heading.yaw
        for _ in 0..<20 {
            _ = engine.update(device.advance(rate: device.attitude.conjugate.rotate(earthRate), dt: 0.01))
            #expect(abs(engine.heading.rate - 0.8) < 1e-3)
            #expect(abs((engine.heading.yaw - previous) / 0.01 - 0.8) < 1e-3)
            previous = engine.heading.yaw
        }
        // A turn about a tilted device axis: the rate follows the change of yaw too.
        previous = engine.heading.yaw
        let body = Vector3(0.3, 1.2, -0.5)
        for _ in 0..<20 {
            _ = engine.update(device.advance(rate: body, dt: 0.005))
            let change = (engine.heading.yaw - previous) / 0.005
            #expect(abs(engine.heading.rate - change) < 0.02 * max(1, abs(change)), "rate \(engine.heading.rate) vs \(change)")
            previous = engine.heading.yaw
        }
        feed(&engine, count: 10) { device.hold(dt: 0.01) }
        #expect(engine.heading.rate == 0)  // still: 0, like vx and vy
    }

    @Test func yawReCentresWithTheReferenceAndOnRecenter() {
        let (turned, _) = headingAfterTurn(from: SyntheticDevice.upright.attitude, angle: 30 * degree, settings: MotionSettings())
        var engine = turned
        var device = SyntheticDevice(attitude: engine.attitude)
        device.t = engine.lastSampleTime ?? device.t
        let before = engine.heading.yaw
        feed(&engine, count: 500) { device.hold(dt: 0.01) }  // 5 s held
        #expect(engine.heading.yaw > 0 && engine.heading.yaw < before * 0.8)
        feed(&engine, count: 2000) { device.hold(dt: 0.01) }  // re-centred by now (30°: 12.4 s)
        #expect(abs(engine.heading.yaw) < 1e-3)

        var fixed = headingAfterTurn(from: .identity, angle: 30 * degree).engine
        fixed.recenter()
        #expect(fixed.heading == .zero)
    }

    @Test func framesForYawAloneOnlyWhenWanted() {
        // Face-up, a turn in the screen's plane: x and y stay 0, only the yaw moves. Not wanted:
        // no frames and no heading kept.
        var quietEngine = MotionEngine(settings: MotionSettings(recenter: false))
        var still = SyntheticDevice()
        feed(&quietEngine, count: 350) { still.hold(dt: 0.01) }
        let quiet = feed(&quietEngine, count: 40) { still.advance(rate: Vector3(0, 0, 0.5), dt: 0.01) }
        #expect(quiet.isEmpty && quietEngine.heading == .zero)
        var settings = MotionSettings(recenter: false)
        settings.minimumChange = 0.015
        var engine = MotionEngine(settings: settings)
        engine.headingWanted = true
        var device = SyntheticDevice()
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        let frames = feed(&engine, count: 40) { device.advance(rate: Vector3(0, 0, 0.5), dt: 0.01) }
        #expect(frames.count >= 20)  // 0.2 rad (11°) in steps of at least 0.1°
        #expect(frames.allSatisfy { !$0.offsetMoved && abs($0.offset.x) < 1e-9 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { abs($1.heading.yaw - $0.heading.yaw) >= Heading.minimumChange - 1e-12 })
        #expect(feed(&engine, count: 100) { device.hold(dt: 0.01) }.isEmpty)  // still: silence
    }

    @Test func aHeadingWantedLateIsThereAtOnce() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 50) { device.advance(rate: Vector3(0, 0.4, 0), dt: 0.01) }
        #expect(engine.heading == .zero)  // not wanted: not kept
        engine.headingWanted = true
        #expect(abs(engine.heading.yaw - 0.2) < 1e-3)  // 0.4 rad/s for 0.5 s, no sample since
        engine.headingWanted = false
        #expect(engine.heading == .zero)
    }

    @Test func rateModeHasAHeadingToo() {
        let yaw = headingAfterTurn(from: .identity, angle: 45 * degree, settings: MotionSettings(mode: .rate, recenter: false)).engine.heading.yaw
        #expect(abs(yaw - 45 * degree) < 1e-3)
    }

    @Test func withoutGyroscopeTheYawStaysZeroAndFinite() {
        var engine = MotionEngine()
        engine.headingWanted = true
        var device = SyntheticDevice.upright
        feed(&engine, count: 300) { device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01, gyro: false) }
        #expect(engine.heading.rate == 0 && engine.heading.yaw.isFinite)
        #expect(engine.heading.yaw == 0)
    }

    @Test func badInputNeverMakesTheYawNaN() {
        var engine = MotionEngine()
        engine.headingWanted = true
        var device = SyntheticDevice(attitude: Quaternion(axis: .unitX, angle: 3.1))  // nearly face-down
        var random = TestRandom(seed: 7)
        for i in 0..<2000 {
            var s = device.advance(rate: Vector3(random.signedUnit() * 20, random.signedUnit() * 20, random.signedUnit() * 20), dt: 0.005)
            if i % 7 == 0 { s.gyro = Vector3(.nan, .infinity, 1e300) }
            if i % 11 == 0 { s.accel = Vector3(0, 0, 0) }
            if i % 13 == 0 { s.t -= 1_000_000_000 }
            _ = engine.update(s)
            #expect(engine.heading.yaw.isFinite && engine.heading.rate.isFinite)
            #expect(engine.heading.yaw > -Double.pi && engine.heading.yaw <= Double.pi)
        }
    }
}
