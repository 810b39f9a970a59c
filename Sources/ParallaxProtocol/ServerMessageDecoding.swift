// Client side of the codec: turns a server line back into a `ServerMessage`. A newer server may
// add message types or fields, so unknown types give nil and unknown fields are ignored.

extension ServerMessage {
    /// Longest server line a client should accept (bytes): a status line with many sensors is
    /// longer than any client line, so clients use this limit instead of `maxLineLength`.
    public static let maxServerLineLength = 65_536

    /// Decodes one server line; nil when it is not JSON or not a message this version knows.
    public static func decode(line: UnsafeRawBufferPointer) -> ServerMessage? {
        guard let value = try? JSONReader.parse(line) else { return nil }
        return decode(value)
    }

    /// Decodes one server line from any byte collection.
    public static func decode<Bytes: Collection<UInt8>>(line: Bytes) -> ServerMessage? {
        guard let value = try? JSONReader.parse(line) else { return nil }
        return decode(value)
    }

    /// Decodes a parsed server object.
    public static func decode(_ value: JSONValue) -> ServerMessage? {
        guard let type = value["type"]?.stringValue else { return nil }
        let id = value["id"]
        switch type {
        case "hello":
            guard let maxRate = value["max_rate"]?.intValue else { return nil }
            return .hello(maxRate: maxRate)
        case "subscribed":
            // Rounded, then converted only when it fits: a server's 1e300 is no rate.
            guard let rate = value["rate"]?.doubleValue.flatMap({ Int(exactly: $0.rounded()) }),
                  let rotation = value["rotation"]?.intValue
            else { return nil }
            return .subscribed(rate: rate, rotation: rotation, heading: value["heading"]?.boolValue, id: id)
        case "unsubscribed":
            return .unsubscribed(id: id)
        case "state":
            guard let sensor = value["sensor"]?.stringValue.flatMap(SensorState.init(rawValue:)),
                let reduceMotion = value["reduce_motion"]?.boolValue,
                let calibrated = value["calibrated"]?.boolValue
            else { return nil }
            return .state(
                sensor: sensor, reduceMotion: reduceMotion, calibrated: calibrated, heading: value["heading"]?.boolValue)
        case "offset":
            guard let seq = value["seq"]?.doubleValue.flatMap({ UInt64(exactly: $0) }),
                let t = value["t"]?.doubleValue.flatMap({ Int64(exactly: $0) }),
                let x = value["x"]?.doubleValue, let y = value["y"]?.doubleValue
            else { return nil }
            // vx and vy came with protocol v1's velocity extension: a server without them means 0;
            // one that sends them as something other than a number sends no frame (as every kit
            // reads it: Tests/protocol/wire-cases.json).
            guard let vx = numberOrAbsent(value["vx"]), let vy = numberOrAbsent(value["vy"]) else { return nil }
            // yaw only for subscribers that asked for the heading; vyaw absent = 0 like vx.
            var heading: OffsetHeading?
            if let yawValue = value["yaw"] {
                guard let yaw = yawValue.doubleValue, let vyaw = numberOrAbsent(value["vyaw"]) else { return nil }
                heading = OffsetHeading(yaw: yaw, vyaw: vyaw)
            }
            return .offset(seq: seq, t: t, x: x, y: y, vx: vx, vy: vy, heading: heading)
        case "status":
            return .status(decodeStatus(value), id: id)
        case "ok":
            return .ok(id: id)
        case "error":
            guard let code = value["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) else { return nil }
            return .error(ProtocolError(code, value["message"]?.stringValue ?? "", id: id))
        case "calibration":
            guard let report = CalibrationReport.decode(value) else { return nil }
            return .calibration(report, id: id)
        default:
            return nil
        }
    }

    /// Reads a status body leniently: a field that is missing or of another type reads as empty,
    /// so a client can still show the rest of a status from a different server version.
    private static func decodeStatus(_ value: JSONValue) -> StatusReport {
        let sensors = (value["sensors"]?.arrayValue ?? []).compactMap { entry -> SensorInfo? in
            guard let kind = entry["kind"]?.stringValue else { return nil }
            return SensorInfo(
                kind: kind, device: entry["device"]?.stringValue ?? "", rate: entry["rate"]?.doubleValue ?? 0,
                capture: entry["capture"]?.stringValue ?? "",
                trigger: entry["trigger"]?.stringValue ?? "", choice: entry["choice"]?.stringValue ?? "",
                limits: (entry["limits"]?.arrayValue ?? []).compactMap(\.stringValue),
                location: entry["location"]?.stringValue ?? "")
        }
        return StatusReport(
            version: value["version"]?.stringValue ?? "",
            source: value["source"]?.stringValue ?? "",
            sensor: value["sensor"]?.stringValue.flatMap(SensorState.init(rawValue:)) ?? .none,
            sensors: sensors,
            mode: value["mode"]?.stringValue ?? "",
            inputRate: value["rates"]?["input"]?.doubleValue ?? 0,
            frameRate: value["rates"]?["frames"]?.doubleValue ?? 0,
            subscribers: value["subscribers"]?.intValue ?? 0,
            clients: value["clients"]?.intValue ?? 0,
            reduceMotion: value["reduce_motion"]?.boolValue ?? false,
            calibrated: value["calibrated"]?.boolValue ?? false,
            uptime: value["uptime"]?.doubleValue ?? 0,
            frame: value["frame"].flatMap(decodeFrame),
            resting: value["resting"]?.boolValue ?? false,
            open: value["open"]?.boolValue)
    }

    private static func decodeFrame(_ value: JSONValue) -> FrameReport? {
        guard let source = value["source"]?.stringValue else { return nil }
        return FrameReport(
            source: source, given: value["given"]?.stringValue ?? "", accel: value["accel"]?.stringValue ?? "",
            gyro: value["gyro"]?.stringValue ?? "",
            repairs: (value["repairs"]?.arrayValue ?? []).compactMap(\.stringValue),
            check: value["check"]?.stringValue ?? "", checkDetail: value["check_detail"]?.stringValue ?? "")
    }

    /// An optional number field: 0 when absent, nil when present but not a number.
    private static func numberOrAbsent(_ field: JSONValue?) -> Double? {
        guard let field else { return 0 }
        return field.doubleValue
    }
}
