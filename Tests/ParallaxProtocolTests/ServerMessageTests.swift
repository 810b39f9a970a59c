// Server lines must match docs/protocol.md byte for byte where it shows them, be one line each,
// and decode back to the same message on the client side.

import Testing

@testable import ParallaxProtocol

private func text(_ message: ServerMessage) -> String {
    String(decoding: message.encode(), as: UTF8.self)
}

private let sampleStatus = StatusReport(
    source: "iio:local:", sensor: .ok,
    sensors: [SensorInfo(kind: "accel", device: "bmi160", rate: 100), SensorInfo(kind: "gyro", device: "bmi160", rate: 12.5)],
    mode: "attitude", inputRate: 99.8, frameRate: 58.2, subscribers: 2, clients: 3, reduceMotion: false,
    calibrated: true, uptime: 3723.125)

@Suite struct ServerMessageTests {
    @Test func encodesTheDesignExamples() {
        #expect(text(.hello(maxRate: 60)) == #"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n")
        #expect(text(.subscribed(rate: 60, rotation: 0, id: nil)) == #"{"type":"subscribed","rate":60,"rotation":0}"# + "\n")
        #expect(text(.unsubscribed(id: nil)) == #"{"type":"unsubscribed"}"# + "\n")
        #expect(text(.ok(id: nil)) == #"{"type":"ok"}"# + "\n")
        #expect(
            text(.state(sensor: .ok, reduceMotion: false, calibrated: true))
                == #"{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true}"# + "\n")
        #expect(
            text(.offset(seq: 1234, t: 5_123_456_789_012, x: 0.1234, y: -0.0456, vx: 0.21, vy: -0.05))
                == #"{"type":"offset","seq":1234,"t":5123456789012,"x":0.1234,"y":-0.0456,"vx":0.21,"vy":-0.05}"# + "\n")
        #expect(
            text(.error(ProtocolError(.badRequest, "invalid JSON: unexpected end of input at byte 1")))
                == #"{"type":"error","code":"bad_request","message":"invalid JSON: unexpected end of input at byte 1"}"# + "\n")
    }

    @Test func echoesIDsOnlyWhenPresent() {
        #expect(text(.ok(id: .string("a1"))) == #"{"type":"ok","id":"a1"}"# + "\n")
        #expect(text(.ok(id: .null)) == #"{"type":"ok","id":null}"# + "\n")
        #expect(text(.subscribed(rate: 30, rotation: 90, id: .number(7))).hasSuffix(#","id":7}"# + "\n"))
        #expect(
            text(.error(ProtocolError(.unknownCommand, "unknown command \"x\"", id: .number(9))))
                == #"{"type":"error","code":"unknown_command","message":"unknown command \"x\"","id":9}"# + "\n")
    }

    @Test func encodesStatusWithEveryField() throws {
        let line = ServerMessage.status(sampleStatus, id: .number(7)).encode()
        let value = try JSONReader.parse(line)
        #expect(value["type"]?.stringValue == "status")
        #expect(value["version"]?.stringValue == ProtocolConstants.serverVersion)
        #expect(value["source"]?.stringValue == "iio:local:")
        #expect(value["sensor"]?.stringValue == "ok")
        #expect(value["sensors"]?[0]?["kind"]?.stringValue == "accel")
        #expect(value["sensors"]?[1]?["rate"]?.doubleValue == 12.5)
        #expect(value["mode"]?.stringValue == "attitude")
        #expect(value["rates"]?["input"]?.doubleValue == 99.8)
        #expect(value["rates"]?["frames"]?.doubleValue == 58.2)
        #expect(value["subscribers"]?.intValue == 2)
        #expect(value["clients"]?.intValue == 3)
        #expect(value["reduce_motion"]?.boolValue == false)
        #expect(value["calibrated"]?.boolValue == true)
        #expect(value["uptime"]?.doubleValue == 3723.125)
        #expect(value["id"]?.intValue == 7)
        #expect(String(decoding: line, as: UTF8.self).contains(#""sensors":[{"kind":"accel","device":"bmi160","rate":100},"#))
    }

    @Test(arguments: [
        ServerMessage.hello(maxRate: 60),
        .hello(maxRate: 200),
        .subscribed(rate: 30, rotation: 180, id: .string("a1")),
        .subscribed(rate: 60, rotation: 0, id: nil),
        .unsubscribed(id: .number(2)),
        .unsubscribed(id: nil),
        .state(sensor: .lost, reduceMotion: true, calibrated: false),
        .state(sensor: .none, reduceMotion: false, calibrated: true),
        .offset(seq: 0, t: 0, x: 0, y: 0, vx: 0, vy: 0),
        .offset(seq: 1 << 40, t: 5_123_456_789_012, x: -1, y: 0.9999, vx: -12.5, vy: 0.0001),
        .status(sampleStatus, id: .number(7)),
        .status(StatusReport(source: "replay:/tmp/a b.csv", sensor: .none, sensors: [], mode: "rate", inputRate: 0,
            frameRate: 0, subscribers: 0, clients: 1, reduceMotion: true, calibrated: false, uptime: 0.5), id: nil),
        .status(StatusReport(source: "iio:local:", sensor: .ok, sensors: [], mode: "attitude", inputRate: 6.3,
            frameRate: 0, subscribers: 4, clients: 4, reduceMotion: false, calibrated: true, uptime: 60, resting: true), id: nil),
        .status(StatusReport(source: "iio:local:", sensor: .ok, sensors: [], mode: "attitude", inputRate: 0,
            frameRate: 0, subscribers: 0, clients: 1, reduceMotion: false, calibrated: false, uptime: 9, open: false), id: nil),
        .status(StatusReport(source: "iio:local:", sensor: .ok, sensors: [], mode: "attitude", inputRate: 100,
            frameRate: 0, subscribers: 1, clients: 1, reduceMotion: false, calibrated: false, uptime: 9, open: true), id: nil),
        .status(StatusReport(source: "iio:local:", sensor: .ok, sensors: [], mode: "attitude", inputRate: 100,
            frameRate: 30, subscribers: 1, clients: 1, reduceMotion: false, calibrated: false, uptime: 2,
            frame: FrameReport(source: "hwdb", given: "0, 1, 0; -1, 0, 0; 0, 0, 1", accel: "0, 1, 0; -1, 0, 0; 0, 0, -1",
                               gyro: "0, -1, 0; 1, 0, 0; 0, 0, 1", repairs: ["z row \"quoted\": replaced", "second"],
                               check: "consistent", checkDetail: "consistent (x +1, y +0.98, z not judged; 40 windows)")), id: nil),
        .ok(id: .bool(true)),
        .ok(id: nil),
        .error(ProtocolError(.tooLong, "line longer than 1024 bytes")),
        .error(ProtocolError(.permissionDenied, "recenter needs root or an admin group", id: .string("r"))),
        .error(ProtocolError(.unavailable, "no sensors")),
    ])
    func roundTrips(message: ServerMessage) {
        let line = message.encode()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")))
        #expect(ServerMessage.decode(line: line) == message)
    }

    /// A server line is hostile input too: numbers no server sends are refused (nil), never
    /// converted into a trap.
    @Test(arguments: [
        #"{"type":"subscribed","rate":1e300,"rotation":0}"#,
        #"{"type":"subscribed","rate":-1e300,"rotation":0}"#,
        #"{"type":"subscribed","rate":9223372036854775808,"rotation":0}"#,
        #"{"type":"subscribed","rate":60,"rotation":1e300}"#,
        #"{"type":"hello","protocol":1,"max_rate":1e300}"#,
        #"{"type":"offset","seq":1e300,"t":1,"x":0,"y":0}"#,
        #"{"type":"offset","seq":-1,"t":1,"x":0,"y":0}"#,
        #"{"type":"offset","seq":1,"t":1e300,"x":0,"y":0}"#,
        #"{"type":"calibration","done":true,"samples":1e300,"seconds":5}"#,
    ])
    func absurdNumbersFromAServerAreRefused(line: String) {
        #expect(ServerMessage.decode(line: Array(line.utf8)) == nil)
    }

    @Test func statusSaysHowEachSensorIsCaptured() throws {
        var report = sampleStatus
        report.sensors = [SensorInfo(kind: "accel", device: "accel_3d", rate: 100, capture: "polled: the buffer is left to iio-sensor-proxy"),
                          SensorInfo(kind: "gyro", device: "gyro_3d", rate: 100, capture: "polled: the buffer is left to iio-sensor-proxy")]
        let line = ServerMessage.status(report, id: nil).encode()
        #expect(try JSONReader.parse(line)["sensors"]?[0]?["capture"]?.stringValue == "polled: the buffer is left to iio-sensor-proxy")
        #expect(ServerMessage.decode(line: line) == .status(report, id: nil))
        // A sensor without it (servers before the field existed) has none on the wire.
        #expect(!String(decoding: ServerMessage.status(sampleStatus, id: nil).encode(), as: UTF8.self).contains("capture"))
    }

    @Test func statusSaysWhatEachSensorWasRefused() throws {
        var report = sampleStatus
        let limits = ["the hub cannot rest: reading at full rate while still (in_accel_hysteresis: Permission denied (13))",
                      "no kernel timestamps: sample times from the read time (the clock stays realtime) (current_timestamp_clock: Permission denied (13))"]
        report.sensors = [SensorInfo(kind: "accel", device: "accel_3d", rate: 100, capture: "buffered", limits: limits),
                          SensorInfo(kind: "gyro", device: "gyro_3d", rate: 100, capture: "buffered")]
        let line = ServerMessage.status(report, id: nil).encode()
        let parsed = try JSONReader.parse(line)
        #expect(parsed["sensors"]?[0]?["limits"]?.arrayValue?.compactMap(\.stringValue) == limits)
        // Nothing refused: no field at all.
        #expect(parsed["sensors"]?[1]?["limits"] == nil)
        #expect(ServerMessage.decode(line: line) == .status(report, id: nil))
    }

    @Test func aHugeStatusCountReadsAsEmpty() {
        guard case .status(let report, _)? = ServerMessage.decode(line: Array(#"{"type":"status","subscribers":1e300,"clients":-1e300}"#.utf8)) else {
            Issue.record("status not decoded")
            return
        }
        #expect(report.subscribers == 0 && report.clients == 0)
    }

    @Test func offsetsRoundToFourDecimals() {
        let message = ServerMessage.decode(
            line: ServerMessage.offset(seq: 1, t: 2, x: 0.123456, y: -0.00004, vx: 1.234567, vy: -0.00004).encode())
        #expect(message == .offset(seq: 1, t: 2, x: 0.1235, y: 0, vx: 1.2346, vy: 0))
    }

    @Test func offsetsWithoutVelocityDecodeAsStill() {
        // A server from before the velocity fields: a client reads vx = vy = 0, not a bad line.
        let line = Array(#"{"type":"offset","seq":3,"t":4,"x":0.5,"y":-0.25}"#.utf8) + [10]
        #expect(ServerMessage.decode(line: line) == .offset(seq: 3, t: 4, x: 0.5, y: -0.25, vx: 0, vy: 0))
    }

    @Test func velocitiesAreBoundedAndFinite() {
        var bytes: [UInt8] = []
        ServerMessage.encodeOffset(seq: 1, t: 2, x: 0, y: 0, vx: 1e300, vy: -.infinity, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"offset","seq":1,"t":2,"x":0,"y":0,"vx":9999,"vy":0}"# + "\n")
        bytes.removeAll()
        ServerMessage.encodeOffset(seq: 1, t: 2, x: 0, y: 0, vx: .nan, vy: -1e9, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"offset","seq":1,"t":2,"x":0,"y":0,"vx":0,"vy":-9999}"# + "\n")
    }

    @Test func offsetEncodingAppendsWithoutGrowingAReusedBuffer() {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ServerMessage.offsetLineCapacity)
        let capacity = bytes.capacity
        ServerMessage.encodeOffset(
            seq: .max, t: .min + 1, x: -0.99999, y: -0.5555, vx: -9998.99999, vy: -0.12345, into: &bytes)
        #expect(bytes.capacity == capacity)
        let line = String(decoding: bytes, as: UTF8.self)
        #expect(
            line == #"{"type":"offset","seq":18446744073709551615,"t":-9223372036854775807,"x":-1,"y":-0.5555,"vx":-9999,"vy":-0.1235}"#
                + "\n")
        bytes.removeAll(keepingCapacity: true)
        ServerMessage.encodeOffset(seq: 5, t: 6, x: .nan, y: .infinity, vx: .nan, vy: .infinity, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"type":"offset","seq":5,"t":6,"x":0,"y":0,"vx":0,"vy":0}"# + "\n")
    }

    @Test func offsetLinesMatchTheGeneralEncoder() {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<1_000 {
            let seq = generator.next() >> 12
            let t = Int64(generator.next() >> 12)
            let x = generator.nextDouble(in: -1...1)
            let y = generator.nextDouble(in: -1...1)
            let vx = generator.nextDouble(in: -50...50)
            let vy = generator.nextDouble(in: -50...50)
            var writer = JSONLineWriter()
            writer.beginObject()
            writer.key("type")
            writer.string("offset")
            writer.key("seq")
            writer.uint(seq)
            writer.key("t")
            writer.int(t)
            writer.key("x")
            writer.fixed(x, decimals: 4)
            writer.key("y")
            writer.fixed(y, decimals: 4)
            writer.key("vx")
            writer.fixed(vx, decimals: 4)
            writer.key("vy")
            writer.fixed(vy, decimals: 4)
            writer.endObject()
            writer.endLine()
            #expect(ServerMessage.offset(seq: seq, t: t, x: x, y: y, vx: vx, vy: vy).encode() == writer.bytes)
        }
    }

    @Test(arguments: [
        "", "not json", "[]", #"{"no":"type"}"#, #"{"type":"mystery"}"#, #"{"type":"offset","seq":1}"#,
        #"{"type":"offset","seq":-1,"t":0,"x":0,"y":0}"#, #"{"type":"error","code":"new_code","message":"m"}"#,
        #"{"type":"state","sensor":"maybe","reduce_motion":false,"calibrated":true}"#, #"{"type":"hello"}"#,
    ])
    func unknownOrIncompleteLinesDecodeToNil(line: String) {
        #expect(ServerMessage.decode(line: Array(line.utf8)) == nil)
    }

    @Test func statusDecodingToleratesMissingFields() {
        let message = ServerMessage.decode(line: Array(#"{"type":"status","mode":"rate","future":1}"#.utf8))
        guard case .status(let report, let id) = message else {
            Issue.record("not a status: \(String(describing: message))")
            return
        }
        #expect(report.mode == "rate")
        #expect(report.sensors.isEmpty)
        #expect(report.sensor == .none)
        #expect(report.frame == nil)  // a server from before the frame field
        #expect(id == nil)
    }
}
