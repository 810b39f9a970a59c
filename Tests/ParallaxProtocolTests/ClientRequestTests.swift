// Every decoding rule of a client line (docs/protocol.md), each with the error code and the
// message a person will read, and the id echo that lets a client match replies.

import Testing

@testable import ParallaxProtocol

private func decode(_ text: String) -> Result<ClientRequest, ProtocolError> {
    ClientRequest.decode(line: Array(text.utf8))
}

private func request(_ text: String) -> ClientRequest? {
    try? decode(text).get()
}

private func failure(_ text: String) -> ProtocolError? {
    guard case .failure(let error) = decode(text) else { return nil }
    return error
}

@Suite struct ClientRequestTests {
    @Test func decodesEveryCommand() {
        #expect(request(#"{"cmd":"subscribe","rate":60,"rotation":90}"#)?.command == .subscribe(rate: 60, rotation: 90))
        #expect(request(#"{"cmd":"subscribe"}"#)?.command == .subscribe(rate: nil, rotation: nil))
        #expect(request(#"{"cmd":"subscribe","rate":12.5}"#)?.command == .subscribe(rate: 12.5, rotation: nil))
        #expect(request(#"{"cmd":"unsubscribe"}"#)?.command == .unsubscribe)
        #expect(request(#"{"cmd":"status"}"#)?.command == .status)
        #expect(request(#"{"cmd":"recenter"}"#)?.command == .recenter)
        #expect(request(#"{"cmd":"set","reduce_motion":true}"#)?.command == .setReduceMotion(true))
        #expect(request(#"{"cmd":"set","reduce_motion":false}"#)?.command == .setReduceMotion(false))
        #expect(request(#"{"cmd":"calibrate","seconds":5}"#)?.command == .calibrate(seconds: 5))
        #expect(request(#"{"cmd":"calibrate"}"#)?.command == .calibrate(seconds: nil))
    }

    @Test func acceptsLineEndsAndIgnoresUnknownFields() {
        #expect(request("{\"cmd\":\"status\",\"future\":[1,{\"x\":2}]}\r\n")?.command == .status)
    }

    @Test(arguments: [
        (#""abc""#, JSONValue.string("abc")), ("7", .number(7)), ("true", .bool(true)), ("null", .null),
        ("-1.5", .number(-1.5)),
    ])
    func keepsScalarIDs(idText: String, id: JSONValue) {
        #expect(request(#"{"cmd":"status","id":\#(idText)}"#)?.id == id)
    }

    @Test func hasNoIDWhenNoneWasSent() {
        #expect(request(#"{"cmd":"status"}"#)?.id == nil)
    }

    @Test(arguments: [#"{"cmd":"status","id":{}}"#, #"{"cmd":"status","id":[1]}"#])
    func rejectsContainerIDs(text: String) {
        let error = failure(text)
        #expect(error?.code == .badRequest)
        #expect(error?.message == "id must be a string, number, boolean or null")
        #expect(error?.id == nil)
    }

    @Test(arguments: ["not json", "{", "", #"{"cmd":"status"} x"#, #"{"cmd":"status","cmd":"recenter"}"#])
    func invalidJSONIsABadRequest(text: String) {
        let error = failure(text)
        #expect(error?.code == .badRequest)
        #expect(error?.message.hasPrefix("invalid JSON: ") == true)
    }

    @Test(arguments: ["[]", "1", #""status""#, "null"])
    func nonObjectsAreBadRequests(text: String) {
        #expect(failure(text) == ProtocolError(.badRequest, "a request must be a JSON object"))
    }

    @Test func cmdMustBeAString() {
        #expect(failure(#"{"id":3}"#) == ProtocolError(.badRequest, #"missing "cmd""#, id: .number(3)))
        #expect(failure(#"{"cmd":5,"id":"q"}"#) == ProtocolError(.badRequest, #""cmd" must be a string"#, id: .string("q")))
    }

    @Test func unknownCommandsEchoTheID() {
        #expect(
            failure(#"{"cmd":"no-such-command","id":9}"#)
                == ProtocolError(.unknownCommand, #"unknown command "no-such-command""#, id: .number(9)))
        #expect(failure(#"{"cmd":"Status"}"#)?.code == .unknownCommand)
    }

    @Test(arguments: ["0", "-1", #""60""#, "true", "null", "[]", "1e-400"])
    func subscribeRateMustBePositive(rate: String) {
        let error = failure(#"{"cmd":"subscribe","rate":\#(rate),"id":1}"#)
        #expect(error == ProtocolError(.badRequest, "rate must be a positive number (Hz)", id: .number(1)))
    }

    @Test(arguments: ["45", "360", "-90", "90.5", #""90""#, "null"])
    func subscribeRotationMustBeARightAngle(rotation: String) {
        let error = failure(#"{"cmd":"subscribe","rotation":\#(rotation)}"#)
        #expect(error == ProtocolError(.badRequest, "rotation must be 0, 90, 180 or 270"))
    }

    @Test(arguments: [0, 90, 180, 270])
    func subscribeAcceptsEachRotation(rotation: Int) {
        #expect(request(#"{"cmd":"subscribe","rotation":\#(rotation)}"#)?.command == .subscribe(rate: nil, rotation: rotation))
        #expect(request(#"{"cmd":"subscribe","rotation":\#(rotation).0}"#)?.command == .subscribe(rate: nil, rotation: rotation))
    }

    @Test(arguments: [#"{"cmd":"set"}"#, #"{"cmd":"set","reduce_motion":1}"#, #"{"cmd":"set","reduce_motion":"on"}"#])
    func setNeedsABoolean(text: String) {
        #expect(failure(text) == ProtocolError(.badRequest, #"set needs "reduce_motion": true or false"#))
    }

    @Test(arguments: ["0", "0.5", "121", "-5", #""5""#])
    func calibrateSecondsMustBeInRange(seconds: String) {
        let error = failure(#"{"cmd":"calibrate","seconds":\#(seconds)}"#)
        #expect(error == ProtocolError(.badRequest, "seconds must be a number from 1 to 120"))
    }

    @Test(arguments: [1.0, 120.0, 2.5])
    func calibrateAcceptsTheBounds(seconds: Double) {
        #expect(request(#"{"cmd":"calibrate","seconds":\#(seconds)}"#)?.command == .calibrate(seconds: seconds))
    }

    @Test func shortensLongUnknownCommandNames() {
        let name = String(repeating: "x", count: 500)
        let message = failure(#"{"cmd":"\#(name)"}"#)?.message ?? ""
        #expect(message.count < 100)
    }

    @Test(arguments: [
        ClientRequest(.subscribe(rate: 60, rotation: 0), id: .string("a1")),
        ClientRequest(.subscribe(rate: 12.5, rotation: nil)),
        ClientRequest(.subscribe(rate: nil, rotation: 270), id: .null),
        ClientRequest(.unsubscribe, id: .number(3)),
        ClientRequest(.status, id: .bool(false)),
        ClientRequest(.recenter),
        ClientRequest(.setReduceMotion(true), id: .string("x\"y")),
        ClientRequest(.calibrate(seconds: 5)),
        ClientRequest(.calibrate(seconds: nil)),
    ])
    func roundTrips(original: ClientRequest) {
        let line = original.encode()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        #expect(request(String(decoding: line, as: UTF8.self)) == original)
    }

    @Test func encodesTheDesignExample() {
        let line = ClientRequest(.subscribe(rate: 60, rotation: 0)).encode()
        #expect(String(decoding: line, as: UTF8.self) == "{\"cmd\":\"subscribe\",\"rate\":60,\"rotation\":0}\n")
    }

    @Test func marksControlCommandsPrivileged() {
        #expect(ClientCommand.recenter.requiresPrivilege)
        #expect(ClientCommand.setReduceMotion(true).requiresPrivilege)
        #expect(ClientCommand.calibrate(seconds: nil).requiresPrivilege)
        #expect(!ClientCommand.subscribe(rate: nil, rotation: nil).requiresPrivilege)
        #expect(!ClientCommand.status.requiresPrivilege)
    }
}
