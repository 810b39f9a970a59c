// What a ParallaxSubscriber tells its owner besides offsets: the daemon's state, why it is not
// subscribed right now, and the mistakes that make a subscriber impossible to create.

import Glibc
import ParallaxProtocol

/// Whether the daemon gets data from its sensors (the `sensor` field of `state` lines).
public enum SensorStatus: Sendable, Hashable {
    /// Samples arrive (or the sensors are available and closed while unused).
    case ok
    /// A sensor went away; the daemon is reopening it.
    case lost
    /// No sensor (or not connected).
    case none
    /// A value this client does not know (a newer daemon); treat it as not ok.
    case unknown
}

/// The connection and what the daemon last said about itself.
public struct SubscriberState: Sendable, Hashable {
    /// True from the daemon's `subscribed` reply (paused: its `unsubscribed` reply) until the
    /// connection is lost.
    public var connected: Bool
    /// From the last `state` line; `.none` while not connected.
    public var sensor: SensorStatus
    /// Reduce motion is on: the daemon sent one (0, 0) frame and stays silent until it is off.
    public var reduceMotion: Bool
    /// A gyroscope calibration is in use.
    public var calibrated: Bool
    /// Offsets carry `yaw` and `vyaw`: the subscriber asked for the heading and the daemon has a
    /// gyroscope (from the `subscribed` reply and `state` lines). Always false without `heading: true`.
    public var heading: Bool

    public init(connected: Bool = false, sensor: SensorStatus = .none, reduceMotion: Bool = false, calibrated: Bool = false,
                heading: Bool = false) {
        self.connected = connected
        self.sensor = sensor
        self.reduceMotion = reduceMotion
        self.calibrated = calibrated
        self.heading = heading
    }

    /// Not connected, nothing known.
    public static let disconnected = SubscriberState()
}

/// Why a subscriber is not subscribed right now. Each case says what it does next.
public enum SubscriberProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing listens at the socket (ENOENT, ECONNREFUSED): waiting for the daemon, quietly.
    case daemonNotRunning(path: String, errno: Int32)
    /// The user may not have motion data: the daemon answered `permission_denied`, or the socket
    /// itself refused (EACCES, EPERM). Retried only every `refusalRetryDelay`.
    case accessDenied(message: String)
    /// The daemon speaks another protocol version (its hello said so). Retried like a refusal.
    case unsupportedProtocol(version: Int)
    /// The daemon answered the subscription with another error (e.g. `unavailable`: full).
    case refused(ProtocolError)
    /// The connection closed or failed after it was open (daemon stopped, restarted, crashed).
    case connectionLost(errno: Int32)
    /// The daemon's handshake made no sense (no hello first, a reply of the wrong type).
    case protocolViolation(String)
    /// The daemon accepted the connection but did not subscribe us within the handshake time.
    case handshakeTimedOut
    /// Another failure to connect (e.g. EAGAIN: the daemon's backlog is full).
    case cannotConnect(path: String, errno: Int32)

    /// True for the problems retried only after a long pause (no reconnect storm).
    public var isRefusal: Bool {
        switch self {
        case .accessDenied, .unsupportedProtocol: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .daemonNotRunning(let path, let code):
            return "parallaxd is not running at \(path) (\(describe(errno: code))); waiting for it"
        case .accessDenied(let message):
            return "parallaxd refused the subscription (permission_denied): \(message)"
        case .unsupportedProtocol(let version):
            return "parallaxd speaks protocol \(version); this client speaks \(ProtocolConstants.version)"
        case .refused(let error):
            return "parallaxd refused the subscription (\(error.code.rawValue)): \(error.message)"
        case .connectionLost(let code):
            return "lost the connection to parallaxd (\(describe(errno: code))); reconnecting"
        case .protocolViolation(let what):
            return "parallaxd's handshake made no sense: \(what)"
        case .handshakeTimedOut:
            return "parallaxd accepted the connection but did not answer"
        case .cannotConnect(let path, let code):
            return "cannot connect to \(path): \(describe(errno: code))"
        }
    }
}

/// How bad a log line is (the syslog numbers libparallax uses too).
public enum SubscriberLogLevel: Int, Sendable {
    case error = 3
    case warning = 4
    case info = 6
}

/// A subscriber that cannot be made: a wrong argument or a system call that failed.
public enum SubscriberSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `rate` must be at least 1 (Hz).
    case invalidRate(Int)
    /// `rotation` must be 0, 90, 180 or 270 (degrees clockwise).
    case invalidRotation(Int)
    /// The socket path does not fit a Unix socket address (at most 107 bytes).
    case pathTooLong(String)
    case system(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .invalidRate(let rate): return "rate must be at least 1 Hz, not \(rate)"
        case .invalidRotation(let rotation): return "rotation must be 0, 90, 180 or 270, not \(rotation)"
        case .pathTooLong(let path): return "socket path too long for a Unix socket: \(path)"
        case .system(let operation, let code): return "\(operation) failed: \(describe(errno: code))"
        }
    }
}

/// The C library's text for an errno value.
private func describe(errno code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
