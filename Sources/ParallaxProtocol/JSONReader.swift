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
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
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
enum JSONByte {
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

/// Recursive-descent parser over a byte buffer; `index` is the next unread byte.
struct JSONParser {
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
        case JSONByte.openBrace: return try parseObject()
        case JSONByte.openBracket: return try parseArray()
        case JSONByte.quote: return .string(try parseString())
        case JSONByte.minus, JSONByte.zero...JSONByte.nine: return try parseNumber()
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
        if try peek() == JSONByte.closeBrace {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard try peek() == JSONByte.quote else { throw JSONError(.unexpectedByte(bytes[index]), at: index) }
            let key = try parseString()
            skipWhitespace()
            try expect(JSONByte.colon)
            skipWhitespace()
            let value = try parseValue()
            // Duplicate names make a request ambiguous (which "cmd" wins?), so refuse them.
            if members.updateValue(value, forKey: key) != nil {
                throw JSONError(.duplicateKey(key), at: keyOffset)
            }
            skipWhitespace()
            let separator = try next()
            if separator == JSONByte.comma { continue }
            if separator == JSONByte.closeBrace { return .object(members) }
            throw JSONError(.unexpectedByte(separator), at: index - 1)
        }
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == JSONByte.closeBracket {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            let separator = try next()
            if separator == JSONByte.comma { continue }
            if separator == JSONByte.closeBracket { return .array(elements) }
            throw JSONError(.unexpectedByte(separator), at: index - 1)
        }
    }

    // MARK: small steps

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case JSONByte.space, JSONByte.tab, JSONByte.lineFeed, JSONByte.carriageReturn: index += 1
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
