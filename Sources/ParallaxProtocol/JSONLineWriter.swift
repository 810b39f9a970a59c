// Builds one JSON line straight into bytes. The server writes an offset line per subscriber many
// times a second, so numbers are formatted with integer arithmetic (no String, no locale, no
// exponent) and separators are tracked with one flag instead of a container stack.

/// Appends JSON tokens to a byte buffer; call `endLine()` to finish with "\n".
///
/// Commas are inserted automatically: after a complete value, the next key or array element gets
/// one. The caller is responsible for balancing `beginObject`/`endObject` and pairing keys with values.
public struct JSONLineWriter: Sendable {
    /// The line written so far.
    public private(set) var bytes: [UInt8]
    /// True when the previous token completed a value, so the next key or element needs a comma.
    private var needsComma = false

    /// - Parameter capacity: bytes reserved up front (default 128, bytes; an offset line is ~70).
    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Starts over, keeping the buffer's capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    // MARK: structure

    public mutating func beginObject() {
        separateValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separateValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":`; the next call must write its value.
    public mutating func key(_ name: String) {
        separateValue()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Ends the line with "\n".
    public mutating func endLine() {
        bytes.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    // MARK: values

    public mutating func string(_ value: String) {
        separateValue()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separateValue()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude)
        needsComma = true
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func uint(_ value: UInt64) {
        separateValue()
        appendDecimal(value)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separateValue()
        appendASCII(value ? "true" : "false")
        needsComma = true
    }

    public mutating func null() {
        separateValue()
        appendASCII("null")
        needsComma = true
    }

    /// Writes a number exactly: integral values below 2^53 as integers, others in Swift's
    /// shortest round-trip form (which may use an exponent, valid JSON). Non-finite writes 0.
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            fixed(0, decimals: 0)
            return
        }
        if value == value.rounded(), value.magnitude < Self.exactIntegerLimit {
            int(Int64(value))
            return
        }
        separateValue()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    /// Doubles represent every integer below 2^53 exactly.
    private static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// Writes `value` rounded (half away from zero) to `decimals` places, trailing zeros dropped:
    /// 0.1234, -0.0456, 0, 1 (`FixedDecimal`, `.trimmed`).
    public mutating func fixed(_ value: Double, decimals: Int) {
        separateValue()
        FixedDecimal.append(value, decimals: decimals, to: &bytes)
        needsComma = true
    }

    /// Echoes any JSON value (used for request ids).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            // Sorted so that the same value always encodes to the same bytes.
            for name in members.keys.sorted() {
                key(name)
                if let member = members[name] { self.value(member) }
            }
            endObject()
        }
    }

    // MARK: raw appends (shared with the hot-path encoders)

    private mutating func separateValue() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendASCII(_ text: StaticString) {
        JSONLineWriter.appendASCII(text, to: &bytes)
    }

    static func appendASCII(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func appendQuoted(_ text: String) {
        JSONLineWriter.appendQuoted(text, to: &bytes)
    }

    private mutating func appendDecimal(_ value: UInt64, minimumDigits: Int = 1) {
        FixedDecimal.appendDecimal(value, minimumDigits: minimumDigits, to: &bytes)
    }

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped,
    /// everything else (valid UTF-8, since it comes from a Swift String) copied as is.
    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        let hexDigits: StaticString = "0123456789abcdef"
        let backslash = UInt8(ascii: "\\")
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(backslash)
                bytes.append(byte)
            case UInt8(ascii: "\n"):
                bytes.append(backslash)
                bytes.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                bytes.append(backslash)
                bytes.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"):
                bytes.append(backslash)
                bytes.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                // Other control characters (and DEL, harmless but unreadable) as \u00XX.
                bytes.append(backslash)
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(hexDigits.utf8Start[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
