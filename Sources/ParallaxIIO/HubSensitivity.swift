import Glibc
import ParallaxMotion

/// A HID sensor hub's change sensitivity: `in_accel_hysteresis`, `in_anglvel_hysteresis`
/// (hid-sensor-accel-3d, hid-sensor-gyro-3d). The hub sends no input report while a value has
/// changed by less than it since the last report (0: a report every interval), so a hub given a
/// sensitivity the fusion can ignore at rest stays silent while the device lies still and
/// speaks at the first real motion (docs/power.md "Rest at the hub").
///
/// Its unit: the kernel reads and writes the hub's sensitivity feature applying only that
/// feature's unit exponent (hid_sensor_read_raw_hyst_value → convert_from_vtf_format), so the
/// number is in the hub's own unit for the field, not necessarily the IIO one. The hub's unit
/// shows in the channel's scale, which the kernel derives from it (hid_sensor_format_scale):
/// g → 9.80665 × 10ⁿ, m/s² → 10ⁿ, °/s → 0.0174533 × 10ⁿ, rad/s → 10ⁿ. `unit(scale:kind:)`
/// reads it back, and the rest sensitivity is Stillness's tolerance in that unit.
enum HubRest {
    /// m/s² per g, rad/s per °: the HID units the kernel converts from.
    static let standardGravity = 9.80665
    static let radiansPerDegree = Double.pi / 180

    /// The hub's unit for a sensor of `kind` whose IIO scale is `scale`, as SI units per hub
    /// unit: 9.80665 (g) or 1 (m/s²) for an accelerometer, π/180 (°/s) or 1 (rad/s) for a
    /// gyroscope. A scale that is none of the kernel's forms counts as SI.
    static func unit(scale: Double, kind: SensorKind) -> Double {
        let hubUnit = kind == .accelerometer ? standardGravity : radiansPerDegree
        guard scale.isFinite, scale > 0 else { return 1 }
        let exponent = log10(scale / hubUnit)
        return abs(exponent - exponent.rounded()) < 1e-4 ? hubUnit : 1
    }

    /// The sensitivity to set at rest for a sensor of `kind` (its hub unit `unit`, SI per hub
    /// unit) whose hub had `atOpen`: Stillness's tolerance (accelerometer 0.15 m/s², gyroscope
    /// 0.05 rad/s: a change below it does not end a rest anyway, and a still sensor's noise,
    /// 0.01–0.03 m/s² and 0.001–0.005 rad/s rms, stays under it), never below what the hub had
    /// (a hub already less sensitive is left so).
    static func restHysteresis(kind: SensorKind, unit: Double, atOpen: Double) -> Double {
        let tolerance = kind == .accelerometer
            ? Stillness.Settings.defaultAccelerometerTolerance : Stillness.Settings.defaultGyroscopeTolerance
        let wanted = tolerance / (unit.isFinite && unit > 0 ? unit : 1)
        return atOpen.isFinite ? max(atOpen, wanted) : wanted
    }

    /// Whether a report of a hub at rest (`sample`) is motion: a value changed by more than
    /// half of Stillness's tolerance since the last sample before the rest (`reference`). Why
    /// half: the hub reports only changes beyond the tolerance (in its own unit, rounded to its
    /// resolution), so a real report clears half of it with room to spare, while a report a hub
    /// might send for nothing (re-enabled, powered up) carries the still value, within noise.
    static func isMotion(_ sample: Sample, since reference: Sample?) -> Bool {
        guard let reference else { return true }
        func moved(_ now: Vector3?, _ before: Vector3?, _ tolerance: Double) -> Bool {
            guard let now, let before else { return false }
            let d = now - before
            return max(abs(d.x), abs(d.y), abs(d.z)) > tolerance / 2
        }
        return moved(sample.accel, reference.accel, Stillness.Settings.defaultAccelerometerTolerance)
            || moved(sample.gyro, reference.gyro, Stillness.Settings.defaultGyroscopeTolerance)
    }

    /// The report rate at rest (Hz): the request's rate, never above the rate now. With the
    /// sensitivity raised the hub reports nothing while still; the slow interval bounds how
    /// often it may speak while something slowly drifts just past the sensitivity.
    static func restRate(request: RestRequest, active: Double) -> Double {
        min(request.rate, active)
    }
}

/// Where a device's hysteresis attributes are (one per sensor type: libiio shows
/// `in_accel_hysteresis` as a `hysteresis` attribute of each accelerometer channel), what they
/// held when the device was opened, and what the hub took while moving.
struct HubSensitivity {
    struct Place {
        let kind: SensorKind
        let channel: IIOChannelHandle
        /// SI units per hub unit (HubRest.unit).
        let unit: Double
        /// The value at open (the hub's default, or what an earlier reader left).
        let atOpen: Double
        /// The value while moving: 0 (a report every interval) as written at open and read back;
        /// what the hub kept when it refused or clamped the write. Above 0, the hub's silence
        /// means "unchanged within this" (HID semantics), not a gap.
        let moving: Double

        var atRest: Double { HubRest.restHysteresis(kind: kind, unit: unit, atOpen: atOpen) }
    }

    let places: [Place]
    /// The first write the hub refused at open: the hub cannot rest (SensorLimit.hubCannotRest).
    let refused: SensorLimit?
    /// Every place took a write at open: the device may rest at the hub.
    var isWritable: Bool { refused == nil }

    /// The hysteresis of each of `types` (the first channel of each sensor type the device
    /// captures, with its IIO scale), each set to `movingValue` (0) at once; nil when the device
    /// has none (it is no HID hub).
    ///
    /// Why at open: a hub whose default sensitivity is not 0 would stay silent through a steady
    /// turn (the gyroscope's reading does not change), and writing now also tells whether the
    /// hub can rest before the daemon ever claims that it does.
    init?(types: [(kind: SensorKind, channel: IIOChannelHandle, scale: Double)]) {
        var refused: SensorLimit?
        places = types.compactMap { kind, channel, scale in
            guard channel.hasAttribute("hysteresis"),
                  let text = try? channel.read("hysteresis").get(),
                  let value = DecimalNumber.parseDouble(text), value >= 0 else { return nil }
            // Written even when it reads 0 already: the write is the test of whether it may be.
            var moving = value
            if let error = channel.set("hysteresis", Self.text(Self.movingValue)) {
                refused = refused ?? .hubCannotRest(kind: kind, error: error)
            } else {
                moving = (try? channel.read("hysteresis").get()).flatMap { DecimalNumber.parseDouble($0) }.map { max(0, $0) } ?? Self.movingValue
            }
            return Place(kind: kind, channel: channel, unit: HubRest.unit(scale: scale, kind: kind), atOpen: value, moving: moving)
        }
        self.refused = refused
        if places.isEmpty { return nil }
    }

    /// The sensitivity while moving: a report every interval.
    static let movingValue = 0.0

    /// The sysfs file of a sensor type's hysteresis, for messages.
    static func attributeName(_ kind: SensorKind) -> String {
        kind == .accelerometer ? "in_accel_hysteresis" : "in_anglvel_hysteresis"
    }

    /// Sets each place to its rest sensitivity (`rest`) or to its value while moving. The
    /// first refusal, worded by its consequence, or nil.
    func set(rest: Bool) -> SensorLimit? {
        var refused: SensorLimit?
        for place in places {
            let value = rest ? place.atRest : place.moving
            if let error = place.channel.set("hysteresis", Self.text(value)) {
                refused = refused ?? .hubCannotRest(kind: place.kind, error: error)
            }
        }
        return refused
    }

    /// Whether a place kept a sensitivity above 0 while moving (the hub refused or clamped the
    /// 0): its silence then means "unchanged", not a gap.
    var movingSilenceMeansUnchanged: Bool { places.contains { $0.moving > 0 } }

    /// The values at rest, for the log ("accel 0.015, anglvel 0.05").
    var restDescription: String {
        places.map { "\($0.kind == .accelerometer ? "accel" : "anglvel") \(Self.text($0.atRest))" }
            .joined(separator: ", ")
    }

    /// A value as sysfs takes it (IIO_VAL_INT_PLUS_MICRO: at most six decimals).
    /// Values beyond this (hub units) are written as it: a sensitivity read from sysfs as 1e300
    /// must not trap converting to micro-units, and no hub's field holds more.
    static let largestText = 1e12

    static func text(_ value: Double) -> String {
        let bounded = value.isFinite ? min(max(value, 0), largestText) : 0
        let micro = Int64((bounded * 1e6).rounded())
        let whole = micro / 1_000_000
        let fraction = String(micro % 1_000_000)
        return "\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
    }
}
