// Why a JSON text was rejected, and where. The offset lets an error reply point at the byte.

/// A rejected JSON text: the reason and the byte offset (from 0) where it was found.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        case empty
        case unexpectedEnd
        case unexpectedByte(UInt8)
        case trailingData
        case tooDeep(limit: Int)
        case invalidNumber
        case numberOutOfRange
        case invalidEscape
        case invalidUnicodeEscape
        case loneSurrogate
        case controlCharacterInString
        case invalidUTF8
        case duplicateKey(String)
    }

    public var reason: Reason
    /// Byte offset from the start of the text.
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "empty input"
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedByte(let byte):
            if byte >= 0x21 && byte < 0x7F {
                what = "unexpected character '\(Character(Unicode.Scalar(byte)))'"
            } else {
                what = "unexpected byte 0x\(Self.hex(byte))"
            }
        case .trailingData: what = "unexpected data after the value"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .invalidNumber: what = "invalid number"
        case .numberOutOfRange: what = "number out of range"
        case .invalidEscape: what = "invalid escape sequence"
        case .invalidUnicodeEscape: what = "invalid \\u escape"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate in \\u escape"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .duplicateKey(let key): what = "duplicate key \"\(key)\""
        }
        return "\(what) at byte \(offset)"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
