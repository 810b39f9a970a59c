import Logging

/// Input devices with INPUT_PROP_ACCELEROMETER (docs/sensors.md "evdev motion devices"): the
/// Steam Deck's "Steam Deck Motion Sensors", game controllers' IMUs. Read by `EvdevMotionDriver`.
public struct EvdevSourceKind: SourceKind {
    public var root: String

    public init(root: String = EvdevMotionCandidate.sysfsRoot) {
        self.root = root
    }

    public var name: String { "evdev" }

    /// Each motion node, in the kernel's numbering order.
    public func discover() -> [FoundSource] {
        EvdevMotionCandidate.present(root: root).map { candidate in
            FoundSource(name: "\(candidate.path) (\(candidate.name))", hasAccelerometer: true,
                        hasGyroscope: candidate.hasGyroscope) { (settings, logger) throws(SensorError) -> any SensorDriver in
                try EvdevMotionDriver(candidate: candidate, settings: settings, logger: logger)
            }
        }
    }
}
