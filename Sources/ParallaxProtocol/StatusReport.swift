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
    /// How it is read: "buffered", "polled", "polled: <why not buffered>", "evdev", "replay"; "" from
    /// servers before the field existed.
    public var capture: String
    /// What drives a buffered device's scans: "own: NAME", "hrtimer: NAME at R Hz (made by
    /// parallaxd)", "current: NAME (…)", "other: NAME", "none: …"; "" when not buffered and
    /// from servers before the field existed.
    public var trigger: String
    /// With several accelerometers, the one that drives the offset over the ignored ones
    /// ("iio:device0 (accel-display, display) over iio:device1 (accel-base, base)"); "" otherwise.
    public var choice: String
    /// What the device refused the daemon, each worded by its consequence with the attribute and
    /// the reason ("the hub cannot rest: reading at full rate while still (in_accel_hysteresis:
    /// Permission denied)"); empty when nothing was refused (and from older servers).
    public var limits: [String]
    /// Where the device is: "iio:device0", "/dev/input/event5", a libiio URI and device, a trace
    /// file; "" from servers before the field existed.
    public var location: String

    public init(kind: String, device: String, rate: Double, capture: String = "", trigger: String = "",
                choice: String = "", limits: [String] = [], location: String = "") {
        self.kind = kind
        self.device = device
        self.rate = rate
        self.capture = capture
        self.trigger = trigger
        self.choice = choice
        self.limits = limits
        self.location = location
    }
}

/// Which device frame fusion uses and why (docs/sensors.md "Mount matrices and the fusion frame").
/// Matrices are in the text form hwdb and the config take: "a, b, c; d, e, f; g, h, i".
public struct FrameReport: Sendable, Equatable {
    /// "hwdb", "kernel", "config" or "identity".
    public var source: String
    /// The matrix as the source wrote it.
    public var given: String
    /// Applied to the accelerometer (raw → direction of gravity, device frame).
    public var accel: String
    /// Applied to the gyroscope, including the online check's correction; "" without a gyroscope.
    public var gyro: String
    /// What was repaired or doubted, one sentence each.
    public var repairs: [String]
    /// The online check: "no gyroscope", "pending", "consistent", "disagrees" or "corrected".
    public var check: String
    /// The check's per-axis findings, e.g. "consistent (x +1.01, y +0.98, z not judged; 40 windows)".
    public var checkDetail: String

    public init(source: String, given: String, accel: String, gyro: String, repairs: [String],
                check: String, checkDetail: String) {
        self.source = source
        self.given = given
        self.accel = accel
        self.gyro = gyro
        self.repairs = repairs
        self.check = check
        self.checkDetail = checkDetail
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
    /// The fusion frame; nil while no sensor is open (and from servers before it existed).
    public var frame: FrameReport?
    /// The sensors run at their rest pace because the device lies still (docs/power.md); false
    /// from servers before it existed.
    public var resting: Bool
    /// The sensors are open now; false while they are closed (no subscriber past `Linger=`,
    /// reduce motion, between retries), when `sensors` describes the last ones opened. nil from
    /// servers before it existed.
    public var open: Bool?

    public init(
        version: String = ProtocolConstants.serverVersion, source: String, sensor: SensorState,
        sensors: [SensorInfo], mode: String, inputRate: Double, frameRate: Double, subscribers: Int,
        clients: Int, reduceMotion: Bool, calibrated: Bool, uptime: Double, frame: FrameReport? = nil,
        resting: Bool = false, open: Bool? = nil
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
        self.frame = frame
        self.resting = resting
        self.open = open
    }
}
