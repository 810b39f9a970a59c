// Errors the server reports to a client as {"type":"error","code":...,"message":...}.

/// The `code` of an error reply.
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The line is not valid JSON, not an object, or a field has the wrong type or value.
    case badRequest = "bad_request"
    /// `cmd` names no command of this protocol version.
    case unknownCommand = "unknown_command"
    /// The client's credentials do not allow the command.
    case permissionDenied = "permission_denied"
    /// The line was longer than `ProtocolConstants.maxLineLength`.
    case tooLong = "too_long"
    /// The daemon cannot do it now (no sensors, calibration running, ...).
    case unavailable
}

/// An error reply: what went wrong, said for a person, with the request's id when it was readable.
public struct ProtocolError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var id: JSONValue?

    public init(code: ErrorCode, message: String, id: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }

    public init(_ code: ErrorCode, _ message: String, id: JSONValue? = nil) {
        self.init(code: code, message: message, id: id)
    }
}

extension ProtocolError {
    /// The reply to a line that `LineSplitter` reported as too long (no id: the line was not read).
    public static let lineTooLong = ProtocolError(
        .tooLong, "line longer than \(ProtocolConstants.maxLineLength) bytes")
}
