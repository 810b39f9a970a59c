import Logging

/// Finds accelerometer and gyroscope channels among a context's devices.
///
/// An accelerometer in the display (lid) is preferred over one in the base (see `location(of:)`).
/// Among equally placed ones, both on one device (a combined IMU such as bmi160) is preferred: one
/// rate, one clock. Otherwise the first device with all three accelerometer axes and the first with
/// all three gyroscope axes (HID sensor hubs expose `accel_3d` and `gyro_3d` as separate devices).
enum IIODiscovery {
    struct Channels {
        let device: IIODeviceHandle
        /// x, y, z in that order.
        let axes: [IIOChannelHandle]
    }

    /// `choice`: with more than one accelerometer, which one drives the offset and which are
    /// ignored, with their locations (shown in `status`); nil with one.
    static func find(in devices: [IIODeviceHandle], isLocal: Bool = false,
                     logger: Logger? = nil) -> (accel: Channels?, gyro: Channels?, choice: String?) {
        let accels = preferDisplay(devices.compactMap { axes(of: $0, type: "accel") }, isLocal: isLocal, logger: logger)
        let gyros = devices.compactMap { axes(of: $0, type: "anglvel") }
        // Among the accelerometers at the best location, a combined IMU wins.
        let best = accels.first.map { location(of: $0.device, isLocal: isLocal) }
        var chosen = (accels.first, gyros.first)
        for a in accels where location(of: a.device, isLocal: isLocal) == best {
            if let g = gyros.first(where: { $0.device.id == a.device.id }) { chosen = (a, g); break }
        }
        return (chosen.0, chosen.1, chosen.0.flatMap { choice(of: $0, among: accels, isLocal: isLocal) })
    }

    /// "iio:device0 (accel-display, display) over iio:device1 (accel-base, base)": the chosen
    /// accelerometer and the ignored ones, each with its label (if any) and location.
    static func choice(of chosen: Channels, among accels: [Channels], isLocal: Bool) -> String? {
        guard accels.count > 1 else { return nil }
        func describe(_ c: Channels) -> String {
            let label = c.device.label.map { $0.filter { !$0.isWhitespace && $0 != "\0" } }.flatMap { $0.isEmpty ? nil : $0 }
            return "\(c.device.id) (\([label, "\(location(of: c.device, isLocal: isLocal))"].compactMap { $0 }.joined(separator: ", ")))"
        }
        let ignored = accels.filter { $0.device.id != chosen.device.id }.map(describe)
        return "\(describe(chosen)) over \(ignored.joined(separator: ", "))"
    }

    /// Where an accelerometer sits, in iio-sensor-proxy's convention: a convertible has one in the
    /// lid ("display") and one in the base, and only the display's tilts with the screen.
    enum Location: Int, Comparable {
        case display = 0, unknown = 1, base = 2
        static func < (a: Location, b: Location) -> Bool { a.rawValue < b.rawValue }
    }

    /// The udev property ACCEL_LOCATION, then the label ("accel-display", "accel-base"), then the
    /// `location` attribute ("lid", "display", "base").
    static func location(of device: IIODeviceHandle, isLocal: Bool) -> Location {
        let udev = isLocal ? udevProperty(device: device.id, "ACCEL_LOCATION") : nil
        let hints = [udev, device.label, try? device.read("location").get()]
        for hint in hints.compactMap({ $0?.lowercased().filter { !$0.isWhitespace && $0 != "\0" } }) where !hint.isEmpty {
            if hint == "display" || hint == "lid" || hint.hasSuffix("-display") { return .display }
            if hint == "base" || hint.hasSuffix("-base") { return .base }
        }
        return .unknown
    }

    /// Display accelerometers first, base ones last; discovery order otherwise (a stable sort).
    static func preferDisplay(_ accels: [Channels], isLocal: Bool, logger: Logger?) -> [Channels] {
        guard accels.count > 1 else { return accels }
        let ranked = accels.enumerated().map { (location(of: $0.element.device, isLocal: isLocal), $0.offset, $0.element) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        let choice = ranked[0]
        if choice.1 != 0 || choice.0 != .unknown {
            logger?.info("\(accels.count) accelerometers; preferring \(choice.2.device.id) (\(choice.2.device.name), location \(choice.0))")
        }
        return ranked.map { $0.2 }
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
    /// Returns the device's rate afterwards (Hz), or nil if it has no such attribute or no
    /// plausible rate (`SamplingRate.plausible`): a rate that reads as "0", "-5" or "1e300" is
    /// raised like a slow one when the device offers a rate, and is never used.
    static func ensureRate(_ device: IIODeviceHandle, atLeast: Double, wanted: Double, logger: Logger) -> Double? {
        guard device.hasAttribute("sampling_frequency"),
              let reading = try? device.read("sampling_frequency").get()
        else { return nil }
        let current = SamplingRate.parse(reading)
        if let current, current >= atLeast { return current }
        let shown = current.map { "\($0) Hz" } ?? "an unusable rate (\(reading.filter { !$0.isWhitespace && $0 != "\0" }.prefix(32)))"
        let available = ((try? device.read("sampling_frequency_available").get()) ?? "")
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap(SamplingRate.parse).sorted()
        guard let choice = available.first(where: { $0 >= wanted }) ?? available.last, choice > current ?? 0 else {
            logger.warning("\(device.id) (\(device.name)) samples at \(shown) and offers nothing faster")
            return current
        }
        let text = FixedRate(choice).description
        if device.write("sampling_frequency", text) {
            logger.notice("\(device.id) (\(device.name)) sampled at \(shown); raised to \(text) Hz")
            return choice
        }
        logger.warning("\(device.id) (\(device.name)) samples at \(shown) and could not be raised to \(text) Hz")
        return current
    }
}
