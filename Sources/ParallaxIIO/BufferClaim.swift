/// A device whose kernel buffer another program reads, so that buffered capture leaves it alone
/// (docs/decisions.md "Beside iio-sensor-proxy").
///
/// Why: a kernel buffer has one reader at a time. iio-sensor-proxy (the desktop's screen
/// rotation) sets up an accelerometer's buffer when it starts and opens, reads and closes
/// `/dev/iio:deviceN` every 700 ms while a client claims the sensor (measured with Debian's 3.0
/// on the real HID drivers, docs/lab.md). Taking that buffer over stops its orientation for as
/// long as parallaxd holds it and for good after (the buffer is left disabled); holding it
/// first makes its opens fail with EBUSY. Its udev rule marks every accelerometer it would read
/// that way with `IIO_SENSOR_PROXY_TYPE` containing `iio-buffer-accel`, whatever the start
/// order, so that mark is what parallaxd goes by, together with whether iio-sensor-proxy runs
/// (its name on the system bus): a mark left by an installed but stopped or masked service
/// claims nothing, and the daemon reopens when the service comes or goes (SensorProxyPresence).
public enum BufferClaim {
    /// The udev property iio-sensor-proxy's rule (80-iio-sensor-proxy.rules) sets.
    public static let sensorProxyProperty = "IIO_SENSOR_PROXY_TYPE"
    /// The type among its space-separated values that means "read through the buffer".
    public static let sensorProxyBufferedType = "iio-buffer-accel"

    /// What `claim`'s reason says, for those who look for it in a sensor's capture.
    public static let leftToSensorProxy = "is left to iio-sensor-proxy"

    /// Whether the local device `deviceID` ("iio:device0") carries iio-sensor-proxy's mark for
    /// buffered reading (reads udev's database: a small file on /run, no waiting on a device).
    public static func isMarked(deviceID: String) -> Bool {
        udevProperty(device: deviceID, sensorProxyProperty)?.split(separator: " ").contains(Substring(sensorProxyBufferedType)) == true
    }

    /// Why the buffer of the accelerometer `deviceID` (`deviceName`) is not parallaxd's to take,
    /// given the value of its `IIO_SENSOR_PROXY_TYPE` property and whether iio-sensor-proxy runs
    /// (nil: not known, no system bus; the mark alone decides then); nil when nothing claims it.
    public static func claim(deviceID: String, deviceName: String, sensorProxyType: String?,
                             sensorProxyRunning: Bool? = nil) -> String? {
        guard sensorProxyRunning != false, let types = sensorProxyType,
              types.split(separator: " ").contains(Substring(sensorProxyBufferedType)) else { return nil }
        return "the buffer of \(deviceID) (\(deviceName)) \(leftToSensorProxy) (screen rotation reads it; "
            + "its udev rule set \(sensorProxyProperty)=\(types))"
    }
}
