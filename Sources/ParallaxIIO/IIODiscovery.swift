import Logging

/// Finds accelerometer and gyroscope channels among a context's devices.
///
/// Both on one device (a combined IMU such as bmi160) is preferred: one rate, one clock. Otherwise
/// the first device with all three accelerometer axes and the first with all three gyroscope axes
/// (HID sensor hubs expose `accel_3d` and `gyro_3d` as separate devices).
enum IIODiscovery {
    struct Channels {
        let device: IIODeviceHandle
        /// x, y, z in that order.
        let axes: [IIOChannelHandle]
    }

    static func find(in devices: [IIODeviceHandle]) -> (accel: Channels?, gyro: Channels?) {
        let accels = devices.compactMap { axes(of: $0, type: "accel") }
        let gyros = devices.compactMap { axes(of: $0, type: "anglvel") }
        for a in accels {
            if let g = gyros.first(where: { $0.device.id == a.device.id }) { return (a, g) }
        }
        return (accels.first, gyros.first)
    }

    /// The x, y, z input channels of one type ("accel", "anglvel") that carry a value.
    static func axes(of device: IIODeviceHandle, type: String) -> Channels? {
        let channels = device.channels
        var found: [IIOChannelHandle] = []
        for axis in ["x", "y", "z"] {
            guard let channel = channels.first(where: {
                !$0.isOutput && $0.id == "\(type)_\(axis)" && ($0.hasAttribute("raw") || $0.hasAttribute("input"))
            }) else { return nil }
            found.append(channel)
        }
        return Channels(device: device, axes: found)
    }

    /// Makes sure the device samples at least `atLeast` Hz, choosing from
    /// `sampling_frequency_available` the smallest rate ≥ `wanted` (or the fastest there is).
    /// Returns the device's rate afterwards (Hz), or nil if it has no such attribute.
    static func ensureRate(_ device: IIODeviceHandle, atLeast: Double, wanted: Double, logger: Logger) -> Double? {
        guard device.hasAttribute("sampling_frequency"),
              let current = (try? device.read("sampling_frequency").get()).flatMap(SysfsNumber.parseDouble)
        else { return nil }
        guard current < atLeast else { return current }
        let available = ((try? device.read("sampling_frequency_available").get()) ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { SysfsNumber.parseDouble($0) }.sorted()
        guard let choice = available.first(where: { $0 >= wanted }) ?? available.last, choice > current else {
            logger.warning("\(device.id) (\(device.name)) samples at \(current) Hz and offers nothing faster")
            return current
        }
        let text = choice == choice.rounded() ? String(Int(choice)) : String(choice)
        if device.write("sampling_frequency", text) {
            logger.notice("\(device.id) (\(device.name)) sampled at \(current) Hz; raised to \(text) Hz")
            return choice
        }
        logger.warning("\(device.id) (\(device.name)) samples at \(current) Hz and could not be raised to \(text) Hz")
        return current
    }
}
