import Logging

/// Where a device's sampling rate is set, as drivers expose it: one device-wide
/// `sampling_frequency` (with `sampling_frequency_available`), or one per sensor type
/// (`in_accel_sampling_frequency`, `in_anglvel_sampling_frequency`: the BMI160 and HID sensor
/// drivers), which libiio shows as a `sampling_frequency` attribute of each channel of the type.
/// A buffer that scans both types scans at the faster of the two.
struct SamplingRate {
    private enum Place {
        case device(IIODeviceHandle)
        case channel(IIOChannelHandle)

        func read(_ attribute: String) -> String? {
            switch self {
            case .device(let d): try? d.read(attribute).get()
            case .channel(let c): try? c.read(attribute).get()
            }
        }

        func write(_ attribute: String, _ value: String) -> Bool {
            switch self {
            case .device(let d): d.write(attribute, value)
            case .channel(let c): c.write(attribute, value)
            }
        }
    }

    private let places: [Place]

    /// The device's rate attribute, or one per type from a channel of each of `types` (the first
    /// accelerometer axis, the first gyroscope axis); nil when it has none.
    init?(device: IIODeviceHandle, types: [IIOChannelHandle]) {
        if device.hasAttribute("sampling_frequency") {
            places = [.device(device)]
        } else {
            places = types.filter { $0.hasAttribute("sampling_frequency") }.map { .channel($0) }
            if places.isEmpty { return nil }
        }
    }

    /// Each place's rate now (Hz), in order; nil where it cannot be read.
    var current: [Double?] { places.map { $0.read("sampling_frequency").flatMap(DecimalNumber.parseDouble) } }

    /// Each place's offered rates (Hz), sorted; empty where none are listed.
    var available: [[Double]] {
        places.map { place in
            (place.read("sampling_frequency_available") ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\0" })
                .compactMap { DecimalNumber.parseDouble($0) }.sorted()
        }
    }

    /// Sets each place's rate (Hz, in order; nil: leave it). False when any write was refused.
    func set(_ rates: [Double?]) -> Bool {
        var ok = true
        for (place, rate) in zip(places, rates) {
            guard let rate else { continue }
            if !place.write("sampling_frequency", FixedRate(rate).description) { ok = false }
        }
        return ok
    }
}

/// A rate as sysfs takes it and people read it: "6.25", "200".
struct FixedRate: CustomStringConvertible {
    let hz: Double
    init(_ hz: Double) { self.hz = hz }
    var description: String {
        hz == hz.rounded() ? String(Int(hz)) : String(hz)
    }
}
