// The shared wire cases' server lines (Tests/protocol/wire-cases.json) through the Swift kit, as
// ParallaxSubscriber reads them while subscribed, from a fake daemon: before each case an anchor
// offset and an "all well" state, then the case's line; the subscriber then holds the case's
// offset, or still the anchor (the line counted as ignored), or the case's state.

import ParallaxClient
import ParallaxProtocol
import Testing

@Suite struct WireCaseServerLineTests {
    @Test func serverLines() throws {
        let cases = WireCase.load("server", kit: "swift")
        #expect(cases.count > 30)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = connection.handshake(pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })
        let allWell = #"{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true}"# + "\n"
        for (index, wire) in cases.enumerated() {
            let anchor = UInt64(100_000 + index)
            connection.send(allWell + offsetLine(seq: anchor, x: 0.125, y: -0.125), pumping: subscriber)
            try #require(pump(subscriber) { subscriber.offset?.seq == anchor && subscriber.state.sensor == .ok
                && !subscriber.state.reduceMotion }, "\(wire.name): the anchor")
            let ignored = subscriber.ignoredLines
            let before = subscriber.state
            // A state line that leaves the state as it was is only seen read once a later line is:
            // an offset with its own seq follows it.
            let after = anchor + 50_000
            let follower: [UInt8] = wire.expect["state"] != nil ? Array(offsetLine(seq: after, x: 0.125, y: -0.125).utf8) : []
            connection.send(bytes: wire.line + [0x0A] + follower, pumping: subscriber)
            let read = pump(subscriber) {
                follower.isEmpty
                    ? subscriber.offset?.seq != anchor || subscriber.state != before || subscriber.ignoredLines > ignored
                    : subscriber.offset?.seq == after
            }
            #expect(read, "\(wire.name): the line was never read")
            if case .object(let e)? = wire.expect["offset"] {
                let expected = ParallaxOffset(
                    x: e["x"]?.doubleValue ?? .nan, y: e["y"]?.doubleValue ?? .nan, vx: e["vx"]?.doubleValue ?? .nan,
                    vy: e["vy"]?.doubleValue ?? .nan, t: Int64(e["t"]?.doubleValue ?? 0), seq: UInt64(e["seq"]?.doubleValue ?? 0))
                #expect(subscriber.offset == expected, "\(wire.name)")
            } else if case .object(let e)? = wire.expect["state"] {
                #expect(subscriber.ignoredLines == ignored, "\(wire.name)")
                #expect(subscriber.state.reduceMotion == e["reduce_motion"]?.boolValue, "\(wire.name)")
                let sensor = e["sensor"]?.stringValue
                #expect((subscriber.state.sensor == .ok) == (sensor == "ok"), "\(wire.name)")
                if sensor == "lost" { #expect(subscriber.state.sensor == .lost, "\(wire.name)") }
            } else {
                #expect(wire.expect["ignored"]?.boolValue == true, "\(wire.name): an expectation this test does not know")
                #expect(subscriber.offset?.seq == anchor && subscriber.state == before, "\(wire.name): taken")
                #expect(subscriber.ignoredLines == ignored + 1, "\(wire.name)")
            }
        }
    }
}
