// The server decodes whatever a client sends. These feed random bytes and mutations of valid
// commands through the splitter, the reader and the request decoder: nothing may trap, and every
// accepted request must survive its own encoding.

import Testing

@testable import ParallaxProtocol

private let validLines: [[UInt8]] = [
    #"{"cmd":"subscribe","rate":60,"rotation":0,"id":"a1"}"#,
    #"{"cmd":"set","reduce_motion":true,"id":7}"#,
    #"{"cmd":"calibrate","seconds":5}"#,
    #"{"cmd":"status","id":null,"extra":[1,2.5e3,{"k":"\u00e9\ud83d\ude00"}]}"#,
    #"{"cmd":"recenter"}"#,
].map { Array($0.utf8) }

/// Bytes that steer mutations toward the interesting parts of the grammar.
private let grammarBytes: [UInt8] = Array("{}[]\":,\\u0123456789-+.eEtrufalsn ".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF]

private func mutate(_ line: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
    var bytes = line
    for _ in 0...generator.nextInt(below: 4) {
        let position = generator.nextInt(below: bytes.count + 1)
        let byte = generator.nextBool() ? grammarBytes[generator.nextInt(below: grammarBytes.count)] : generator.nextByte()
        switch generator.nextInt(below: 4) {
        case 0 where position < bytes.count: bytes[position] = byte
        case 1 where position < bytes.count: bytes.remove(at: position)
        case 2: bytes.insert(byte, at: position)
        default: bytes = Array(bytes.prefix(position))
        }
    }
    return bytes
}

/// Decodes one line the way the server will; checks what must hold for any input.
private func exercise(_ bytes: [UInt8]) {
    switch ClientRequest.decode(line: bytes) {
    case .success(let request):
        #expect(ClientRequest.decode(line: request.encode()) == .success(request))
    case .failure(let error):
        #expect(!error.message.isEmpty)
        #expect(error.id?.isScalar ?? true)
        let reply = ServerMessage.error(error).encode()
        #expect(ServerMessage.decode(line: reply) == .error(error))
    }
}

@Suite struct RobustnessTests {
    @Test func randomBytesNeverTrap() {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<10_000 {
            let count = generator.nextInt(below: 64)
            let bytes = (0..<count).map { _ in
                generator.nextBool() ? grammarBytes[generator.nextInt(below: grammarBytes.count)] : generator.nextByte()
            }
            exercise(bytes)
        }
    }

    @Test func mutatedCommandsNeverTrap() {
        var generator = SplitMix64(seed: 0xC0FFEE)
        var accepted = 0
        for round in 0..<10_000 {
            let bytes = mutate(validLines[round % validLines.count], &generator)
            if case .success = ClientRequest.decode(line: bytes) { accepted += 1 }
            exercise(bytes)
        }
        // Some mutations (inside unknown fields, ids or whitespace) keep a request valid; most break it.
        #expect(accepted > 0)
        #expect(accepted < 10_000)
    }

    @Test func randomStreamsSplitIntoBoundedLines() {
        var generator = SplitMix64(seed: 99)
        var splitter = LineSplitter(maxLineLength: 64)
        for _ in 0..<2_000 {
            let chunk = (0..<generator.nextInt(below: 200)).map { _ in
                generator.nextInt(below: 10) == 0 ? UInt8(ascii: "\n") : generator.nextByte()
            }
            for event in splitter.feed(chunk) {
                if case .line(let line) = event {
                    #expect(line.count <= 64)
                    #expect(!line.contains(UInt8(ascii: "\n")))
                    exercise(line)
                }
            }
            #expect(splitter.pendingCount <= 65)
        }
    }
}
