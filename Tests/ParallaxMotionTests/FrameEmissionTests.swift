// When frames are emitted: the initial one, minimum change, seq and reset.
import Testing
import ParallaxMotion

@Suite struct FrameEmissionTests {
    @Test(arguments: MotionMode.allCases)
    func stillDeviceEmitsExactlyTheInitialFrame(mode: MotionMode) {
        var engine = MotionEngine(settings: MotionSettings(mode: mode))
        var device = SyntheticDevice.upright
        var rng = TestRandom(seed: 7)
        // 10 s at 100 Hz with realistic noise: 0.02 m/s² accelerometer, 0.002 rad/s gyroscope.
        let frames = feed(&engine, count: 1000) {
            let s = device.hold(dt: 0.01)
            return Sample(
                t: s.t,
                accel: s.accel! + Vector3(rng.signedUnit(), rng.signedUnit(), rng.signedUnit()) * 0.02,
                gyro: Vector3(rng.signedUnit(), rng.signedUnit(), rng.signedUnit()) * 0.002)
        }
        #expect(frames.count == 1)
        #expect(frames.first?.seq == 1 && frames.first?.offset == .zero)
        #expect(frames.first?.t == 5_010_000_000)  // the first sample initialises the reference
        #expect(engine.seq == 1)
    }

    @Test func noFrameBeforeTheReference() {
        var engine = MotionEngine()
        #expect(engine.update(Sample(t: 1, gyro: Vector3(0, 1, 0))) == nil)
        #expect(engine.update(Sample(t: 2, accel: Vector3(0, 0, -30), gyro: .zero)) == nil)  // 3 g
        #expect(engine.lastSampleTime == 2)
        let first = engine.update(Sample(t: 3, accel: Vector3(0, -g, 0)))
        #expect(first == MotionFrame(seq: 1, t: 3, offset: .zero, attitude: engine.attitude))
    }

    @Test func movingDeviceEmitsUnroundedFramesSpacedByMinimumChange() {
        let minimumChange = 0.01
        var engine = MotionEngine(settings: MotionSettings(recenter: false, minimumChange: minimumChange))
        var device = SyntheticDevice.upright
        var frames = feed(&engine, count: 10) { device.hold(dt: 0.01) }
        frames += feed(&engine, count: 100) { device.advance(rate: Vector3(0, 0.3, 0), dt: 0.01) }
        // 0.3 rad → x ≈ 0.19: about one frame per 0.01 of travel, never closer than that.
        #expect(frames.count >= 15 && frames.count <= 20)
        for (a, b) in zip(frames, frames.dropFirst()) {
            #expect(b.seq == a.seq + 1)
            #expect(max(abs(b.offset.x - a.offset.x), abs(b.offset.y - a.offset.y)) >= minimumChange)
        }
        #expect(frames.contains { ($0.offset.x * 1e4).rounded() != $0.offset.x * 1e4 })
        #expect(engine.current.x - frames.last!.offset.x < minimumChange)
    }

    @Test func defaultMinimumChangeIsIOSsAndTheReturnToCentreIsAlwaysSent() {
        #expect(MotionSettings().minimumChange == 0.015)
        var engine = MotionEngine()
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        // Tip 10° down in 0.2 s, then hold for 8 s: re-centring brings the offset back to 0.
        var frames = feed(&engine, count: 20) { device.advance(rate: Vector3(0.5 * degree / 0.01, 0, 0), dt: 0.01) }
        frames += feed(&engine, count: 800) { device.hold(dt: 0.01) }
        for (a, b) in zip(frames, frames.dropFirst()).dropLast() {
            #expect(max(abs(b.offset.x - a.offset.x), abs(b.offset.y - a.offset.y)) >= 0.015)
        }
        // The last step to exactly (0, 0) is smaller than 0.015 but is sent: clients end centred.
        #expect(frames.last?.offset == .zero)
        // ≈0.11 up and back down in steps of ≥ 0.015, plus the initial and the final frame.
        #expect(frames.count >= 10 && frames.count <= 18, "\(frames.count) frames")
    }

    @Test func resetForgetsStateButKeepsSeqIncreasing() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 10) { device.hold(dt: 0.01) }
        feed(&engine, count: 30) { device.advance(rate: Vector3(0.5, 0, 0), dt: 0.01) }
        let seqBefore = engine.seq
        #expect(seqBefore > 1 && engine.current.y > 0.05)
        engine.reset()
        #expect(!engine.isInitialized && engine.lastSampleTime == nil && engine.current == .zero)
        // The new first frame comes at the current pose, which becomes the reference.
        let frame = engine.update(device.hold(dt: 0.01))
        #expect(frame?.seq == seqBefore + 1 && frame?.offset == .zero)
    }

    @Test func changingSettingsKeepsState() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 10) { device.hold(dt: 0.01) }
        feed(&engine, count: 20) { device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01) }
        let x = engine.current.x
        engine.settings.sensitivity = 2
        _ = engine.update(device.hold(dt: 0.01))
        #expect(abs(engine.current.x - 2 * x) < 1e-6)
        // Switching mode re-centres; the change to (0, 0) is emitted.
        engine.settings.mode = .rate
        #expect(engine.current == .zero)
        let f = engine.update(device.hold(dt: 0.01))
        #expect(f?.offset == .zero)
    }
}
