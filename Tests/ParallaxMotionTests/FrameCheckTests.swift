// The online frame check: gyroscope turns against the gravity direction the accelerometer sees.
import Testing
import Glibc
import ParallaxMotion

@Suite struct FrameCheckTests {
    /// A hand-held device tilted back 45° (gravity oblique to all three axes) rocking about
    /// every axis in turn at 2 rad/s peak: `seconds` of 200 Hz samples, gyro through `gyroMap`.
    func rocking(seconds: Double, accelNoise: Double = 0, gyroMap: (Vector3) -> Vector3 = { $0 }) -> [Sample] {
        var device = SyntheticDevice(attitude: Quaternion(axis: .unitX, angle: 45 * degree))
        var random = TestRandom(seed: 7)
        var out: [Sample] = []
        let dt = 0.005
        for i in 0..<Int(seconds / dt) {
            let t = Double(i) * dt
            let phase = 2 * Double.pi * t / 0.8
            // x, y and z in turn, each a whole number of swings so the pose does not drift.
            let axis = [Vector3.unitX, .unitY, .unitZ][Int(t / 1.6) % 3]
            var s = device.advance(rate: axis * (2 * sin(phase)), dt: dt)
            if accelNoise > 0, let a = s.accel {
                s.accel = a + Vector3(random.signedUnit(), random.signedUnit(), random.signedUnit()) * accelNoise
            }
            s.gyro = s.gyro.map(gyroMap)
            out.append(s)
        }
        return out
    }

    func run(_ samples: [Sample], check: inout FrameCheck) -> [FrameCheck.State] {
        samples.compactMap { check.observe($0) }
    }

    @Test func aConsistentFrameIsConfirmed() {
        var check = FrameCheck()
        let changes = run(rocking(seconds: 9.6, accelNoise: 0.05), check: &check)
        #expect(check.state == .consistent && changes.last == .consistent)
        for ratio in check.ratios {
            #expect(ratio.map { abs($0 - 1) < 0.1 } == true, "ratios \(check.ratios)")
        }
        #expect(check.correction == Vector3(1, 1, 1))
    }

    @Test func aMirroredGyroscopeIsCorrected() {
        // GyroMountMatrix set to the accelerometer's matrix of det −1: every rate negated.
        var check = FrameCheck()
        let samples = rocking(seconds: 9.6, gyroMap: { -$0 })
        let changes = run(samples, check: &check)
        #expect(check.state == .corrected, "\(check.summary)")
        #expect(changes.filter { $0 == .corrected }.count == 1)
        #expect(check.correction == Vector3(-1, -1, -1))
        let last = samples.last!
        #expect(check.corrected(last).gyro == last.gyro.map { -$0 })
        #expect(check.summary.contains("x, y, z negated"))
    }

    @Test func oneFlippedAxisIsFoundAndOnlyItIsCorrected() {
        var check = FrameCheck()
        _ = run(rocking(seconds: 9.6, gyroMap: { Vector3($0.x, -$0.y, $0.z) }), check: &check)
        #expect(check.state == .corrected && check.correction == Vector3(1, -1, 1), "\(check.summary)")
    }

    @Test func aSizeDisagreementIsReportedNotCorrected() {
        var check = FrameCheck()
        _ = run(rocking(seconds: 9.6, gyroMap: { $0 * 0.5 }), check: &check)
        #expect(check.state == .disagrees, "\(check.summary)")
        let s = Sample(t: 1, accel: Vector3(0, -9.8, 0), gyro: Vector3(1, 2, 3))
        #expect(check.corrected(s) == s)
    }

    @Test func restBiasAndGapsTeachNothing() {
        var check = FrameCheck()
        var t: Int64 = 1_000_000_000
        for i in 0..<2000 {
            t += 5_000_000
            // A resting device with a 0.02 rad/s bias; every 100th sample a half-second gap.
            if i % 100 == 0 { t += 500_000_000 }
            _ = check.observe(Sample(t: t, accel: Vector3(0, -9.80665 * 0.7071, -9.80665 * 0.7071), gyro: Vector3(0.02, -0.02, 0.02)))
        }
        #expect(check.state == .pending && check.windows == 0)
        #expect(check.ratios.allSatisfy { $0 == nil })
    }

    @Test func withoutAGyroscopeThereIsNothingToCheck() {
        var check = FrameCheck(hasGyroscope: false)
        #expect(run(rocking(seconds: 1), check: &check).isEmpty && check.state == .noGyroscope)
        #expect(check.summary == "no gyroscope")
    }

    @Test func garbageSamplesNeitherCrashNorCount() {
        var check = FrameCheck()
        var t: Int64 = 0
        let junk: [Sample] = [
            Sample(t: 5, accel: Vector3(.nan, 0, 0), gyro: Vector3(.infinity, 0, 0)),
            Sample(t: 5, accel: .zero, gyro: .zero),
            Sample(t: -100, accel: Vector3(0, -1e300, 0), gyro: Vector3(1e300, 0, 0)),
        ]
        for _ in 0..<300 {
            for var s in junk { t += 1_000_000; s.t = t; _ = check.observe(s) }
        }
        #expect(check.state == .pending && check.windows == 0)
    }
}
