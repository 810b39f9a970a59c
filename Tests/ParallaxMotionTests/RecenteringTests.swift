// iOS re-centring times for held tilts (docs/motion.md "Background") and their absence when switched off.
import Testing
import ParallaxMotion

struct HeldTilt: Sendable, CustomStringConvertible {
    var degrees: Double
    var half: Double  // s, iOS (docs/motion.md "Background")
    var full: Double  // s, iOS (docs/motion.md "Background")
    var description: String { "\(degrees)°" }
}

/// Upright device, initialised, then tilted about +X by `degrees` in 0.2 s and held (100 Hz).
/// Returns the y offset every 10 ms from the middle of the tilt on.
func heldTiltTrace(degrees: Double, recenter: Bool, seconds: Double) -> [Double] {
    var engine = MotionEngine(settings: MotionSettings(recenter: recenter))
    var device = SyntheticDevice.upright
    feed(&engine, count: 400) { device.hold(dt: 0.01) }
    let rate = Vector3(degrees * degree / 0.2, 0, 0)
    var trace: [Double] = []
    for i in 0..<20 {
        _ = engine.update(device.advance(rate: rate, dt: 0.01))
        if i >= 9 { trace.append(engine.current.y) }
    }
    for _ in 0..<Int(seconds * 100) {
        _ = engine.update(device.hold(dt: 0.01))
        trace.append(engine.current.y)
    }
    return trace
}

@Suite struct RecenteringTests {
    @Test(arguments: [
        HeldTilt(degrees: 10, half: 2.4, full: 5.1),
        HeldTilt(degrees: 30, half: 5.4, full: 12.7),
        HeldTilt(degrees: 45, half: 6.8, full: 17),
    ])
    func heldTiltRecentresOnIOSSchedule(tilt: HeldTilt) {
        let trace = heldTiltTrace(degrees: tilt.degrees, recenter: true, seconds: 25)
        let held = tilt.degrees / 90
        // Time from the middle of the tilt (index 0) until, after the peak, the offset has
        // halved / is gone ("gone": below 0.005).
        let peak = trace.indices.max { trace[$0] < trace[$1] }!
        #expect(abs(trace[peak] - held) < 0.01)  // less the ≈0.35° re-centred during the 0.2 s tilt
        let half = Double(trace[peak...].firstIndex { $0 <= held / 2 } ?? trace.count) * 0.01
        let full = Double(trace[peak...].firstIndex { $0 < 0.005 } ?? trace.count) * 0.01
        #expect(abs(half - tilt.half) <= 0.1 * tilt.half, "half after \(half) s")
        #expect(abs(full - tilt.full) <= 0.1 * tilt.full, "full after \(full) s")
        // Never overshoots to the other side, and stays centred.
        #expect(trace.allSatisfy { $0 > -1e-9 })
        #expect(abs(trace.last!) < 1e-6)
    }

    @Test func noRecentringWhenOff() {
        let trace = heldTiltTrace(degrees: 30, recenter: false, seconds: 20)
        #expect(trace.dropFirst(20).allSatisfy { abs($0 - 1.0 / 3) < 0.003 }, "last \(trace.last!)")
    }

    @Test func recenterCommandZeroesTheOffset() {
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 100) { device.hold(dt: 0.01) }
        feed(&engine, count: 20) { device.advance(rate: Vector3(0.5, 0.5, 0), dt: 0.01) }
        #expect(engine.current.x > 0.05 && engine.current.y > 0.05)
        engine.recenter()
        #expect(engine.current == .zero)
        let frame = engine.update(device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01))
        #expect(frame != nil && abs(frame!.offset.x - 0.005 / (Double.pi / 2)) < 0.001)
        #expect(abs(engine.current.y) < 0.001)
    }
}
