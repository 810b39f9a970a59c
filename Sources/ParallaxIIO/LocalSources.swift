import Logging

/// Which of this machine's motion devices `Source=auto` reads (docs/sensors.md "IIO or evdev"):
/// the kinds' devices ranked by what they offer, the first opened.
///
/// The rank: a device with accelerometer and gyroscope before one with an accelerometer alone,
/// and within each, the kinds in table order (IIO before evdev). Why IIO first: its drivers stamp
/// samples in the kernel, rest at the device (slower rates, a hub's sensitivity) and carry mount
/// matrices; an evdev motion device keeps reporting at its full rate. Why an evdev gyroscope over
/// an IIO accelerometer alone: the gyroscope is what makes a turn move the layers at once (tilt
/// alone lags and ignores turns about the vertical), and the Steam Deck's IMU, the most common
/// Linux gyroscope, exists only as evdev. Two devices are never fused: one IMU gives one clock and
/// one frame.
public struct LocalSources: Sendable {
    /// The kinds in order of preference among equals.
    public var kinds: [any SourceKind]

    public init(kinds: [any SourceKind]) {
        self.kinds = kinds
    }

    /// This machine's kinds, at their sysfs roots.
    public static let standard = LocalSources(kinds: [IIOSourceKind(), EvdevSourceKind()])

    /// `found` in order of preference (stable: equals keep the order they were found in).
    public static func ranked(_ found: [FoundSource]) -> [FoundSource] {
        found.enumerated().sorted { ($0.element.tier, $0.offset) < ($1.element.tier, $1.offset) }.map(\.element)
    }

    /// What would be read, best first (sysfs only, nothing opened).
    public func discover() -> [FoundSource] {
        Self.ranked(kinds.flatMap { $0.discover() })
    }

    /// Opens the best device found (on the capture thread). One that cannot be opened
    /// (permission, gone, no first data) leaves the next one with an accelerometer to be read
    /// instead; when none opens, the first one's error is what the daemon reports.
    public func open(settings: IIOSettings, logger: Logger) throws(SensorError) -> any SensorDriver {
        let found = discover()
        guard let best = found.first else {
            throw SensorError(.noSensors, "no motion device (looked for \(kinds.map(\.name).joined(separator: ", ")))")
        }
        let others = found.dropFirst().filter(\.hasAccelerometer)
        if !others.isEmpty {
            logger.info("\(best.name) preferred over \(others.map(\.name).joined(separator: ", "))")
        }
        var firstError: SensorError?
        for (index, candidate) in ([best] + others).enumerated() {
            do {
                return try candidate.open(settings, logger)
            } catch {
                firstError = firstError ?? error
                if index < others.count {
                    logger.notice("\(error.message): reading \(others[index].name) instead")
                }
            }
        }
        throw firstError ?? SensorError(.noSensors, "no motion device")
    }
}
