import Glibc
import Logging
@testable import ParallaxIIO
import ParallaxMotion
import Synchronization
import Testing

/// `Source=auto`'s table of kinds (LocalSources): the rank, the kinds' sysfs discovery and the
/// fallback when the best device cannot be opened.
struct LocalSourcesTests {
    /// A kind whose devices are given, each opening to a driver named after it or failing.
    struct GivenKind: SourceKind {
        var name: String
        var devices: [(name: String, gyro: Bool, accel: Bool, fails: Bool)]
        let opened: OpenLog

        func discover() -> [FoundSource] {
            devices.map { device in
                FoundSource(name: device.name, hasAccelerometer: device.accel, hasGyroscope: device.gyro) {
                    (_, _) throws(SensorError) -> any SensorDriver in
                    opened.append(device.name)
                    if device.fails { throw SensorError(.lost, "\(device.name) refused") }
                    return NamedDriver(name: device.name)
                }
            }
        }
    }

    /// Which devices were opened, in order (opens run wherever the caller runs them).
    final class OpenLog: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    final class NamedDriver: SensorDriver {
        let name: String
        init(name: String) { self.name = name }
        var sensors: [SensorDescription] { [SensorDescription(kind: .accelerometer, device: name, location: name, rate: 100)] }
        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? { nil }
        func close() {}
    }

    static let logger = Logger(label: "test")

    func names(_ kinds: [any SourceKind]) -> [String] {
        LocalSources(kinds: kinds).discover().map(\.name)
    }

    @Test func anIMUComesFirstThenAnAccelerometerAloneEachInTableOrder() {
        let log = OpenLog()
        let iio = { (accel: Bool, gyro: Bool) in
            GivenKind(name: "IIO", devices: [("iio", gyro, accel, false)], opened: log)
        }
        let evdev = GivenKind(name: "evdev", devices: [("pad", false, true, false), ("deck", true, true, false)], opened: log)
        // IIO complete: it, then the evdev IMU, then the accelerometer alone.
        #expect(names([iio(true, true), evdev]) == ["iio", "deck", "pad"])
        // An evdev gyroscope over an IIO accelerometer alone; among accelerometers alone IIO first.
        #expect(names([iio(true, false), evdev]) == ["deck", "iio", "pad"])
        // Nothing with an accelerometer: IIO still answers (its open says what is missing).
        #expect(names([iio(false, false), GivenKind(name: "evdev", devices: [], opened: log)]) == ["iio"])
        #expect(names([iio(false, false), GivenKind(name: "evdev", devices: [("pad", false, true, false)], opened: log)]) == ["pad", "iio"])
    }

    @Test func theBestDeviceIsOpenedAndAFailedOneLeavesTheNext() throws {
        let log = OpenLog()
        let kinds: [any SourceKind] = [
            GivenKind(name: "IIO", devices: [("iio", false, true, false)], opened: log),
            GivenKind(name: "evdev", devices: [("deck", true, true, true)], opened: log),
        ]
        let driver = try LocalSources(kinds: kinds).open(settings: IIOSettings(), logger: Self.logger)
        #expect(driver.sensors.first?.device == "iio")
        #expect(log.all == ["deck", "iio"])
    }

    @Test func whenNothingOpensTheBestOnesErrorIsReported() {
        let log = OpenLog()
        let kinds: [any SourceKind] = [
            GivenKind(name: "IIO", devices: [("iio", false, false, true)], opened: log),
            GivenKind(name: "evdev", devices: [], opened: log),
        ]
        #expect(throws: SensorError(.lost, "iio refused")) {
            try LocalSources(kinds: kinds).open(settings: IIOSettings(), logger: Self.logger)
        }
        #expect(log.all == ["iio"])
        // With no kind at all the error says where it looked.
        #expect(throws: SensorError(.noSensors, "no motion device (looked for )")) {
            try LocalSources(kinds: []).open(settings: IIOSettings(), logger: Self.logger)
        }
    }

    @Test func theKindsDiscoverFromSysfs() throws {
        let tree = try #require(SysfsTree(prefix: "plx-kinds"))
        func put(_ path: String, _ text: String) { #expect(tree.put(path, text)) }
        // An IIO accelerometer (buffered only) and an IIO device that is neither.
        put("iio/iio:device0/scan_elements/in_accel_x_en", "0")
        put("iio/iio:device1/in_illuminance_raw", "12")
        // The Deck's motion node and a touchpad.
        put("input/event7/device/properties", "40")
        put("input/event7/device/capabilities/abs", "3f")
        put("input/event7/device/name", "Steam Deck Motion Sensors")
        put("input/event2/device/properties", "0")
        put("input/event2/device/capabilities/abs", "3")
        let table = LocalSources(kinds: [IIOSourceKind(root: "\(tree.root)/iio"), EvdevSourceKind(root: "\(tree.root)/input")])
        let found = table.discover()
        #expect(found.map(\.name) == ["/dev/input/event7 (Steam Deck Motion Sensors)", "IIO accelerometer"])
        #expect(found.map(\.hasGyroscope) == [true, false])
        // A gyroscope beside it makes IIO complete, and first.
        put("iio/iio:device2/in_anglvel_x_raw", "0")
        #expect(table.discover().map(\.name) == ["IIO accelerometer and gyroscope", "/dev/input/event7 (Steam Deck Motion Sensors)"])
    }
}
