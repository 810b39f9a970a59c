// One client line: a command plus an optional id that the reply echoes. Decoding applies every
// rule of protocol v1 and turns each violation into a specific, human-readable error reply.

/// A client's request: `{"cmd":...,"id":...}` and the command's fields.
public struct ClientRequest: Sendable, Equatable {
    /// Any JSON scalar; echoed in the reply. nil when the request had no "id".
    public var id: JSONValue?
    public var command: ClientCommand

    public init(_ command: ClientCommand, id: JSONValue? = nil) {
        self.command = command
        self.id = id
    }

    public init(id: JSONValue?, command: ClientCommand) {
        self.init(command, id: id)
    }

    /// Decodes one line (its "\n" already removed, or kept: whitespace is allowed around the object).
    public static func decode(line: UnsafeRawBufferPointer) -> Result<ClientRequest, ProtocolError> {
        let value: JSONValue
        do {
            value = try JSONReader.parse(line)
        } catch {
            return .failure(ProtocolError(.badRequest, "invalid JSON: \(error)"))
        }
        return decode(value)
    }

    /// Decodes one line from any byte collection.
    public static func decode<Bytes: Collection<UInt8>>(line: Bytes) -> Result<ClientRequest, ProtocolError> {
        if let result = line.withContiguousStorageIfAvailable({ decode(line: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(line).withUnsafeBytes { decode(line: $0) }
    }

    /// Decodes an already parsed request object.
    public static func decode(_ value: JSONValue) -> Result<ClientRequest, ProtocolError> {
        guard case .object(let fields) = value else {
            return .failure(ProtocolError(.badRequest, "a request must be a JSON object"))
        }
        // The id is checked first so that every later error can echo it.
        let id = fields["id"]
        if let id, !id.isScalar {
            return .failure(ProtocolError(.badRequest, "id must be a string, number, boolean or null"))
        }
        func failure(_ code: ErrorCode, _ message: String) -> Result<ClientRequest, ProtocolError> {
            .failure(ProtocolError(code, message, id: id))
        }
        guard let cmdValue = fields["cmd"] else { return failure(.badRequest, "missing \"cmd\"") }
        guard let cmd = cmdValue.stringValue else { return failure(.badRequest, "\"cmd\" must be a string") }

        switch decodeCommand(cmd, fields) {
        case .success(let command): return .success(ClientRequest(command, id: id))
        case .failure(let error): return failure(error.code, error.message)
        }
    }

    /// Validates the fields of command `cmd`; the error's id is filled in by the caller.
    private static func decodeCommand(_ cmd: String, _ fields: [String: JSONValue]) -> Result<ClientCommand, ProtocolError> {
        switch cmd {
        case "subscribe":
            var rate: Double?
            if let value = fields["rate"] {
                guard let hz = value.doubleValue, hz > 0, hz.isFinite else {
                    return .failure(ProtocolError(.badRequest, "rate must be a positive number (Hz)"))
                }
                rate = hz
            }
            var rotation: Int?
            if let value = fields["rotation"] {
                guard let degrees = value.intValue, ProtocolConstants.rotations.contains(degrees) else {
                    return .failure(ProtocolError(.badRequest, "rotation must be 0, 90, 180 or 270"))
                }
                rotation = degrees
            }
            var heading: Bool?
            if let value = fields["heading"] {
                guard let flag = value.boolValue else {
                    return .failure(ProtocolError(.badRequest, "heading must be true or false"))
                }
                heading = flag
            }
            return .success(.subscribe(rate: rate, rotation: rotation, heading: heading))
        case "unsubscribe":
            return .success(.unsubscribe)
        case "status":
            return .success(.status)
        case "recenter":
            return .success(.recenter)
        case "set":
            guard let flag = fields["reduce_motion"]?.boolValue else {
                return .failure(ProtocolError(.badRequest, "set needs \"reduce_motion\": true or false"))
            }
            return .success(.setReduceMotion(flag))
        case "calibrate":
            var seconds: Double?
            if let value = fields["seconds"] {
                guard let duration = value.doubleValue, ProtocolConstants.calibrationSeconds.contains(duration) else {
                    return .failure(ProtocolError(.badRequest, "seconds must be a number from 1 to 120"))
                }
                seconds = duration
            }
            return .success(.calibrate(seconds: seconds))
        default:
            return .failure(ProtocolError(.unknownCommand, "unknown command \"\(shortened(cmd))\""))
        }
    }

    /// Keeps echoed client text short enough to read (and to keep the reply line small).
    private static func shortened(_ text: String) -> String {
        let limit = 64
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "…"
    }

    /// The request as one line ending in "\n", as a client sends it.
    public func encode() -> [UInt8] {
        var writer = JSONLineWriter()
        writer.beginObject()
        writer.key("cmd")
        writer.string(command.name)
        switch command {
        case .subscribe(let rate, let rotation, let heading):
            if let rate {
                writer.key("rate")
                writer.number(rate)
            }
            if let rotation {
                writer.key("rotation")
                writer.int(rotation)
            }
            if let heading {
                writer.key("heading")
                writer.bool(heading)
            }
        case .setReduceMotion(let flag):
            writer.key("reduce_motion")
            writer.bool(flag)
        case .calibrate(let seconds):
            if let seconds {
                writer.key("seconds")
                writer.number(seconds)
            }
        case .unsubscribe, .status, .recenter:
            break
        }
        if let id {
            writer.key("id")
            writer.value(id)
        }
        writer.endObject()
        writer.endLine()
        return writer.bytes
    }
}
