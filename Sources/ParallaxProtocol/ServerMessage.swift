// Everything the server sends, and its encoding as one JSON line. Field names and order follow
// docs/protocol.md; "id" is written only when the request carried one.

/// One server line.
public enum ServerMessage: Sendable, Equatable {
    /// First line on every connection. `maxRate` is this client's rate cap (Hz).
    case hello(maxRate: Int)
    /// Reply to subscribe with the effective rate (Hz) and rotation (degrees); `heading` only
    /// when the subscribe named it: whether offset frames will carry yaw (false without a gyroscope).
    case subscribed(rate: Int, rotation: Int, heading: Bool? = nil, id: JSONValue?)
    case unsubscribed(id: JSONValue?)
    /// Sent on subscribe and on every change. `heading` only to subscribers that asked for it:
    /// whether their offset frames carry yaw now.
    case state(sensor: SensorState, reduceMotion: Bool, calibrated: Bool, heading: Bool? = nil)
    /// A viewer offset: its seq (the daemon's count of the frames it published: parallaxd's hub
    /// counts them), monotonic ns of the newest sample, x and y in [-1, 1],
    /// and their rates of change vx and vy at `t` (offset units per second); the heading for
    /// subscribers that asked for it (while a gyroscope provides it).
    case offset(seq: UInt64, t: Int64, x: Double, y: Double, vx: Double, vy: Double, heading: OffsetHeading? = nil)
    case status(StatusReport, id: JSONValue?)
    case ok(id: JSONValue?)
    case error(ProtocolError)
    /// Calibration progress, then its outcome (reply to `calibrate`; see CalibrationReport.swift).
    case calibration(CalibrationReport, id: JSONValue?)

    /// Decimals of measured rates in `status` (Hz).
    static let rateDecimals = 1
    /// Decimals of configured sensor rates in `status` (Hz; 12.5 Hz is a real IIO rate).
    static let sensorRateDecimals = 3
    /// Decimals of `uptime` in `status` (s).
    static let uptimeDecimals = 3

    /// The message as one line ending in "\n".
    public func encode() -> [UInt8] {
        if case .offset(let seq, let t, let x, let y, let vx, let vy, let heading) = self {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Self.offsetLineCapacity)
            Self.encodeOffset(seq: seq, t: t, x: x, y: y, vx: vx, vy: vy, heading: heading, into: &bytes)
            return bytes
        }
        var writer = JSONLineWriter()
        writer.beginObject()
        writer.key("type")
        switch self {
        case .hello(let maxRate):
            writer.string("hello")
            writer.key("protocol")
            writer.int(ProtocolConstants.version)
            writer.key("server")
            writer.string(ProtocolConstants.serverName)
            writer.key("version")
            writer.string(ProtocolConstants.serverVersion)
            writer.key("max_rate")
            writer.int(maxRate)
        case .subscribed(let rate, let rotation, let heading, let id):
            writer.string("subscribed")
            writer.key("rate")
            writer.int(rate)
            writer.key("rotation")
            writer.int(rotation)
            if let heading {
                writer.key("heading")
                writer.bool(heading)
            }
            Self.writeID(id, to: &writer)
        case .unsubscribed(let id):
            writer.string("unsubscribed")
            Self.writeID(id, to: &writer)
        case .state(let sensor, let reduceMotion, let calibrated, let heading):
            writer.string("state")
            writer.key("sensor")
            writer.string(sensor.rawValue)
            writer.key("reduce_motion")
            writer.bool(reduceMotion)
            writer.key("calibrated")
            writer.bool(calibrated)
            if let heading {
                writer.key("heading")
                writer.bool(heading)
            }
        case .offset:
            break  // encoded above
        case .status(let report, let id):
            writer.string("status")
            Self.writeStatus(report, to: &writer)
            Self.writeID(id, to: &writer)
        case .ok(let id):
            writer.string("ok")
            Self.writeID(id, to: &writer)
        case .error(let error):
            writer.string("error")
            writer.key("code")
            writer.string(error.code.rawValue)
            writer.key("message")
            writer.string(error.message)
            Self.writeID(error.id, to: &writer)
        case .calibration(let report, let id):
            writer.string("calibration")
            report.write(to: &writer)
            Self.writeID(id, to: &writer)
        }
        writer.endObject()
        writer.endLine()
        return writer.bytes
    }

    private static func writeID(_ id: JSONValue?, to writer: inout JSONLineWriter) {
        guard let id else { return }
        writer.key("id")
        writer.value(id)
    }

    private static func writeStatus(_ report: StatusReport, to writer: inout JSONLineWriter) {
        writer.key("version")
        writer.string(report.version)
        writer.key("source")
        writer.string(report.source)
        writer.key("sensor")
        writer.string(report.sensor.rawValue)
        writer.key("sensors")
        writer.beginArray()
        for sensor in report.sensors {
            writer.beginObject()
            writer.key("kind")
            writer.string(sensor.kind)
            writer.key("device")
            writer.string(sensor.device)
            writer.key("rate")
            writer.fixed(sensor.rate, decimals: sensorRateDecimals)
            // Added after the first release (docs/protocol.md); old clients ignore it.
            if !sensor.capture.isEmpty {
                writer.key("capture")
                writer.string(sensor.capture)
            }
            for (key, value) in [("location", sensor.location), ("trigger", sensor.trigger), ("choice", sensor.choice)] where !value.isEmpty {
                writer.key(key)
                writer.string(value)
            }
            if !sensor.limits.isEmpty {
                writer.key("limits")
                writer.beginArray()
                for limit in sensor.limits { writer.string(limit) }
                writer.endArray()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.key("mode")
        writer.string(report.mode)
        writer.key("rates")
        writer.beginObject()
        writer.key("input")
        writer.fixed(report.inputRate, decimals: rateDecimals)
        writer.key("frames")
        writer.fixed(report.frameRate, decimals: rateDecimals)
        writer.endObject()
        writer.key("subscribers")
        writer.int(report.subscribers)
        writer.key("clients")
        writer.int(report.clients)
        writer.key("reduce_motion")
        writer.bool(report.reduceMotion)
        writer.key("calibrated")
        writer.bool(report.calibrated)
        writer.key("uptime")
        writer.fixed(report.uptime, decimals: uptimeDecimals)
        // Added after the first release (docs/power.md); old clients ignore it.
        writer.key("resting")
        writer.bool(report.resting)
        // Added with the installed service's tests: `sensors` outlives a close.
        if let open = report.open {
            writer.key("open")
            writer.bool(open)
        }
        if let frame = report.frame { writeFrame(frame, to: &writer) }
    }

    /// `"frame"`: a field added after the first release; old clients ignore it.
    private static func writeFrame(_ frame: FrameReport, to writer: inout JSONLineWriter) {
        writer.key("frame")
        writer.beginObject()
        for (key, value) in [("source", frame.source), ("given", frame.given), ("accel", frame.accel), ("gyro", frame.gyro)] {
            writer.key(key)
            writer.string(value)
        }
        writer.key("repairs")
        writer.beginArray()
        for repair in frame.repairs { writer.string(repair) }
        writer.endArray()
        writer.key("check")
        writer.string(frame.check)
        writer.key("check_detail")
        writer.string(frame.checkDetail)
        writer.endObject()
    }
}
