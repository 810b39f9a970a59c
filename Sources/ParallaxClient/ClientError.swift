// What can go wrong talking to parallaxd, each case worded for the person at the terminal.

import Glibc
import ParallaxProtocol

/// A failure of the client connection (not an error reply: those are `ServerMessage.error`).
public enum ClientError: Error, Sendable, CustomStringConvertible {
    /// connect(2) failed; `errno` says why.
    case cannotConnect(path: String, errno: Int32)
    /// The daemon closed the connection.
    case closed
    /// A system call failed on an open connection.
    case io(operation: String, errno: Int32)
    /// No answer within the time the caller allowed (ms).
    case timedOut(milliseconds: Int32)
    /// SIGINT, SIGTERM or SIGHUP arrived while waiting (see `interruptOnTerminationSignals()`).
    case interrupted
    /// The daemon sent something this protocol version does not allow at that point.
    case unexpectedReply(String)
    /// The daemon refused the connection with an error line instead of `hello`.
    case rejected(ProtocolError)

    public var description: String {
        switch self {
        case .cannotConnect(let path, let code):
            return "cannot connect to \(path): \(Self.describe(errno: code))\(Self.connectHint(errno: code))"
        case .closed:
            return "parallaxd closed the connection"
        case .io(let operation, let code):
            return "\(operation) failed: \(Self.describe(errno: code))"
        case .timedOut(let milliseconds):
            return "no answer from parallaxd within \(Self.describe(milliseconds: milliseconds))"
        case .interrupted:
            return "interrupted"
        case .unexpectedReply(let what):
            return "unexpected reply from parallaxd: \(what)"
        case .rejected(let error):
            return "\(error.code.rawValue): \(error.message)"
        }
    }

    /// The C library's text for an errno value (the process never calls setlocale, so English).
    static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// What to check next, for the errors a user can fix.
    private static func connectHint(errno code: Int32) -> String {
        switch code {
        case ENOENT, ECONNREFUSED: return " — is parallaxd running?"
        case EACCES, EPERM: return " — is your user allowed to use it (group parallax)?"
        case ENAMETOOLONG: return " — the socket path is too long for a Unix socket"
        default: return ""
        }
    }

    private static func describe(milliseconds: Int32) -> String {
        let millisecondsPerSecond: Int32 = 1000
        if milliseconds % millisecondsPerSecond == 0 { return "\(milliseconds / millisecondsPerSecond) s" }
        return "\(milliseconds) ms"
    }
}
