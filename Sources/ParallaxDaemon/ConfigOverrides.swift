import Logging
import ParallaxConfig
import ParallaxIIO

/// What the command line sets over the config (`--socket`, `--source`, `--log-level`).
///
/// Applied to the config at start and again to every config a reload reads, so the command line
/// wins for the daemon's whole life, not only until the first `systemctl reload`
/// (docs/configuration.md).
public struct ConfigOverrides: Sendable, Equatable {
    public var socketPath: String?
    public var source: SourceSpec?
    public var logLevel: Logger.Level?

    public init(socketPath: String? = nil, source: SourceSpec? = nil, logLevel: Logger.Level? = nil) {
        self.socketPath = socketPath
        self.source = source
        self.logLevel = logLevel
    }

    /// `config` with the command line's values in place of its own.
    public func applied(to config: DaemonConfig) -> DaemonConfig {
        var config = config
        if let socketPath { config.socketPath = socketPath }
        if let source { config.source = source }
        if let logLevel { config.logLevel = logLevel }
        return config
    }
}

/// Everything the sensors are opened with (`[Sensor]` keys other than `Linger=`, `RestAfter=`
/// and `RestRate=`, which apply to open sensors as they are): when a reload changes any of it,
/// open sensors are reopened with it.
struct SensorOpening: Equatable {
    var source: SourceSpec
    var iio: IIOSettings
    var replaySpeed: Double
    var replayLoop: Bool

    init(_ config: DaemonConfig) {
        source = config.source
        iio = config.iioSettings
        replaySpeed = config.replaySpeed
        replayLoop = config.replayLoop
    }
}
