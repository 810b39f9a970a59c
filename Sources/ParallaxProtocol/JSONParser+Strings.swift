// UTF-16 surrogate ranges, for pairing \uD83D\uDE00-style escapes.
private let highSurrogates: ClosedRange<UInt32> = 0xD800...0xDBFF
private let lowSurrogates: ClosedRange<UInt32> = 0xDC00...0xDFFF

/// JSON strings: escapes, surrogate pairs, UTF-8 validation (JSONReader.swift).
extension JSONParser {
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
            if byte == JSONByte.quote {
                let run = UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if decoded.isEmpty { return String(decoding: run, as: UTF8.self) }
                decoded.append(contentsOf: run)
                return String(decoding: decoded, as: UTF8.self)
            } else if byte == JSONByte.backslash {
                decoded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape(into: &decoded)
                runStart = index
            } else if byte < JSONByte.firstPrintable {
                throw JSONError(.controlCharacterInString, at: index)
            } else if byte < JSONByte.firstNonASCII {
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
        case JSONByte.quote, JSONByte.backslash, JSONByte.slash: output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(JSONByte.lineFeed)
        case UInt8(ascii: "r"): output.append(JSONByte.carriageReturn)
        case UInt8(ascii: "t"): output.append(JSONByte.tab)
        case UInt8(ascii: "u"):
            var code = try readHex4()
            if highSurrogates.contains(code) {
                // A high surrogate must be followed at once by an escaped low one.
                guard index + 1 < bytes.count, bytes[index] == JSONByte.backslash,
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
            case JSONByte.zero...JSONByte.nine: digit = byte - JSONByte.zero
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
}
