// A strict RFC 8259 reader for the small objects of protocol v1. Clients are untrusted, so it
// accepts nothing a strict reader would refuse (invalid UTF-8, lone surrogates, leading zeros,
// NaN, trailing data, raw control characters in strings, duplicate keys), bounds nesting so that
// recursion stays shallow, and reports errors instead of trapping on any input.

/// Parses one JSON text into a `JSONValue`.
public enum JSONReader {
    /// Default nesting limit (levels of arrays and objects). Protocol v1 needs 3.
    public static let defaultMaxDepth = 16

    /// Parses `bytes` as one complete JSON text (surrounding whitespace allowed).
    /// - Parameters:
    ///   - bytes: the UTF-8 text, without a byte-order mark.
    ///   - maxDepth: most levels of nested arrays/objects accepted (default 16, levels). Each level
    ///     costs one stack frame, so keep it small for untrusted input.
    public static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth) throws(JSONError)
        -> JSONValue
    {
        var parser = Parser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses any byte collection (arrays and slices are read in place, others are copied once).
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes, maxDepth: Int = defaultMaxDepth)
        throws(JSONError) -> JSONValue
    {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
            }
        }
        if let inPlace { return try inPlace.get() }
        let copy = Array(bytes)
        let copied = copy.withUnsafeBytes { buffer in
            Result { () throws(JSONError) -> JSONValue in try parse(buffer, maxDepth: maxDepth) }
        }
        return try copied.get()
    }

    /// Parses a Swift string's UTF-8.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

// ASCII bytes the grammar is written in.
private enum Byte {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let colon = UInt8(ascii: ":")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let one = UInt8(ascii: "1")
    static let nine = UInt8(ascii: "9")
    static let lowerE = UInt8(ascii: "e")
    static let upperE = UInt8(ascii: "E")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    /// Bytes below this are control characters that must be escaped inside strings.
    static let firstPrintable: UInt8 = 0x20
    /// Bytes from here on start multi-byte UTF-8 sequences (or are invalid).
    static let firstNonASCII: UInt8 = 0x80
}

// UTF-16 surrogate ranges, for pairing \uD83D\uDE00-style escapes.
private let highSurrogates: ClosedRange<UInt32> = 0xD800...0xDBFF
private let lowSurrogates: ClosedRange<UInt32> = 0xDC00...0xDFFF

/// Recursive-descent parser over a byte buffer; `index` is the next unread byte.
private struct Parser {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: document and values

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw JSONError(.empty, at: index) }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw JSONError(.trailingData, at: index) }
        return value
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        let byte = bytes[index]
        switch byte {
        case Byte.openBrace: return try parseObject()
        case Byte.openBracket: return try parseArray()
        case Byte.quote: return .string(try parseString())
        case Byte.minus, Byte.zero...Byte.nine: return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw JSONError(.unexpectedByte(byte), at: index)
        }
    }

    // MARK: containers

    /// Enters one nesting level, refusing to go past `maxDepth` (bounds recursion on hostile input).
    mutating func enterContainer() throws(JSONError) {
        guard depth < maxDepth else { throw JSONError(.tooDeep(limit: maxDepth), at: index) }
        depth += 1
        index += 1
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try peek() == Byte.closeBrace {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard try peek() == Byte.quote else { throw JSONError(.unexpectedByte(bytes[index]), at: index) }
            let key = try parseString()
            skipWhitespace()
            try expect(Byte.colon)
            skipWhitespace()
            let value = try parseValue()
            // Duplicate names make a request ambiguous (which "cmd" wins?), so refuse them.
            if members.updateValue(value, forKey: key) != nil {
                throw JSONError(.duplicateKey(key), at: keyOffset)
            }
            skipWhitespace()
            let separator = try next()
            if separator == Byte.comma { continue }
            if separator == Byte.closeBrace { return .object(members) }
            throw JSONError(.unexpectedByte(separator), at: index - 1)
        }
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == Byte.closeBracket {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            let separator = try next()
            if separator == Byte.comma { continue }
            if separator == Byte.closeBracket { return .array(elements) }
            throw JSONError(.unexpectedByte(separator), at: index - 1)
        }
    }

    // MARK: strings

    /// Reads a string starting at its opening quote. Unescaped runs are validated as UTF-8 and
    /// copied once; escapes are decoded into a scratch buffer only when there are any.
    mutating func parseString() throws(JSONError) -> String {
        index += 1
        var decoded: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            if byte == Byte.quote {
                let run = UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if decoded.isEmpty { return String(decoding: run, as: UTF8.self) }
                decoded.append(contentsOf: run)
                return String(decoding: decoded, as: UTF8.self)
            } else if byte == Byte.backslash {
                decoded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape(into: &decoded)
                runStart = index
            } else if byte < Byte.firstPrintable {
                throw JSONError(.controlCharacterInString, at: index)
            } else if byte < Byte.firstNonASCII {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
    }

    /// Decodes one escape starting at its backslash and appends its UTF-8 to `output`.
    mutating func parseEscape(into output: inout [UInt8]) throws(JSONError) {
        let escapeOffset = index
        index += 1
        let letter = try next()
        switch letter {
        case Byte.quote, Byte.backslash, Byte.slash: output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(Byte.lineFeed)
        case UInt8(ascii: "r"): output.append(Byte.carriageReturn)
        case UInt8(ascii: "t"): output.append(Byte.tab)
        case UInt8(ascii: "u"):
            var code = try readHex4()
            if highSurrogates.contains(code) {
                // A high surrogate must be followed at once by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == Byte.backslash,
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONError(.loneSurrogate, at: escapeOffset) }
                index += 2
                let low = try readHex4()
                guard lowSurrogates.contains(low) else { throw JSONError(.loneSurrogate, at: escapeOffset) }
                code = 0x10000 + ((code - highSurrogates.lowerBound) << 10) + (low - lowSurrogates.lowerBound)
            } else if lowSurrogates.contains(code) {
                throw JSONError(.loneSurrogate, at: escapeOffset)
            }
            guard let scalar = Unicode.Scalar(code) else { throw JSONError(.invalidUnicodeEscape, at: escapeOffset) }
            UTF8.encode(scalar) { output.append($0) }
        default:
            throw JSONError(.invalidEscape, at: escapeOffset)
        }
    }

    /// Reads the four hex digits of a \u escape.
    mutating func readHex4() throws(JSONError) -> UInt32 {
        let start = index
        guard index + 4 <= bytes.count else { throw JSONError(.invalidUnicodeEscape, at: start) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case Byte.zero...Byte.nine: digit = byte - Byte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidUnicodeEscape, at: start)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence at `index` (RFC 3629 table 3: no overlong forms,
    /// no encoded surrogates, nothing above U+10FFFF) and steps over it.
    mutating func skipUTF8Sequence() throws(JSONError) {
        let start = index
        let lead = bytes[index]
        // Continuation bytes needed, and the allowed range of the first one (the rest are 80...BF).
        let continuations: Int
        let firstRange: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: (continuations, firstRange) = (1, 0x80...0xBF)
        case 0xE0: (continuations, firstRange) = (2, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (continuations, firstRange) = (2, 0x80...0xBF)
        case 0xED: (continuations, firstRange) = (2, 0x80...0x9F)
        case 0xF0: (continuations, firstRange) = (3, 0x90...0xBF)
        case 0xF1...0xF3: (continuations, firstRange) = (3, 0x80...0xBF)
        case 0xF4: (continuations, firstRange) = (3, 0x80...0x8F)
        default: throw JSONError(.invalidUTF8, at: start)
        }
        guard index + continuations < bytes.count else { throw JSONError(.invalidUTF8, at: start) }
        guard firstRange.contains(bytes[index + 1]) else { throw JSONError(.invalidUTF8, at: start) }
        var offset = 2
        while offset <= continuations {
            guard (0x80...0xBF).contains(bytes[index + offset]) else { throw JSONError(.invalidUTF8, at: start) }
            offset += 1
        }
        index += continuations + 1
    }

    // MARK: numbers

    /// Checks the RFC 8259 number grammar, then converts the token with `Double(String)`, which
    /// ignores the C locale (a German LC_NUMERIC cannot turn "0.5" into 0).
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if bytes[index] == Byte.minus { index += 1 }
        guard index < bytes.count else { throw JSONError(.invalidNumber, at: start) }
        let first = bytes[index]
        if first == Byte.zero {
            index += 1
            // "01" is not JSON: a leading zero stands alone.
            if index < bytes.count, isDigit(bytes[index]) { throw JSONError(.invalidNumber, at: start) }
        } else if first >= Byte.one && first <= Byte.nine {
            skipDigits()
        } else {
            throw JSONError(.invalidNumber, at: start)
        }
        if index < bytes.count, bytes[index] == Byte.dot {
            index += 1
            guard skipDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
        }
        if index < bytes.count, bytes[index] == Byte.lowerE || bytes[index] == Byte.upperE {
            index += 1
            if index < bytes.count, bytes[index] == Byte.plus || bytes[index] == Byte.minus { index += 1 }
            guard skipDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
        }
        let token = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(token), value.isFinite else { throw JSONError(.numberOutOfRange, at: start) }
        return .number(value)
    }

    /// Steps over ASCII digits; returns how many there were.
    @discardableResult
    mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        return index - start
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= Byte.zero && byte <= Byte.nine }

    // MARK: small steps

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case Byte.space, Byte.tab, Byte.lineFeed, Byte.carriageReturn: index += 1
            default: return
            }
        }
    }

    func peek() throws(JSONError) -> UInt8 {
        guard index < bytes.count else { throw JSONError(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    mutating func next() throws(JSONError) -> UInt8 {
        let byte = try peek()
        index += 1
        return byte
    }

    mutating func expect(_ expected: UInt8) throws(JSONError) {
        let byte = try peek()
        guard byte == expected else { throw JSONError(.unexpectedByte(byte), at: index) }
        index += 1
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for expected in text {
            try expect(expected)
        }
    }
}
