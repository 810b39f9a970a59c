// The writer's output must be JSON the reader (and any other parser) takes back unchanged, and its
// fixed-point numbers must follow the offset format: no "-0", no exponent, trailing zeros dropped.

import Testing

@testable import ParallaxProtocol

private func fixed(_ value: Double, _ decimals: Int) -> String {
    var writer = JSONLineWriter()
    writer.fixed(value, decimals: decimals)
    return String(decoding: writer.bytes, as: UTF8.self)
}

private func quoted(_ text: String) -> String {
    var writer = JSONLineWriter()
    writer.string(text)
    return String(decoding: writer.bytes, as: UTF8.self)
}

@Suite struct JSONLineWriterTests {
    @Test(arguments: [
        (0.1234, "0.1234"), (-0.0456, "-0.0456"), (0.0, "0"), (1.0, "1"), (-1.0, "-1"), (0.5, "0.5"),
        (0.12345, "0.1235"), (0.99996, "1"), (-0.99996, "-1"), (0.00005, "0.0001"), (-0.00006, "-0.0001"),
        (-0.00004, "0"), (-0.0, "0"), (12.3, "12.3"), (0.0001, "0.0001"), (-0.1, "-0.1"),
    ])
    func writesFourDecimals(value: Double, expected: String) {
        #expect(fixed(value, 4) == expected)
    }

    @Test func neverWritesNegativeZeroOrExponents() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let value = generator.nextDouble(in: -2...2) * (generator.nextBool() ? 1e-5 : 1)
            let text = fixed(value, 4)
            #expect(text != "-0")
            #expect(!text.contains("e") && !text.contains("E"))
            // The written number is the value rounded to 4 places.
            let back = Double(text) ?? .nan
            #expect(abs(back - value) <= 0.00005 + 1e-12, "\(value) written as \(text)")
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func writesNonFiniteAsZero(value: Double) {
        #expect(fixed(value, 4) == "0")
        var writer = JSONLineWriter()
        writer.number(value)
        #expect(writer.bytes == Array("0".utf8))
    }

    @Test func clampsDecimals() {
        #expect(fixed(1.23456789012, 20) == "1.23456789")
        #expect(fixed(2.6, -3) == "3")
        #expect(fixed(1e30, 4) == "100000000000000")
    }

    @Test func writesNumbersExactly() {
        var writer = JSONLineWriter()
        writer.beginArray()
        for value in [60.0, -3.0, 0.1, 2.5e-7, 1e300, -0.0] { writer.number(value) }
        writer.endArray()
        let parsed = try? JSONReader.parse(writer.bytes)
        #expect(parsed == .array([.number(60), .number(-3), .number(0.1), .number(2.5e-7), .number(1e300), .number(0)]))
        #expect(String(decoding: writer.bytes, as: UTF8.self).hasPrefix("[60,-3,0.1,"))
    }

    @Test func writesIntegerExtremes() throws {
        var writer = JSONLineWriter()
        writer.beginArray()
        writer.int(Int64.min)
        writer.int(Int64.max)
        writer.uint(UInt64.max)
        writer.int(0)
        writer.endArray()
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == "[-9223372036854775808,9223372036854775807,18446744073709551615,0]")
    }

    @Test func escapesStrings() throws {
        #expect(quoted("plain") == #""plain""#)
        #expect(quoted("a\"b\\c") == #""a\"b\\c""#)
        #expect(quoted("line\nbreak\r\ttab") == #""line\nbreak\r\ttab""#)
        #expect(quoted("\u{1}\u{1F}\u{7F}") == #""\u0001\u001f\u007f""#)
        #expect(quoted("é😀/") == "\"é😀/\"")
    }

    @Test func escapedStringsReadBackUnchanged() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let scalars = (0..<generator.nextInt(below: 12)).map { _ in generator.nextScalar() }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(try JSONReader.parse(Array(quoted(text).utf8)) == .string(text))
        }
    }

    @Test func insertsCommasAndNests() throws {
        var writer = JSONLineWriter()
        writer.beginObject()
        writer.key("a")
        writer.int(1)
        writer.key("b")
        writer.beginArray()
        writer.bool(true)
        writer.null()
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        writer.key("c")
        writer.string("x")
        writer.endObject()
        writer.endLine()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "{\"a\":1,\"b\":[true,null,{}],\"c\":\"x\"}\n")
    }

    @Test func echoesAnyValue() throws {
        let value = JSONValue.object([
            "s": .string("q\""), "n": .number(-7), "list": .array([.null, .bool(false)]), "o": .object([:]),
        ])
        var writer = JSONLineWriter()
        writer.value(value)
        #expect(try JSONReader.parse(writer.bytes) == value)
    }

    @Test func resetKeepsNothingButCapacity() {
        var writer = JSONLineWriter()
        writer.beginArray()
        writer.int(1)
        writer.reset()
        writer.int(2)
        #expect(writer.bytes == Array("2".utf8))
    }
}
