import Logging
import ParallaxIIO
import ParallaxMotion

/// Everything the daemon can be configured with. Defaults are the values documented in
/// `config/parallaxd.conf`; each field names its INI key.
public struct DaemonConfig: Sendable, Equatable {
    public static let defaultPath = "/etc/parallaxd/parallaxd.conf"
    public static let defaultSocketPath = "/run/parallaxd/parallaxd.sock"
    public static let defaultCalibrationFile = "/var/lib/parallaxd/calibration.conf"

    // [Daemon]
    /// `Socket=`: where clients connect (ignored when systemd passes a socket).
    public var socketPath = DaemonConfig.defaultSocketPath
    /// `SocketMode=`: permission bits of the socket file; access is checked per client anyway.
    public var socketMode: UInt32 = 0o666
    /// `LogLevel=`
    public var logLevel: Logger.Level = .info
    /// `MaxClients=`: connection slots; when they are taken, a newcomer displaces a connection of
    /// the user holding the most, or is refused (ConnectionSlots.swift).
    public var maxClients = 64
    /// `MaxClientsPerUser=`: connections one uid may hold; half the slots, so a single user never
    /// takes the whole daemon even when nobody else is connected.
    public var maxClientsPerUser = 32
    /// `IdleTimeout=` (s): a connection that has sent no request and is not subscribed this long
    /// after connecting is closed; a peer that may neither subscribe nor control is closed this
    /// long after connecting whatever it does (it can only ask for `status`).
    public var idleTimeout = 5.0
    /// `StallTimeout=` (s): a client that leaves output unread this long is disconnected, so a
    /// frozen client costs the others nothing (it never delays them: frames for it are skipped).
    public var stallTimeout = 5.0
    /// `CommandRate=` (commands/s per connection, with as large a burst): more is abuse.
    public var commandRate = 20.0

    // [Sensor]
    /// `Source=`: auto, iio:<uri>, replay:<file>.
    public var source: SourceSpec = .auto
    /// `Rate=` (Hz): how often sensors are polled.
    public var pollRate = IIOSettings.defaultPollRate
    /// `Capture=`: auto (buffered where the buffers deliver), buffered, polled.
    public var capture = CaptureMethod.auto
    /// `AccelMountMatrix=` / `GyroMountMatrix=`: overrides that win over udev and sysfs.
    public var accelMountMatrix: MountMatrix?
    public var gyroMountMatrix: MountMatrix?
    /// `Linger=` (s): sensors stay open this long after the last subscriber leaves, so a client
    /// that reconnects at once does not pay for a re-open and a re-settled attitude.
    public var linger = 2.0
    /// `RestAfter=` (s): the device lies still this long, with nothing left to send, and the
    /// sensors slow down until it moves (docs/power.md); 0: never.
    public var restAfter = 2.0
    /// `RestRate=` (Hz): samples per second wanted at rest (the slowest rate the device offers
    /// at or above it); at least 5 Hz, the engine's longest gap.
    public var restRate = RestRequest.defaultRate
    /// `ReplaySpeed=`: speed factor for replay: sources.
    public var replaySpeed = 1.0
    /// `ReplayLoop=`: start a replay again when it ends (a replay is a stand-in for live sensors).
    public var replayLoop = true

    // [Motion]
    public var motion = MotionSettings()
    /// `ReduceMotion=`: one (0, 0) frame, then silence with sensors closed.
    public var reduceMotion = false

    // [Access]
    /// `MaxRate=` (Hz): cap for unprivileged subscribers (the W3C generic-sensor cap).
    public var maxRate = 60
    /// `PrivilegedMaxRate=` (Hz): cap for root.
    public var privilegedMaxRate = 240
    /// `Subscribers=` and `Controllers=`: who may subscribe, who may use control commands.
    public var access = AccessPolicy()

    // [Calibration]
    /// `File=`: gyroscope bias and friends, written by `parallaxd --calibrate`.
    public var calibrationFile = DaemonConfig.defaultCalibrationFile

    public init() {}

    /// The IIO part, as the sensor layer takes it.
    public var iioSettings: IIOSettings {
        IIOSettings(uri: "local:", pollRate: pollRate, accelMountMatrix: accelMountMatrix, gyroMountMatrix: gyroMountMatrix,
                    capture: capture)
    }
}
