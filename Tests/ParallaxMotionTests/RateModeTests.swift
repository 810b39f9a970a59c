// Rate mode: threshold, gain, clamp without wind-up, return to centre.
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// Rate-mode engine fed gyro-only samples at 100 Hz.
struct RateRig {
    var engine: MotionEngine
    var t: Int64 = 1_000_000_000

    init(rateReturn: Double = 0) {
        engine = MotionEngine(settings: MotionSettings(mode: .rate, rateReturn: rateReturn))
    }

    mutating func spin(_ rate: Vector3, seconds: Double, hz: Double = 100) {
        let dt = 1 / hz
        for _ in 0..<Int((seconds * hz).rounded()) {
            t += Int64((dt * 1e9).rounded())
            _ = engine.update(Sample(t: t, gyro: rate))
        }
    }
}

@Suite struct RateModeTests {
    @Test func defaultGainIsDerivedFromDVParallaxView() {
        // 2.5 points/frame × 60 Hz / 150 points = 1 offset per rad.
        #expect(MotionSettings.defaultRateGain == 1.0)
        #expect(MotionSettings().rateGain == 1.0)
    }

    @Test func ratesBelowThresholdContributeNothing() {
        var rig = RateRig()
        rig.spin(Vector3(0.09, -0.09, 0.05), seconds: 3)
        #expect(rig.engine.current == .zero)
        #expect(rig.engine.seq == 1)  // just the initial frame
    }

    @Test func ratesAboveThresholdIntegrateWithTheGain() {
        var rig = RateRig()
        rig.spin(.zero, seconds: 0.01)
        rig.spin(Vector3(0, 0.2, 0), seconds: 1)
        #expect(abs(rig.engine.current.x - 0.2) < 1e-9)  // about +Y → x, like attitude mode
        rig.spin(Vector3(0.3, 0, 5), seconds: 0.5)
        #expect(abs(rig.engine.current.y - 0.15) < 1e-9)  // about +X → y; Z ignored
        #expect(abs(rig.engine.current.x - 0.2) < 1e-9)
        // Per axis: a fast turn about Y does not let a slow one about X through.
        rig.spin(Vector3(0.05, -0.4, 0), seconds: 0.5)
        #expect(abs(rig.engine.current.y - 0.15) < 1e-9 && abs(rig.engine.current.x) < 1e-9)
    }

    @Test func clampWithoutWindUp() {
        var rig = RateRig()
        rig.spin(Vector3(0, 2, 0), seconds: 3)  // 6 rad: far past the clamp
        #expect(rig.engine.current.x == 1)
        rig.spin(Vector3(0, -2, 0), seconds: 0.1)  // leaves the clamp at once
        #expect(abs(rig.engine.current.x - 0.8) < 1e-9)
    }

    @Test func returnsToCentre() {
        var rig = RateRig(rateReturn: 0)
        rig.spin(.zero, seconds: 0.01)  // the first sample has no interval
        rig.spin(Vector3(0, 1, 0), seconds: 0.5)
        #expect(abs(rig.engine.current.x - 0.5) < 1e-9)
        rig.engine.settings.rateReturn = MotionSettings.defaultRateReturn
        rig.spin(.zero, seconds: 1)
        #expect(abs(rig.engine.current.x - 0.5 * exp(-0.5)) < 1e-3)
        rig.engine.recenter()
        #expect(rig.engine.current == .zero)
    }

    @Test func independentOfSampleRate() {
        var slow = RateRig(rateReturn: 0.5), fast = RateRig(rateReturn: 0.5)
        for (rate, seconds) in [(Vector3(0.4, 0.7, 0), 0.6), (Vector3(-0.3, 0, 0), 1.0), (.zero, 0.5)] {
            slow.spin(rate, seconds: seconds, hz: 50)
            fast.spin(rate, seconds: seconds, hz: 200)
        }
        #expect(abs(slow.engine.current.x - fast.engine.current.x) < 0.01)
        #expect(abs(slow.engine.current.y - fast.engine.current.y) < 0.01)
        #expect(abs(fast.engine.current.x) > 0.1)
    }
}
