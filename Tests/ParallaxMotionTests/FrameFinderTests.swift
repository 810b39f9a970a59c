// The guided frame check (parallaxctl frame): three still poses of a physically modelled chip.
import Testing
import Glibc
import ParallaxMotion

@Suite struct FrameFinderTests {
    /// Raw samples of a chip turned by `rotation` (specific force, own rate, `Chip` in
    /// SensorFrameTests) on a device taken through the three poses with 1.5 s pauses.
    func session(chip rotation: MountMatrix, gyro: Bool = true, tremor: Double = 0.05) -> [Sample] {
        let chip = Chip(rotation: rotation)
        var device = SyntheticDevice.upright
        var random = TestRandom(seed: 3)
        var out: [Sample] = []
        let dt = 0.01
        func emit(_ s: Sample) {
            let noise = Vector3(random.signedUnit(), random.signedUnit(), random.signedUnit()) * tremor
            out.append(Sample(t: s.t, accel: s.accel.map { chip.rawAccel(gravityDirection: $0) + noise },
                              gyro: gyro ? s.gyro.map(chip.rawGyro) : nil))
        }
        func hold() { for _ in 0..<150 { emit(device.hold(dt: dt)) } }
        func turn(_ axis: Vector3, degrees: Double) {
            let steps = 50
            for _ in 0..<steps { emit(device.advance(rate: axis * (degrees * degree / (Double(steps) * dt)), dt: dt)) }
        }
        hold()                                  // upright
        turn(.unitZ, degrees: -90); hold()      // on its right edge: gravity +X
        turn(.unitY, degrees: -90); hold()      // face up: gravity −Z
        return out
    }

    @Test func findsEveryAxisAlignedChipMount() {
        for r in axisRotations {
            var finder = FrameFinder()
            var poses: [FrameFinder.Pose] = []
            for s in session(chip: r) { if let p = finder.observe(s) { poses.append(p) } }
            #expect(poses == FrameFinder.Pose.allCases)
            guard let result = finder.result else { Issue.record("no result for \(r.text)"); continue }
            #expect(result.accel == r.scaled(-1), "\(r.text): \(result.accel.text)")
            #expect(result.gyro == r, "\(r.text): \(result.gyro.text)")
            #expect(result.check.hasPrefix("consistent"), "\(result.check)")
            // hwdb reads the printed line back to the same frame.
            let line = try! #require(result.hwdb)
            let back = try! FrameDerivation.fromHwdb(MountMatrix(r.scaled(-1).values)).get()
            #expect(line == "ACCEL_MOUNT_MATRIX=\(r.scaled(-1).text)" && back.accel == result.accel)
        }
    }

    @Test func aChipReportingTheDirectionOfGravityGetsOnlyTheConfigForm() {
        // HID-hub style: raw = R^T · direction of gravity. The frame is +R, which hwdb cannot say.
        let r = axisRotations[5]
        var finder = FrameFinder()
        for s in session(chip: r) {
            _ = finder.observe(Sample(t: s.t, accel: s.accel.map { -$0 }, gyro: s.gyro))
        }
        let result = try! #require(finder.result)
        #expect(result.accel == r && result.gyro == r && result.hwdb == nil)
    }

    @Test func withoutAGyroscopeTheAccelerometerStillGivesTheMatrix() {
        var finder = FrameFinder()
        for s in session(chip: axisRotations[9], gyro: false) { _ = finder.observe(s) }
        #expect(finder.result?.accel == axisRotations[9].scaled(-1))
        #expect(finder.result?.check == "no gyroscope")
    }

    @Test func movingOrRepeatingAPoseTakesNothing() {
        var finder = FrameFinder()
        var device = SyntheticDevice.upright
        // Always moving: never still.
        for i in 0..<1000 { _ = finder.observe(device.advance(rate: Vector3(0.5 * sin(Double(i) / 20), 0, 0), dt: 0.01)) }
        #expect(finder.waitingFor == .upright)
        // Still upright: the first pose; staying there does not count as the second.
        device.attitude = SyntheticDevice.upright.attitude
        for _ in 0..<500 { _ = finder.observe(device.hold(dt: 0.01)) }
        #expect(finder.waitingFor == .rightEdgeDown && finder.result == nil)
    }
}
