// The shared wire cases' client lines (Tests/protocol/wire-cases.json) through ClientRequest.decode,
// the daemon's parser: each gives its command (with its fields and id) or its error code.

import ParallaxProtocol
import Testing

@Suite struct WireCaseClientLineTests {
    static let cases = WireCase.load("client", kit: "parallaxd")

    @Test func theFileHasTheClientCases() {
        #expect(Self.cases.count >= 25)
    }

    @Test(arguments: cases) func clientLine(_ wire: WireCase) throws {
        let decoded = ClientRequest.decode(line: wire.line)
        if let code = wire.expect["error"]?.stringValue {
            guard case .failure(let error) = decoded else {
                Issue.record("\(wire.name): decoded as \(decoded), expected the error \(code)")
                return
            }
            #expect(error.code.rawValue == code, "\(wire.name)")
            return
        }
        let fields = try #require(wire.expect["request"], "\(wire.name): no request in the case")
        guard case .success(let request) = decoded else {
            Issue.record("\(wire.name): refused (\(decoded)), expected \(fields)")
            return
        }
        #expect(request.command == Self.command(fields), "\(wire.name)")
        #expect(request.id == fields["id"], "\(wire.name)")
    }

    /// The command a case's "request" describes.
    static func command(_ fields: JSONValue) -> ClientCommand? {
        switch fields["cmd"]?.stringValue {
        case "subscribe":
            return .subscribe(rate: fields["rate"]?.doubleValue, rotation: fields["rotation"]?.intValue,
                              heading: fields["heading"]?.boolValue)
        case "unsubscribe": return .unsubscribe
        case "status": return .status
        case "recenter": return .recenter
        case "set": return fields["reduce_motion"]?.boolValue.map { .setReduceMotion($0) }
        case "calibrate": return .calibrate(seconds: fields["seconds"]?.doubleValue)
        default: return nil
        }
    }
}
