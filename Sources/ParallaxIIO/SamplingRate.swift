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
    var current: [Double?] { places.map { $0.read("sampling_frequency").flatMap(Self.parse) } }

    /// Each place's offered rates (Hz), sorted; empty where none are listed.
    var available: [[Double]] {
        places.map { place in
            (place.read("sampling_frequency_available") ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\0" })
                .compactMap(Self.parse).sorted()
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

extension SamplingRate {
    /// Sampling rates believed from sysfs (Hz). Above: no IIO motion sensor samples faster than
    /// tens of kHz. Below: slower than a sample every 1000 s is no rate to fuse motion at, and it
    /// keeps every period (ns) well inside Int64. A driver's "0", "-5" or "1e300" is no rate.
    static let plausible: ClosedRange<Double> = 0.001...100_000

    /// A rate attribute's text as a plausible rate (Hz), nil otherwise.
    static func parse(_ text: Substring) -> Double? {
        DecimalNumber.parseDouble(text).flatMap { plausible.contains($0) ? $0 : nil }
    }

    static func parse(_ text: String) -> Double? { parse(text[...]) }
}

/// A rate as sysfs takes it and people read it: "6.25", "200".
struct FixedRate: CustomStringConvertible {
    let hz: Double
    init(_ hz: Double) { self.hz = hz }
    var description: String {
        // Int(exactly:) is nil for whole numbers beyond Int (they print as a Double then).
        (hz == hz.rounded() ? Int(exactly: hz).map(String.init) : nil) ?? String(hz)
    }
}
