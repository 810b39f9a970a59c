// Attitude-mode offset signs and scale (docs/frames.md "Viewer offset").
import Testing
import ParallaxMotion

/// Starting poses the signs must hold in: flat face-up, upright, and an arbitrary tilted one.
let startPoses: [Quaternion] = [
    .identity,
    Quaternion(axis: .unitX, angle: .pi / 2),
    Quaternion(axis: Vector3(0.4, -0.2, 0.9), angle: 1.1),
]

/// Initialises an engine (re-centring off) at `start`, lets the 3 s start-up pass, rotates by
/// `angle` about the device axis `axis` with consistent gyro and accelerometer at 100 Hz, and
/// returns the offset.
func offsetAfterRotation(from start: Quaternion, axis: Vector3, angle: Double, settings: MotionSettings = MotionSettings(recenter: false)) -> ViewerOffset {
    var engine = MotionEngine(settings: settings)
    var device = SyntheticDevice(attitude: start)
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    let steps = 40
    let rate = axis.normalized()! * (angle / (Double(steps) * 0.01))
    feed(&engine, count: steps) { device.advance(rate: rate, dt: 0.01) }
    return engine.current
}

@Suite struct OffsetSignTests {
    @Test(arguments: startPoses)
    func rotationAboutYGivesPositiveX(start: Quaternion) {
        let o = offsetAfterRotation(from: start, axis: .unitY, angle: 10 * degree)
        #expect(abs(o.x - 10.0 / 90) < 0.002, "x = \(o.x)")
        #expect(abs(o.y) < 0.002)
        let back = offsetAfterRotation(from: start, axis: .unitY, angle: -10 * degree)
        #expect(abs(back.x + 10.0 / 90) < 0.002)
    }

    @Test(arguments: startPoses)
    func rotationAboutXGivesPositiveY(start: Quaternion) {
        let o = offsetAfterRotation(from: start, axis: .unitX, angle: 10 * degree)
        #expect(abs(o.y - 10.0 / 90) < 0.002, "y = \(o.y)")
        #expect(abs(o.x) < 0.002)
    }

    @Test(arguments: startPoses)
    func rotationAboutScreenNormalGivesNothing(start: Quaternion) {
        let o = offsetAfterRotation(from: start, axis: .unitZ, angle: 40 * degree)
        #expect(abs(o.x) < 0.002 && abs(o.y) < 0.002, "\(o)")
    }

    @Test func saturationAndSensitivityScaleAndClamp() {
        let start = Quaternion(axis: .unitX, angle: .pi / 2)
        let half = offsetAfterRotation(from: start, axis: .unitY, angle: 15 * degree,
                                       settings: MotionSettings(saturationAngle: 30 * degree, recenter: false))
        #expect(abs(half.x - 0.5) < 0.005)
        let doubled = offsetAfterRotation(from: start, axis: .unitY, angle: 15 * degree,
                                          settings: MotionSettings(sensitivity: 2, recenter: false))
        #expect(abs(doubled.x - 2 * 15.0 / 90) < 0.005)
        let clamped = offsetAfterRotation(from: start, axis: .unitX, angle: -60 * degree,
                                          settings: MotionSettings(saturationAngle: 30 * degree, recenter: false))
        #expect(clamped.y == -1)
    }

    @Test(arguments: startPoses)
    func gyroRotationGivesExpectedOffset(start: Quaternion) {
        // 0.5 rad/s about +Y for 0.4 s = 0.2 rad.
        var engine = MotionEngine(settings: MotionSettings(recenter: false))
        var device = SyntheticDevice(attitude: start)
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 40) { device.advance(rate: Vector3(0, 0.5, 0), dt: 0.01) }
        #expect(abs(engine.current.x - 0.2 / (Double.pi / 2)) < 0.002, "x = \(engine.current.x)")
        #expect(abs(engine.current.y) < 0.002)
    }

    /// docs/frames.md "Display rotation": a client with output rotated clockwise by r gets the panel
    /// offset (x, y) as 0 → (x, y), 90 → (y, −x), 180 → (−x, −y), 270 → (−y, x).
    static let rotatedAxes: [DisplayRotation: (x: (axis: Character, sign: Double), y: (axis: Character, sign: Double))] = [
        .none: (("x", 1), ("y", 1)),
        .clockwise90: (("y", 1), ("x", -1)),
        .clockwise180: (("x", -1), ("y", -1)),
        .clockwise270: (("y", -1), ("x", 1)),
    ]

    @Test(arguments: DisplayRotation.allCases)
    func everyAxisSignUnderEveryDisplayRotation(rotation: DisplayRotation) {
        // +Y turns the screen toward the viewer's right (panel x > 0), +X tips it down (panel y > 0);
        // the negative turns give the negative offsets. Then the output's axes per the table.
        let turns: [(axis: Vector3, panel: ViewerOffset)] = [
            (.unitY, ViewerOffset(x: 1, y: 0)), (-Vector3.unitY, ViewerOffset(x: -1, y: 0)),
            (.unitX, ViewerOffset(x: 0, y: 1)), (-Vector3.unitX, ViewerOffset(x: 0, y: -1)),
        ]
        let map = Self.rotatedAxes[rotation]!
        for turn in turns {
            let o = offsetAfterRotation(from: Quaternion(axis: .unitX, angle: .pi / 2), axis: turn.axis, angle: 12 * degree)
            let out = o.rotated(by: rotation)
            func panel(_ a: Character) -> Double { a == "x" ? turn.panel.x : turn.panel.y }
            let expected = ViewerOffset(x: map.x.sign * panel(map.x.axis), y: map.y.sign * panel(map.y.axis))
            let size = 12.0 / 90
            #expect(abs(out.x - expected.x * size) < 0.003 && abs(out.y - expected.y * size) < 0.003,
                    "rotation \(rotation.degrees), turn about \(turn.axis): \(out)")
        }
    }

    @Test func attitudeIsDeviceToEarth() {
        var engine = MotionEngine()
        var device = SyntheticDevice.upright
        feed(&engine, count: 10) { device.hold(dt: 0.01) }
        // Upright: the device's top (+Y) points up in the earth frame, its screen (+Z) horizontal.
        #expect(close(engine.attitude.rotate(.unitY), .unitZ, 1e-6))
        #expect(abs(engine.attitude.rotate(.unitZ).z) < 1e-6)
    }
}
