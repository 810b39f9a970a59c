// The server cuts every client's stream with LineSplitter: lines split across reads, several in one
// read, CRLF, and over-long lines reported once and skipped without buffering them.

import Testing

@testable import ParallaxProtocol

private func lines(_ texts: [String]) -> [LineSplitter.Event] {
    texts.map { .line(Array($0.utf8)) }
}

@Suite struct LineSplitterTests {
    @Test func splitsSeveralLinesInOneFeed() {
        var splitter = LineSplitter()
        #expect(splitter.feed(Array("a\nbc\n\nd".utf8)) == lines(["a", "bc"]))
        #expect(splitter.pendingCount == 1)
        #expect(splitter.feed(Array("e\n".utf8)) == lines(["de"]))
        #expect(splitter.pendingCount == 0)
    }

    @Test func joinsLinesFedByteByByte() {
        var splitter = LineSplitter()
        var events: [LineSplitter.Event] = []
        for byte in "{\"cmd\":\"status\"}\r\n{\"cmd\":\"recenter\"}\n".utf8 {
            events += splitter.feed([byte])
        }
        #expect(events == lines([#"{"cmd":"status"}"#, #"{"cmd":"recenter"}"#]))
    }

    @Test func stripsOneCarriageReturn() {
        var splitter = LineSplitter()
        #expect(splitter.feed(Array("a\r\nb\r\r\n\r\n".utf8)) == lines(["a", "b\r"]))
    }

    @Test func acceptsALineOfExactlyTheLimit() {
        var splitter = LineSplitter(maxLineLength: 8)
        #expect(splitter.feed(Array("12345678\n".utf8)) == lines(["12345678"]))
        #expect(splitter.feed(Array("12345678\r\n".utf8)) == lines(["12345678"]))
    }

    @Test func reportsALineOneByteTooLong() {
        var splitter = LineSplitter(maxLineLength: 8)
        #expect(splitter.feed(Array("123456789\nok\n".utf8)) == [.tooLong] + lines(["ok"]))
        #expect(splitter.feed(Array("123456789\r\nok\n".utf8)) == [.tooLong] + lines(["ok"]))
    }

    @Test func reportsAnEndlessLineOnceWithoutBufferingIt() {
        var splitter = LineSplitter(maxLineLength: 16)
        var events: [LineSplitter.Event] = []
        for _ in 0..<1_000 {
            events += splitter.feed([UInt8](repeating: UInt8(ascii: "x"), count: 100))
            #expect(splitter.pendingCount <= 17)
        }
        #expect(events == [.tooLong])
        events += splitter.feed(Array("xx\n{\"cmd\":\"status\"}\n".utf8))
        #expect(events == [.tooLong] + lines([#"{"cmd":"status"}"#]))
    }

    @Test func reportsTooLongAsSoonAsTheLimitIsPassed() {
        var splitter = LineSplitter(maxLineLength: 4)
        #expect(splitter.feed(Array("12345".utf8)).isEmpty)  // could still be "1234\r" + "\n"
        #expect(splitter.feed(Array("6".utf8)) == [.tooLong])
        #expect(splitter.feed(Array("78\nab\n".utf8)) == lines(["ab"]))
    }

    @Test func usesTheProtocolLimitByDefault() {
        var splitter = LineSplitter()
        let longest = [UInt8](repeating: UInt8(ascii: "a"), count: ProtocolConstants.maxLineLength)
        #expect(splitter.feed(longest + [UInt8(ascii: "\n")]) == [.line(longest)])
        #expect(splitter.feed(longest + [UInt8(ascii: "a"), UInt8(ascii: "\n")]) == [.tooLong])
    }

    @Test func tooLongHasAReadyReply() {
        #expect(
            String(decoding: ServerMessage.error(.lineTooLong).encode(), as: UTF8.self)
                == #"{"type":"error","code":"too_long","message":"line longer than 1024 bytes"}"# + "\n")
    }

    @Test func handlerCanStopTheFeedByThrowing() {
        struct Stop: Error {}
        var splitter = LineSplitter()
        var seen = 0
        #expect(throws: Stop.self) {
            try splitter.feed(Array("a\nb\nc\n".utf8)) { (_: LineSplitter.Event) throws(Stop) in
                seen += 1
                if seen == 2 { throw Stop() }
            }
        }
        #expect(seen == 2)
    }

    @Test func resetDropsAPartialLine() {
        var splitter = LineSplitter()
        _ = splitter.feed(Array("partial".utf8))
        splitter.reset()
        #expect(splitter.feed(Array("x\n".utf8)) == lines(["x"]))
    }
}
