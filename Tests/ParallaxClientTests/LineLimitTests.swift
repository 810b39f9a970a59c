// One server line limit in every client kit (docs/decisions.md, "One server line limit"): a line
// of exactly the limit is read, one byte more is dropped up to its newline and the connection
// stays up. The same boundary is tested for libparallax and the Python module.

import ParallaxClient
import Testing

@Suite struct LineLimitTests {
    /// The limit the three kits share (bytes without "\n").
    static let sharedLimit = 65_536

    /// A valid offset frame of exactly `length` bytes (without "\n"), padded by an unknown field.
    static func paddedOffset(seq: UInt64, x: Double, length: Int) -> String {
        let head = String(offsetLine(seq: seq, x: x, y: 0).dropLast(2)) + #","pad":""#
        let line = head + String(repeating: "p", count: length - head.utf8.count - 2) + #""}"#
        precondition(line.utf8.count == length)
        return line + "\n"
    }

    @Test func theLimitIsTheOneAllKitsShare() {
        #expect(ParallaxSubscriber.maximumLineLength == Self.sharedLimit)
    }

    @Test func aLineAtTheLimitIsReadAndOneByteMoreIsDropped() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = connection.handshake(pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })
        connection.send(Self.paddedOffset(seq: 2, x: 0.5, length: Self.sharedLimit), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 2 })
        let ignoredBefore = subscriber.ignoredLines
        connection.send(
            Self.paddedOffset(seq: 3, x: -0.5, length: Self.sharedLimit + 1) + offsetLine(seq: 4, x: 0.75, y: 0),
            pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 4 })
        #expect(subscriber.ignoredLines == ignoredBefore + 1 && subscriber.state.connected)
    }
}
