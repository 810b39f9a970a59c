import Logging

/// One kind of motion device `Source=auto` can read, like an entry of iio-sensor-proxy's
/// `drivers[]`: it finds its devices without opening them, and opens one.
///
/// Adding a kind of device means adding one type conforming to this, in a file of its own, and
/// one entry in `LocalSources.kinds`. Where it ranks beside the others follows from what its
/// devices offer (`LocalSources.ranked`), not from code of its own.
public protocol SourceKind: Sendable {
    /// For logs: "IIO", "evdev".
    var name: String { get }
    /// The devices of this kind present now, read from sysfs without opening anything (it runs
    /// at every open, on the capture thread). In the order the kind prefers them.
    func discover() -> [FoundSource]
}

/// A device a `SourceKind` found, with what it offers and how to open it.
public struct FoundSource: Sendable {
    /// For logs: "IIO accelerometer and gyroscope", "/dev/input/event7 (Steam Deck Motion Sensors)".
    public var name: String
    public var hasAccelerometer: Bool
    public var hasGyroscope: Bool
    /// Opens it; runs on the capture thread and may block (probes, the first data).
    public var open: @Sendable (IIOSettings, Logger) throws(SensorError) -> any SensorDriver

    public init(name: String, hasAccelerometer: Bool, hasGyroscope: Bool,
                open: @escaping @Sendable (IIOSettings, Logger) throws(SensorError) -> any SensorDriver) {
        self.name = name
        self.hasAccelerometer = hasAccelerometer
        self.hasGyroscope = hasGyroscope
        self.open = open
    }

    /// Preference tiers (lower first): accelerometer and gyroscope, an accelerometer alone, neither.
    var tier: Int { hasAccelerometer ? (hasGyroscope ? 0 : 1) : 2 }
}
