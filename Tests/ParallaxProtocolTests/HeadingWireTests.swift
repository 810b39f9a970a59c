// The heading on the wire (docs/protocol.md "Heading"): opt-in on subscribe, echoed in
// `subscribed` and `state` only for those who asked, yaw and vyaw at the end of the offset line,
// and protocol v1's lines byte for byte unchanged without it.

import Testing

@testable import ParallaxProtocol

private func text(_ message: ServerMessage) -> String {
    String(decoding: message.encode(), as: UTF8.self)
}

private func decode(_ text: String) -> Result<ClientRequest, ProtocolError> {
    ClientRequest.decode(line: Array(text.utf8))
}

@Suite struct HeadingWireTests {
    @Test func subscribeTakesAnOptionalBooleanHeading() throws {
        #expect(try decode(#"{"cmd":"subscribe","rate":60,"heading":true}"#).get().command
            == .subscribe(rate: 60, rotation: nil, heading: true))
        #expect(try decode(#"{"cmd":"subscribe","heading":false}"#).get().command
            == .subscribe(rate: nil, rotation: nil, heading: false))
        #expect(try decode(#"{"cmd":"subscribe"}"#).get().command == .subscribe(rate: nil, rotation: nil, heading: nil))
        for bad in [#""yes""#, "1", "null", "[true]"] {
            guard case .failure(let error) = decode(#"{"cmd":"subscribe","heading":\#(bad),"id":4}"#) else {
                Issue.record("heading \(bad) was accepted")
                continue
            }
            #expect(error.code == .badRequest && error.message == "heading must be true or false" && error.id == .number(4))
        }
    }

    @Test func theSubscribeLineCarriesHeadingOnlyWhenNamed() {
        #expect(String(decoding: ClientRequest(.subscribe(rate: 60, rotation: 0)).encode(), as: UTF8.self)
            == #"{"cmd":"subscribe","rate":60,"rotation":0}"# + "\n")
        #expect(String(decoding: ClientRequest(.subscribe(rate: 60, rotation: 0, heading: true)).encode(), as: UTF8.self)
            == #"{"cmd":"subscribe","rate":60,"rotation":0,"heading":true}"# + "\n")
    }

    @Test func repliesEchoHeadingOnlyWhenAsked() {
        #expect(text(.subscribed(rate: 60, rotation: 0, id: nil)) == #"{"type":"subscribed","rate":60,"rotation":0}"# + "\n")
        #expect(text(.subscribed(rate: 60, rotation: 90, heading: true, id: .number(1)))
            == #"{"type":"subscribed","rate":60,"rotation":90,"heading":true,"id":1}"# + "\n")
        #expect(text(.subscribed(rate: 60, rotation: 0, heading: false, id: nil))
            == #"{"type":"subscribed","rate":60,"rotation":0,"heading":false}"# + "\n")
        #expect(text(.state(sensor: .ok, reduceMotion: false, calibrated: true))
            == #"{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true}"# + "\n")
        #expect(text(.state(sensor: .lost, reduceMotion: false, calibrated: false, heading: false))
            == #"{"type":"state","sensor":"lost","reduce_motion":false,"calibrated":false,"heading":false}"# + "\n")
    }

    @Test func offsetLinesAppendYawAndVyaw() {
        #expect(text(.offset(seq: 7, t: 5, x: 0.1234, y: -0.0456, vx: 0.21, vy: -0.05))
            == #"{"type":"offset","seq":7,"t":5,"x":0.1234,"y":-0.0456,"vx":0.21,"vy":-0.05}"# + "\n")
        #expect(text(.offset(seq: 7, t: 5, x: 0.1234, y: -0.0456, vx: 0.21, vy: -0.05,
                             heading: OffsetHeading(yaw: -0.523598, vyaw: 1.5)))
            == #"{"type":"offset","seq":7,"t":5,"x":0.1234,"y":-0.0456,"vx":0.21,"vy":-0.05,"yaw":-0.5236,"vyaw":1.5}"# + "\n")
        #expect(text(.offset(seq: 1, t: 0, x: 0, y: 0, vx: 0, vy: 0, heading: .zero))
            == #"{"type":"offset","seq":1,"t":0,"x":0,"y":0,"vx":0,"vy":0,"yaw":0,"vyaw":0}"# + "\n")
        // Never NaN, never outside the turn, never longer than the buffer's capacity.
        let wild = ServerMessage.offset(seq: .max, t: .min, x: -1, y: -1, vx: -1e300, vy: .nan,
                                        heading: OffsetHeading(yaw: .infinity, vyaw: -1e300)).encode()
        #expect(String(decoding: wild, as: UTF8.self).hasSuffix(#","yaw":0,"vyaw":-9999}"# + "\n"))
        #expect(wild.count <= ServerMessage.offsetLineCapacity)
        #expect(text(.offset(seq: 1, t: 0, x: 0, y: 0, vx: 0, vy: 0, heading: OffsetHeading(yaw: 7, vyaw: 0)))
            .contains(#""yaw":0.7168"#))  // 7 − 2π
    }

    @Test func wrapsIntoTheHalfOpenTurn() {
        #expect(OffsetHeading.wrapped(Double.pi) == Double.pi)
        #expect(OffsetHeading.wrapped(-Double.pi) == Double.pi)
        #expect(abs(OffsetHeading.wrapped(3 * Double.pi / 2) - -Double.pi / 2) < 1e-12)
        #expect(abs(OffsetHeading.wrapped(-5 * Double.pi) - Double.pi) < 1e-9)
        #expect(OffsetHeading.wrapped(.nan) == 0 && OffsetHeading.wrapped(-.infinity) == 0)
        for k in -50...50 {
            let a = OffsetHeading.wrapped(Double(k) * 0.37)
            #expect(a > -Double.pi && a <= Double.pi)
        }
    }

    @Test func clientsDecodeWhatTheServerWrites() {
        let heading = ServerMessage.offset(seq: 2, t: 9, x: 0.5, y: 0, vx: 0, vy: 0, heading: OffsetHeading(yaw: 1.25, vyaw: -0.5))
        #expect(ServerMessage.decode(line: heading.encode()) == heading)
        let plain = ServerMessage.offset(seq: 2, t: 9, x: 0.5, y: 0, vx: 0, vy: 0)
        #expect(ServerMessage.decode(line: plain.encode()) == plain)
        for message in [ServerMessage.subscribed(rate: 30, rotation: 0, heading: true, id: nil),
                        .state(sensor: .none, reduceMotion: true, calibrated: false, heading: false)] {
            #expect(ServerMessage.decode(line: message.encode()) == message)
        }
    }
}
