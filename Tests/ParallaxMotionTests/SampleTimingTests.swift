// Real dt: the same motion at different rates, or split across samples, gives the same offset.
import Testing
#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion

/// A smooth motion over 4 s (rad/s, device frame).
func wobble(_ t: Double) -> Vector3 {
    Vector3(0.6 * sin(2 * .pi * 0.5 * t), 0.8 * sin(2 * .pi * 0.3 * t + 0.4), 0.3 * cos(2 * .pi * 0.2 * t))
}

/// Offsets every 0.1 s of an engine following `wobble`, sampled at `hz`, the truth integrated at 2 kHz.
/// `split`: accelerometer at half the rate in its own samples, gyroscope alone in the others.
func wobbleOffsets(hz: Int, split: Bool = false, settings: MotionSettings = MotionSettings()) -> [ViewerOffset] {
    var engine = MotionEngine(settings: settings)
    var device = SyntheticDevice.upright
    feed(&engine, count: 50) { device.hold(dt: 1 / Double(hz)) }
    let substeps = 2000 / hz
    var out: [ViewerOffset] = []
    for i in 1...(4 * hz) {
        var s = Sample(t: 0)
        for k in 0..<substeps {
            let time = (Double(i - 1) + Double(k) / Double(substeps)) / Double(hz)
            s = device.advance(rate: wobble(time), dt: 1 / 2000)
        }
        let rate = wobble(Double(i) / Double(hz))
        if split {
            _ = engine.update(Sample(t: s.t, gyro: rate))
            if i % 2 == 0 { _ = engine.update(Sample(t: s.t + 1000, accel: s.accel)) }
        } else {
            _ = engine.update(Sample(t: s.t, accel: s.accel, gyro: rate))
        }
        if i % (hz / 10) == 0 { out.append(engine.current) }
    }
    return out
}

@Suite struct SampleTimingTests {
    @Test(arguments: [true, false])
    func sameMotionAt50And200Hz(recenter: Bool) {
        let settings = MotionSettings(recenter: recenter)
        let slow = wobbleOffsets(hz: 50, settings: settings)
        let fast = wobbleOffsets(hz: 200, settings: settings)
        #expect(slow.count == fast.count)
        let worst = zip(slow, fast).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max()!
        #expect(worst < 0.01, "worst difference \(worst)")
        #expect(fast.contains { abs($0.x) > 0.1 } && fast.contains { abs($0.y) > 0.1 })
    }

    @Test func separateSensorSamplesMatchCombinedOnes() {
        let combined = wobbleOffsets(hz: 200)
        let split = wobbleOffsets(hz: 200, split: true)
        let worst = zip(combined, split).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max()!
        #expect(worst < 0.01, "worst difference \(worst)")
    }

    /// Worst tilt error (rad) of an engine fed the same 6 s wobble through `schedule`, which turns
    /// a truth sample into the samples the engine sees.
    func wobbleTiltError(seed: UInt64, _ schedule: (inout TestRandom, Sample) -> [Sample]) -> Double {
        var engine = MotionEngine()
        var device = SyntheticDevice.upright
        var rng = TestRandom(seed: seed)
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        var worst = 0.0
        var time = 0.0
        for i in 0..<6000 {
            // Truth at 1 kHz; the schedule decides what reaches the engine.
            let s = device.advance(rate: wobble(time), dt: 0.001)
            time += 0.001
            for out in schedule(&rng, s) { _ = engine.update(out) }
            if i % 10 == 0, i > 500 {
                let up = engine.attitude.conjugate.rotate(.unitZ)
                worst = max(worst, up.angle(to: -device.gravity))
            }
        }
        return worst
    }

    @Test func jitterDuplicatesAndSeparateRatesKeepTheTilt() {
        // Reference: a clean 100 Hz stream.
        let clean = wobbleTiltError(seed: 1) { _, s in (s.t / 1_000_000) % 10 == 0 ? [s] : [] }
        // Jitter: samples 2–18 ms apart at random; some duplicated (same timestamp, sent twice).
        var next: Int64 = 0
        let jittery = wobbleTiltError(seed: 2) { rng, s in
            guard s.t >= next else { return [] }
            next = s.t + 2_000_000 + Int64(rng.next() % 16_000_000)
            return rng.next() % 4 == 0 ? [s, s] : [s]
        }
        // Separate sensors: gyroscope at 200 Hz, accelerometer at 50 Hz in their own samples.
        let separate = wobbleTiltError(seed: 3) { _, s in
            var out: [Sample] = []
            if (s.t / 1_000_000) % 5 == 0 { out.append(Sample(t: s.t, gyro: s.gyro)) }
            if (s.t / 1_000_000) % 20 == 0 { out.append(Sample(t: s.t, accel: s.accel)) }
            return out
        }
        // Within one 100 Hz sample's rotation (≤ 1 rad/s × 10 ms ≈ 0.6°) of each other.
        #expect(clean < 0.6 * degree, "clean \(clean / degree)°")
        #expect(jittery < clean + 0.6 * degree, "jitter \(jittery / degree)°")
        #expect(separate < clean + 0.6 * degree, "separate \(separate / degree)°")
    }
}
