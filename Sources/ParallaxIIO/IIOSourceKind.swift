import Logging

/// This machine's IIO devices (docs/sensors.md "Decision rule"): every accelerometer and gyroscope
/// IIODiscovery chooses among, opened buffered or polled by `IIODriverSelection`.
public struct IIOSourceKind: SourceKind {
    public static let sysfsRoot = "/sys/bus/iio/devices"

    public var root: String

    public init(root: String = sysfsRoot) {
        self.root = root
    }

    public var name: String { "IIO" }

    /// One entry for all of them, and one even when sysfs shows nothing: the open looks again
    /// through libiio and says what is missing (the daemon's "none" state), and a device may
    /// appear between the two looks.
    public func discover() -> [FoundSource] {
        var accel = false
        var gyro = false
        for device in SysfsText.list(root) where device.hasPrefix("iio:device") {
            func has(_ type: String) -> Bool {
                ["in_\(type)_x_raw", "in_\(type)_x_input", "scan_elements/in_\(type)_x_en"]
                    .contains { SysfsText.exists("\(root)/\(device)/\($0)") }
            }
            accel = accel || has("accel")
            gyro = gyro || has("anglvel")
        }
        let offered = accel && gyro ? "accelerometer and gyroscope" : accel ? "accelerometer" : gyro ? "gyroscope" : "devices"
        return [FoundSource(name: "IIO \(offered)", hasAccelerometer: accel, hasGyroscope: gyro) {
            (settings, logger) throws(SensorError) -> any SensorDriver in
            var local = settings
            local.uri = "local:"
            return try IIODriverSelection.open(settings: local, logger: logger)
        }]
    }
}
