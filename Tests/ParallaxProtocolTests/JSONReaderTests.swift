// The reader must accept exactly RFC 8259 JSON: these cover each grammar rule and each refusal.

import Testing

@testable import ParallaxProtocol

private func parse(_ text: String, maxDepth: Int = JSONReader.defaultMaxDepth) throws(JSONError) -> JSONValue {
    try JSONReader.parse(Array(text.utf8), maxDepth: maxDepth)
}

private func reason(_ bytes: [UInt8]) -> JSONError.Reason? {
    do {
        _ = try JSONReader.parse(bytes)
        return nil
    } catch {
        return error.reason
    }
}

private func reason(_ text: String) -> JSONError.Reason? { reason(Array(text.utf8)) }

@Suite struct JSONReaderTests {
    @Test func parsesScalarsAndContainers() throws {
        #expect(try parse("null") == .null)
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse(#""hi""#) == .string("hi"))
        #expect(try parse("[1, [], {}]") == .array([.number(1), .array([]), .object([:])]))
        let object = try parse(#"{"cmd":"subscribe","rate":60,"nested":{"a":[true,null]}}"#)
        #expect(object["cmd"]?.stringValue == "subscribe")
        #expect(object["rate"]?.intValue == 60)
        #expect(object["nested"]?["a"]?[0]?.boolValue == true)
        #expect(object["nested"]?["a"]?[1]?.isNull == true)
        #expect(object["missing"] == nil)
    }

    @Test(arguments: [
        ("0", 0.0), ("-0.5", -0.5), ("1e3", 1000.0), ("1E+3", 1000.0), ("1.0E-2", 0.01), ("123.456", 123.456),
        ("-12", -12.0), ("2.5e-3", 0.0025), ("1e-400", 0.0),
    ])
    func parsesNumbers(text: String, expected: Double) throws {
        #expect(try parse(text).doubleValue == expected)
    }

    @Test(arguments: ["01", "-01", ".5", "5.", "-", "+1", "1e", "1e+", "0x10", "1.e3", "--1"])
    func rejectsMalformedNumbers(text: String) {
        #expect(reason(text) != nil, "accepted \(text)")
    }

    @Test(arguments: ["NaN", "Infinity", "-Infinity", "nan", "inf"])
    func rejectsNonFiniteSpellings(text: String) {
        #expect(reason(text) != nil)
    }

    @Test func rejectsNumbersThatOverflow() {
        #expect(reason("1e400") == .numberOutOfRange)
        #expect(reason("-1e999") == .numberOutOfRange)
    }

    @Test func intValueNeedsAnIntegralNumber() throws {
        #expect(try parse("90.0").intValue == 90)
        #expect(try parse("90.5").intValue == nil)
        #expect(try parse("1e300").intValue == nil)
        #expect(try parse(#""90""#).intValue == nil)
    }

    @Test func decodesEscapes() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u20AC""#) == .string("é€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
    }

    @Test func passesValidUTF8Through() throws {
        #expect(try parse("\"é€😀\"") == .string("é€😀"))
    }

    @Test(arguments: [#""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\ud83d\n""#])
    func rejectsLoneSurrogates(text: String) {
        #expect(reason(text) == .loneSurrogate)
    }

    @Test(arguments: [#""\x""#, #""\U0041""#, #""\'""#])
    func rejectsUnknownEscapes(text: String) {
        #expect(reason(text) == .invalidEscape)
    }

    @Test(arguments: [#""\u12""#, #""\u12G4""#, #""\u""#])
    func rejectsShortOrNonHexUnicodeEscapes(text: String) {
        #expect(reason(text) == .invalidUnicodeEscape)
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],  // never valid
        [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
        [0x22, 0xE0, 0x80, 0x80, 0x22],  // overlong 3-byte
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate U+D800
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xC3, 0x22],  // truncated sequence
        [0x22, 0x80, 0x22],  // stray continuation
        [0x22, 0xE2, 0x82],  // truncated at end of input
    ] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(reason(bytes) == .invalidUTF8)
    }

    @Test func rejectsNonASCIIOutsideStrings() {
        #expect(reason([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .unexpectedByte(0xEF))
    }

    @Test func rejectsRawControlCharactersInStrings() {
        #expect(reason("\"a\tb\"") == .controlCharacterInString)
        #expect(reason("\"a\nb\"") == .controlCharacterInString)
        #expect(reason([0x22, 0x01, 0x22]) == .controlCharacterInString)
    }

    @Test func rejectsTrailingData() {
        #expect(reason("{} {}") == .trailingData)
        #expect(reason("1 2") == .trailingData)
        #expect(reason("truex") == .trailingData)
        #expect(reason("{}x") == .trailingData)
    }

    @Test(arguments: ["", "   ", "\n"])
    func rejectsEmptyInput(text: String) {
        #expect(reason(text) == .empty)
    }

    @Test(arguments: [
        "{", "[", "[1,", #"{"a""#, #"{"a":"#, #"{"a":1"#, #""abc"#, "tru", "nul",
    ])
    func rejectsTruncatedInput(text: String) {
        #expect(reason(text) == .unexpectedEnd)
    }

    @Test(arguments: ["[1,]", #"{"a":1,}"#, "{a:1}", "{'a':1}", #"{"a" 1}"#, "[1 2]", "[,1]", "TRUE", "undefined"])
    func rejectsSyntaxErrors(text: String) {
        #expect(reason(text) != nil, "accepted \(text)")
    }

    @Test func rejectsDuplicateKeys() {
        #expect(reason(#"{"cmd":"status","cmd":"recenter"}"#) == .duplicateKey("cmd"))
    }

    @Test func limitsNestingDepth() throws {
        let limit = 16
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try parse(deepest, maxDepth: limit) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(reason(tooDeep) == .tooDeep(limit: limit))
        #expect(throws: JSONError.self) { try parse("{\"a\":{\"b\":1}}", maxDepth: 1) }
    }

    @Test func survivesVeryDeepInput() {
        // Far beyond any stack: must fail cleanly at the limit, not recurse.
        let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 1_000_000)
        #expect(reason(hostile) == .tooDeep(limit: JSONReader.defaultMaxDepth))
    }

    @Test func reportsTheOffendingOffset() {
        do {
            _ = try JSONReader.parse(Array(#"{"a":01}"#.utf8))
            Issue.record("accepted a leading zero")
        } catch {
            #expect(error.offset == 5)
            #expect(error.description == "invalid number at byte 5")
        }
    }

    @Test func readsEveryKindOfCollection() throws {
        let text = #"{"x":[1,2]}"#
        let fromArray = try JSONReader.parse(Array(text.utf8))
        let fromSlice = try JSONReader.parse(Array(("  " + text).utf8)[2...])
        let fromView = try JSONReader.parse(text.utf8)
        let fromString = try JSONReader.parse(text)
        #expect(fromArray == fromSlice)
        #expect(fromArray == fromView)
        #expect(fromArray == fromString)
    }
}
