import ParallaxMotion

/// A HID sensor hub's change sensitivity: `in_accel_hysteresis`, `in_anglvel_hysteresis`
/// (hid-sensor-accel-3d, hid-sensor-gyro-3d). The hub sends no input report while a value has
/// changed by less than it since the last report (0: a report every interval), so a hub given a
/// sensitivity the fusion can ignore at rest stays silent while the device lies still and
/// speaks at the first real motion (docs/power.md "Rest at the hub").
///
/// Which unit the kernel takes is not the IIO processed unit for sure: it writes the hub's
/// sensitivity feature applying only that feature's own unit exponent
/// (hid_sensor_write_raw_hyst_value → convert_to_vtf_format), so the number is in the hub's
/// unit for the field, which the HID sensor usage tables give as g and °/s, while the IIO
/// values are m/s² and rad/s. The values below are chosen to be safe under either reading.
enum HubRest {
    /// At-rest sensitivity of an accelerometer: Stillness's accelerometer tolerance (0.15 m/s²:
    /// a change below it does not end a rest anyway) in g, 0.0153. Read as g it is that
    /// tolerance; read as m/s² it is smaller still, so the hub reports more, never less, than the
    /// rest needs. (A still sensor's noise, 0.01–0.03 m/s², stays under it in the first reading.)
    static let accelerometerHysteresis = min(Stillness.Settings.defaultAccelerometerTolerance,
                                             Stillness.Settings.defaultAccelerometerTolerance / standardGravity)
    /// At-rest sensitivity of a gyroscope: Stillness's gyroscope tolerance, 0.05 rad/s (2.9 °/s).
    /// Read as rad/s it is that tolerance; read as °/s it is smaller still (the hub reports more).
    static let gyroscopeHysteresis = min(Stillness.Settings.defaultGyroscopeTolerance,
                                         Stillness.Settings.defaultGyroscopeTolerance * 180 / .pi)
    /// m/s² per g (the HID unit of acceleration).
    static let standardGravity = 9.80665

    /// The sensitivity to set at rest for a sensor of `kind` whose hub had `atOpen`: never
    /// below what the hub had (a hub already less sensitive is left so).
    static func restHysteresis(kind: SensorKind, atOpen: Double) -> Double {
        let wanted = kind == .accelerometer ? accelerometerHysteresis : gyroscopeHysteresis
        return atOpen.isFinite ? max(atOpen, wanted) : wanted
    }

    /// The report rate at rest (Hz): the request's rate, never above the rate now. With the
    /// sensitivity raised the hub reports nothing while still; the slow interval bounds how
    /// often it may speak while something slowly drifts just past the sensitivity.
    static func restRate(request: RestRequest, active: Double) -> Double {
        min(request.rate, active)
    }
}

/// Where a device's hysteresis attributes are (one per sensor type: libiio shows
/// `in_accel_hysteresis` as a `hysteresis` attribute of each accelerometer channel) and what
/// they held when the device was opened.
struct HubSensitivity {
    struct Place {
        let kind: SensorKind
        let channel: IIOChannelHandle
        /// The value at open, restored when the device moves.
        let atOpen: Double
    }

    let places: [Place]

    /// The hysteresis of each of `types` (the first channel of each sensor type the device
    /// captures); nil when the device has none (it is no HID hub).
    init?(types: [(SensorKind, IIOChannelHandle)]) {
        places = types.compactMap { kind, channel in
            guard channel.hasAttribute("hysteresis"),
                  let text = try? channel.read("hysteresis").get(),
                  let value = DecimalNumber.parseDouble(text), value >= 0 else { return nil }
            return Place(kind: kind, channel: channel, atOpen: value)
        }
        if places.isEmpty { return nil }
    }

    /// Sets each place to its rest sensitivity (`rest`) or back to its value at open. False
    /// when any write was refused.
    func set(rest: Bool) -> Bool {
        var ok = true
        for place in places {
            let value = rest ? HubRest.restHysteresis(kind: place.kind, atOpen: place.atOpen) : place.atOpen
            if !place.channel.write("hysteresis", Self.text(value)) { ok = false }
        }
        return ok
    }

    /// The values at rest, for the log ("accel 0.015, anglvel 0.05").
    var restDescription: String {
        places.map { "\($0.kind == .accelerometer ? "accel" : "anglvel") \(Self.text(HubRest.restHysteresis(kind: $0.kind, atOpen: $0.atOpen)))" }
            .joined(separator: ", ")
    }

    /// A value as sysfs takes it (IIO_VAL_INT_PLUS_MICRO: at most six decimals).
    static func text(_ value: Double) -> String {
        let micro = Int64((value * 1e6).rounded())
        let whole = micro / 1_000_000
        let fraction = String(micro % 1_000_000)
        return "\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
