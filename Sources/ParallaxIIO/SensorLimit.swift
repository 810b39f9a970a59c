/// Something the daemon needed of a device and was refused, worded by what the user loses
/// (docs/sensors.md "What the service may write"). Shown in `status` (`sensors[].limits`),
/// `parallaxctl status` and, once, as a journal warning.
///
/// Why words of consequence: "cannot set its hysteresis" tells an administrator nothing about
/// what breaks; "the hub cannot rest: reading at full rate while still" says what it costs, and
/// the attribute and errno after it say what to grant.
public struct SensorLimit: Sendable, Equatable, CustomStringConvertible {
    /// What is lost ("the hub cannot rest: reading at full rate while still").
    public var consequence: String
    /// The sysfs attribute that was refused ("in_anglvel_hysteresis").
    public var attribute: String
    /// Why, in libiio's words ("Permission denied").
    public var reason: String
    /// The sensor it concerns; nil for the whole device (its clock, its buffer).
    public var kind: SensorKind?

    public init(consequence: String, attribute: String, reason: String, kind: SensorKind? = nil) {
        self.consequence = consequence
        self.attribute = attribute
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "\(consequence) (\(attribute): \(reason))" }

    /// A HID hub whose change sensitivity cannot be written: it keeps reporting every interval
    /// while the device lies still, and the daemon reads all of it.
    static func hubCannotRest(kind: SensorKind, error: IIOAttributeError) -> SensorLimit {
        SensorLimit(consequence: "the hub cannot rest: reading at full rate while still",
                    attribute: HubSensitivity.attributeName(kind), reason: error.description, kind: kind)
    }

    /// A timestamp clock left at realtime: scans keep only their spacing, anchored at the read
    /// time (ScanTimes), so a sample's time is when it was read, not when it was measured.
    static func noKernelTimestamps(clock: String, error: IIOAttributeError) -> SensorLimit {
        SensorLimit(consequence: "no kernel timestamps: sample times from the read time (the clock stays \(clock))",
                    attribute: "current_timestamp_clock", reason: error.description)
    }
}
