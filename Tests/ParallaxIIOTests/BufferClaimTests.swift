import Testing
@testable import ParallaxIIO

/// Buffered capture leaves an accelerometer whose buffer iio-sensor-proxy reads (its udev rule's
/// mark, docs/decisions.md "Beside iio-sensor-proxy").
struct BufferClaimTests {
    @Test(arguments: ["iio-buffer-accel", "iio-poll-accel iio-buffer-accel", "iio-buffer-accel iio-buffer-compass"])
    func iioSensorProxysBufferedAccelerometerIsLeftToIt(types: String) throws {
        let claim = try #require(BufferClaim.claim(deviceID: "iio:device0", deviceName: "accel_3d", sensorProxyType: types))
        #expect(claim.contains("iio:device0 (accel_3d)"))
        #expect(claim.contains("iio-sensor-proxy"))
        #expect(claim.contains("IIO_SENSOR_PROXY_TYPE=\(types)"))
    }

    // Polled by iio-sensor-proxy (raw reads beside any buffer), not its type, or no rule at all.
    @Test(arguments: [nil, "", "iio-poll-accel", "iio-buffer-accelerometer", "hwmon-als iio-poll-als"] as [String?])
    func otherwiseTheBufferIsFree(types: String?) {
        #expect(BufferClaim.claim(deviceID: "iio:device0", deviceName: "accel_3d", sensorProxyType: types) == nil)
    }
}
