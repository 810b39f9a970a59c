// The commands a client may send (docs/protocol.md "Commands and replies"), already validated.

/// A validated client command.
public enum ClientCommand: Sendable, Equatable {
    /// Start receiving offsets. `rate` in Hz (nil: the server's maximum for this client);
    /// `rotation` in degrees clockwise, one of 0, 90, 180, 270 (nil: 0); `heading` asks for yaw
    /// and vyaw on every offset frame (nil: not asked, the reply says nothing about it either).
    case subscribe(rate: Double?, rotation: Int?, heading: Bool? = nil)
    case unsubscribe
    case status
    /// Make the current pose the reference (privileged).
    case recenter
    /// Turn reduce motion on or off at run time (privileged).
    case setReduceMotion(Bool)
    /// Estimate the gyroscope bias; `seconds` in 1...120 (nil: the daemon's default) (privileged).
    case calibrate(seconds: Double?)

    /// The `cmd` string on the wire.
    public var name: String {
        switch self {
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .status: return "status"
        case .recenter: return "recenter"
        case .setReduceMotion: return "set"
        case .calibrate: return "calibrate"
        }
    }

    /// Control commands need root or an admin group (docs/protocol.md "Access").
    public var requiresPrivilege: Bool {
        switch self {
        case .subscribe, .unsubscribe, .status: return false
        case .recenter, .setReduceMotion, .calibrate: return true
        }
    }
}
