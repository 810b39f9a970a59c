import Logging

/// Which of this machine's motion devices `Source=auto` reads (docs/sensors.md "IIO or evdev"):
/// IIO devices first, an evdev motion device (INPUT_PROP_ACCELEROMETER) where IIO has no
/// gyroscope.
///
/// Why IIO first: its drivers stamp samples in the kernel, rest at the device (slower rates, a
/// hub's sensitivity), and carry mount matrices; an evdev motion device keeps reporting at its
/// full rate. Why an evdev gyroscope over an IIO accelerometer alone: the gyroscope is what makes
/// a turn move the layers at once (tilt alone lags and ignores turns about the vertical), and the
/// Steam Deck's IMU, the most common Linux gyroscope, exists only as evdev. Two devices are never
/// fused: one IMU gives one clock and one frame.
public enum LocalSensorSelection {
    public enum Choice: Sendable, Equatable {
        case iio
        case evdev(EvdevMotionCandidate)
    }

    public static let iioRoot = "/sys/bus/iio/devices"

    /// The decision from what exists: IIO accelerometer and gyroscope first, then an evdev device
    /// with a gyroscope, then an IIO accelerometer alone, then an evdev accelerometer alone, else
    /// IIO (which says that nothing is there).
    public static func choose(iioAccel: Bool, iioGyro: Bool, evdev: [EvdevMotionCandidate]) -> Choice {
        if iioAccel && iioGyro { return .iio }
        if let imu = evdev.first(where: \.hasGyroscope) { return .evdev(imu) }
        if iioAccel { return .iio }
        if let accel = evdev.first { return .evdev(accel) }
        return .iio
    }

    /// Opens the chosen device (on the capture thread). An evdev device that cannot be opened
    /// (permission, gone) leaves an IIO accelerometer to be read instead, if there is one.
    public static func open(settings: IIOSettings, logger: Logger) throws(SensorError) -> any SensorDriver {
        let iio = iioSensors()
        let evdev = EvdevMotionCandidate.present()
        switch choose(iioAccel: iio.accel, iioGyro: iio.gyro, evdev: evdev) {
        case .iio:
            if !evdev.isEmpty {
                logger.info("IIO accelerometer and gyroscope preferred over \(evdev.map { "\($0.path) (\($0.name))" }.joined(separator: ", "))")
            }
            return try IIODriverSelection.open(settings: settings, logger: logger)
        case .evdev(let candidate):
            do {
                return try EvdevMotionDriver(candidate: candidate, settings: settings, logger: logger)
            } catch {
                guard iio.accel else { throw error }
                logger.notice("\(error.message): reading the IIO accelerometer instead")
                return try IIODriverSelection.open(settings: settings, logger: logger)
            }
        }
    }

    /// Whether IIO devices with accelerometer and gyroscope channels exist (sysfs, not opened).
    static func iioSensors(root: String = iioRoot) -> (accel: Bool, gyro: Bool) {
        var found = (accel: false, gyro: false)
        for device in SysfsText.list(root) where device.hasPrefix("iio:device") {
            func has(_ type: String) -> Bool {
                ["in_\(type)_x_raw", "in_\(type)_x_input", "scan_elements/in_\(type)_x_en"]
                    .contains { SysfsText.exists("\(root)/\(device)/\($0)") }
            }
            found.accel = found.accel || has("accel")
            found.gyro = found.gyro || has("anglvel")
        }
        return found
    }
}
