// What `status` reports: the daemon's sources, sensors, mode, measured rates and clients.

/// Whether subscribers are getting data from sensors.
public enum SensorState: String, Sendable, CaseIterable {
    /// Samples are arriving.
    case ok
    /// A sensor was open and went away; the supervisor is trying to reopen it.
    case lost
    /// No sensor is open (nobody subscribed, reduce motion, or none found).
    case none
}

/// One sensor in use.
public struct SensorInfo: Sendable, Equatable {
    /// "accel" or "gyro".
    public var kind: String
    /// The IIO device name (e.g. "bmi160") or the trace file.
    public var device: String
    /// Configured sampling rate (Hz).
    public var rate: Double

    public init(kind: String, device: String, rate: Double) {
        self.kind = kind
        self.device = device
        self.rate = rate
    }
}

/// The body of a `status` reply.
public struct StatusReport: Sendable, Equatable {
    /// Daemon version, e.g. "0.1.0".
    public var version: String
    /// The source spec in use, e.g. "iio:local:" or "replay:/path".
    public var source: String
    public var sensor: SensorState
    public var sensors: [SensorInfo]
    /// Motion mode, "attitude" or "rate".
    public var mode: String
    /// Measured sample rate reaching the engine (Hz).
    public var inputRate: Double
    /// Measured rate of engine frames (Hz).
    public var frameRate: Double
    /// Clients subscribed to offsets.
    public var subscribers: Int
    /// Clients connected.
    public var clients: Int
    public var reduceMotion: Bool
    public var calibrated: Bool
    /// Time since the daemon started (s).
    public var uptime: Double

    public init(
        version: String = ProtocolConstants.serverVersion, source: String, sensor: SensorState,
        sensors: [SensorInfo], mode: String, inputRate: Double, frameRate: Double, subscribers: Int,
        clients: Int, reduceMotion: Bool, calibrated: Bool, uptime: Double
    ) {
        self.version = version
        self.source = source
        self.sensor = sensor
        self.sensors = sensors
        self.mode = mode
        self.inputRate = inputRate
        self.frameRate = frameRate
        self.subscribers = subscribers
        self.clients = clients
        self.reduceMotion = reduceMotion
        self.calibrated = calibrated
        self.uptime = uptime
    }
}
