// The pure parts of the evdev motion source (docs/sensors.md "evdev motion devices"): scaling by
// the input ABI's resolution, the Steam Deck's axes in the screen frame (docs/frames.md),
// MSC_TIMESTAMP unwrapping and discovery from sysfs (the IIO-or-evdev choice: LocalSourcesTests).
import Glibc
import ParallaxMotion
import Testing
@testable import ParallaxIIO

struct EvdevMotionTests {
    /// hid-steam's axes: ±32768, 16384 per g, fuzz 32; 16 per °/s, fuzz 1.
    static let deck = try! EvdevMotionAxes.make(accelResolution: [16384, 16384, 16384], accelFuzz: [32, 32, 32],
                                                gyroResolution: [16, 16, 16], gyroFuzz: [1, 1, 1]).get()
    static let g = EvdevMotionAxes.standardGravity

    /// What hid-steam does with the Deck's HID report (ax, ay, az, gx, gy, gz), raw units:
    /// ABS_X = ax, ABS_Y = az, ABS_Z = −ay; ABS_RX = gx, ABS_RY = gz, ABS_RZ = −gy.
    static func evdev(fromReport r: [Int32]) -> [Int32] { [r[0], r[2], -r[1], r[3], r[5], -r[4]] }

    /// One sample of the Deck as the driver makes it: scaled, then through the frame.
    static func sample(report: [Int32], frame: SensorFrame) -> (accel: Vector3, gyro: Vector3) {
        let e = evdev(fromReport: report)
        return (frame.accel.apply(deck.acceleration(e[0], e[1], e[2])), frame.gyro.apply(deck.rate(e[3], e[4], e[5])!))
    }

    static var deckFrame: SensorFrame {
        EvdevKnownDevice.frame(known: .steamDeck, hwdb: nil, accelOverride: nil, gyroOverride: nil, logger: nil)
    }

    @Test func resolutionGivesSIUnits() {
        let a = Self.deck.acceleration(16384, -8192, 0)
        #expect(abs(a.x - Self.g) < 1e-12 && abs(a.y + Self.g / 2) < 1e-12 && a.z == 0)
        let w = Self.deck.rate(16 * 90, 0, -16 * 180)!
        #expect(abs(w.x - Double.pi / 2) < 1e-12 && w.y == 0 && abs(w.z + Double.pi) < 1e-12)
        // The fuzz in SI units: 32/16384 g and 1/16 °/s.
        #expect(abs(Self.deck.accelQuantum - 32.0 / 16384 * Self.g) < 1e-12)
        #expect(abs(Self.deck.gyroQuantum - Double.pi / 180 / 16) < 1e-12)
    }

    @Test func axesWithoutResolutionAreRefused() {
        #expect(throws: SensorError.self) {
            try EvdevMotionAxes.make(accelResolution: [16384, 0, 16384], accelFuzz: [0, 0, 0], gyroResolution: nil, gyroFuzz: []).get()
        }
        #expect(throws: SensorError.self) {
            try EvdevMotionAxes.make(accelResolution: [1, 1, 1], accelFuzz: [0, 0, 0], gyroResolution: [16, -16, 16], gyroFuzz: [0, 0, 0]).get()
        }
        let accelOnly = try? EvdevMotionAxes.make(accelResolution: [1, 1, 1], accelFuzz: [0, 0, 0], gyroResolution: nil, gyroFuzz: []).get()
        #expect(accelOnly?.rate(1, 2, 3) == nil && accelOnly?.gyroQuantum == 0)
    }

    @Test func theDecksFrameIsAProperRotationOfItsOwn() {
        let frame = Self.deckFrame
        #expect(frame.source == .device)
        #expect(frame.isConsistent(tolerance: 1e-12))
        #expect(abs(frame.gyro.determinant - 1) < 1e-12 && abs(frame.accel.determinant + 1) < 1e-12)
    }

    /// The Deck's IMU reports specific force in its screen axes: face up it measures +1 g on z.
    /// The daemon's device frame wants the direction of gravity (docs/frames.md): (0, 0, −g).
    @Test func gravityComesOutInTheScreenFrame() {
        let frame = Self.deckFrame
        let faceUp = Self.sample(report: [0, 0, 16384, 0, 0, 0], frame: frame).accel
        #expect((faceUp - Vector3(0, 0, -Self.g)).length < 1e-9, "\(faceUp)")
        let upright = Self.sample(report: [0, 16384, 0, 0, 0, 0], frame: frame).accel
        #expect((upright - Vector3(0, -Self.g, 0)).length < 1e-9, "\(upright)")
        let rightEdgeDown = Self.sample(report: [16384, 0, 0, 0, 0, 0], frame: frame).accel
        #expect((rightEdgeDown - Vector3(-Self.g, 0, 0)).length < 1e-9, "\(rightEdgeDown)")
    }

    /// A turn about the screen's own axes comes out about the same axes, with the same sign
    /// (right-handed): the offset signs of docs/frames.md follow as for IIO devices.
    @Test func ratesComeOutAboutTheScreenAxes() {
        let frame = Self.deckFrame
        for (axis, expected) in [(3, Vector3(1, 0, 0)), (4, Vector3(0, 1, 0)), (5, Vector3(0, 0, 1))] {
            var report: [Int32] = [0, 0, 16384, 0, 0, 0]
            report[axis] = 16 * 57   // 57 °/s ≈ 1 rad/s
            let w = Self.sample(report: report, frame: frame).gyro
            #expect((w - expected * (57 * Double.pi / 180)).length < 1e-9, "axis \(axis): \(w)")
        }
    }

    @Test func hwdbAndConfigOverrideTheKnownAxes() {
        // hwdb's rule (x and y rows, direction of gravity): the identity swaps nothing.
        let hwdb = EvdevKnownDevice.frame(known: .steamDeck, hwdb: "1, 0, 0; 0, 1, 0; 0, 0, 1", accelOverride: nil, gyroOverride: nil, logger: nil)
        #expect(hwdb.source == .hwdb && hwdb.accel.rows.1 == Vector3(0, 1, 0))
        // A matrix that does not parse is skipped: the known axes again.
        #expect(EvdevKnownDevice.frame(known: .steamDeck, hwdb: "garbage", accelOverride: nil, gyroOverride: nil, logger: nil).source == .device)
        let config = EvdevKnownDevice.frame(known: .steamDeck, hwdb: "1, 0, 0; 0, 1, 0; 0, 0, 1",
                                            accelOverride: MountMatrix([0, 1, 0, 1, 0, 0, 0, 0, 1]), gyroOverride: nil, logger: nil)
        #expect(config.source == .config && config.accel == MountMatrix([0, 1, 0, 1, 0, 0, 0, 0, 1]))
        // An unknown device: the ABI's own axes (specific force, right-handed), by the kernel rule.
        let unknown = EvdevKnownDevice.frame(known: nil, hwdb: nil, accelOverride: nil, gyroOverride: nil, logger: nil)
        #expect(unknown.source == .kernel && unknown.accel == MountMatrix([-1, 0, 0, 0, -1, 0, 0, 0, -1]) && unknown.gyro == .identity)
        #expect(EvdevKnownDevice.lookup(vendor: 0x28de, product: 0x1205) == .steamDeck)
        #expect(EvdevKnownDevice.lookup(vendor: 0x28de, product: 0x1102) == nil)
    }

    @Test func timestampsUnwrapAcrossTheWrapKeepingTheirSpacing() {
        var clock = MotionTimestamps()
        // Start 20 reports before the 32-bit counter wraps; reports delivered 1 ms after each stamp.
        var count = UInt32.max - 20 * 4000 + 1
        let origin: Int64 = 5_000_000_000
        var times: [Int64] = []
        for i in 0..<60 {
            let report = origin + Int64(i) * 4_000_000 + 1_000_000 + Int64(i % 3) * 300_000   // delivery jitter
            times.append(clock.time(count: count, report: report))
            count &+= 4000
        }
        let spacing = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(spacing.allSatisfy { $0 == 4_000_000 }, "\(spacing)")
        #expect(clock.reanchors == 0)
        #expect(times[0] == origin + 1_000_000)
    }

    @Test func aSampleTimeIsNeverAfterItsReportNorFarBeforeIt() {
        var clock = MotionTimestamps()
        var count: UInt32 = 0
        var last: Int64 = 0
        // The device's counter runs 10 % fast, then 10 % slow against the reports.
        for i in 0..<400 {
            let report = 1_000_000_000 + Int64(i) * 4_000_000
            count &+= i < 200 ? 4400 : 3600
            let t = clock.time(count: count, report: report)
            #expect(t <= report && t >= report - MotionTimestamps.maximumLag && t > last, "report \(i): \(t) vs \(report)")
            last = t
        }
        #expect(clock.reanchors > 0)
        // A counter that jumps back (a reset) is followed at once.
        let t = clock.time(count: 7, report: 3_000_000_000)
        #expect(t == 3_000_000_000)
        // Without a counter the report's time is the sample's, still increasing.
        #expect(clock.time(count: nil, report: 3_000_000_000) == 3_000_000_001)
    }

    @Test func anOverrunForgetsTheCounter() {
        var clock = MotionTimestamps()
        _ = clock.time(count: 1000, report: 1_000_000_000)
        clock.restart()
        // A counter far on after lost reports anchors again at the report.
        #expect(clock.time(count: 900_000_000, report: 1_200_000_000) == 1_200_000_000)
        #expect(clock.time(count: 900_004_000, report: 1_204_500_000) == 1_204_000_000)
    }

    @Test func candidatesComeFromSysfsBitmaps() throws {
        let tree = try #require(SysfsTree(prefix: "plx-evdev"))
        func node(_ name: String, properties: String, abs: String, title: String) {
            #expect(tree.put("\(name)/device/properties", properties))
            #expect(tree.put("\(name)/device/capabilities/abs", abs))
            #expect(tree.put("\(name)/device/name", title))
        }
        node("event12", properties: "40", abs: "3f", title: "Steam Deck Motion Sensors")
        node("event2", properties: "0", abs: "3", title: "a touchpad")
        node("event3", properties: "41", abs: "30000 0 7", title: "an accelerometer")
        node("event4", properties: "40", abs: "3", title: "two axes only")
        let found = EvdevMotionCandidate.present(root: tree.root)
        #expect(found == [
            EvdevMotionCandidate(node: "event3", name: "an accelerometer", hasGyroscope: false),
            EvdevMotionCandidate(node: "event12", name: "Steam Deck Motion Sensors", hasGyroscope: true),
        ])
        #expect(found.last?.path == "/dev/input/event12")
    }

    @Test func anInputNodesUeventNamesIt() {
        let event = Uevent(action: "add", devpath: "/devices/virtual/misc/uhid/0003:28DE:1205.0001/input/input9/event7", subsystem: "input")
        #expect(event.inputEventNode == "event7" && event.deviceID == nil)
        #expect(Uevent(action: "add", devpath: "/devices/virtual/misc/uhid/0003:28DE:1205.0001/input/input9", subsystem: "input").inputEventNode == nil)
    }

    @Test func stillnessStaysAboveTheQuantum() {
        let base = Stillness.Settings()
        #expect(base.coarsened(accelerometerQuantum: Self.deck.accelQuantum, gyroscopeQuantum: Self.deck.gyroQuantum) == base)
        let coarse = base.coarsened(accelerometerQuantum: 0.1, gyroscopeQuantum: .nan)
        #expect(abs(coarse.accelerometerTolerance - 0.4) < 1e-12 && coarse.gyroscopeTolerance == base.gyroscopeTolerance)
    }
}
