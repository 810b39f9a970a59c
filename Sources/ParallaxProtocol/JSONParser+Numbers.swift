/// JSON numbers, strictly as RFC 8259 writes them (JSONReader.swift).
extension JSONParser {
    // MARK: numbers

    /// Checks the RFC 8259 number grammar, then converts the token with `Double(String)`, which
    /// ignores the C locale (a German LC_NUMERIC cannot turn "0.5" into 0).
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if bytes[index] == JSONByte.minus { index += 1 }
        guard index < bytes.count else { throw JSONError(.invalidNumber, at: start) }
        let first = bytes[index]
        if first == JSONByte.zero {
            index += 1
            // "01" is not JSON: a leading zero stands alone.
            if index < bytes.count, isDigit(bytes[index]) { throw JSONError(.invalidNumber, at: start) }
        } else if first >= JSONByte.one && first <= JSONByte.nine {
            skipDigits()
        } else {
            throw JSONError(.invalidNumber, at: start)
        }
        if index < bytes.count, bytes[index] == JSONByte.dot {
            index += 1
            guard skipDigits() > 0 else { throw JSONError(.invalidNumber, at: start) }
        }
        if index < bytes.count, bytes[index] == JSONByte.lowerE || bytes[index] == JSONByte.upperE {
            index += 1
            if index < bytes.count, bytes[index] == JSONByte.plus || bytes[index] == JSONByte.minus { index += 1 }
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

    func isDigit(_ byte: UInt8) -> Bool { byte >= JSONByte.zero && byte <= JSONByte.nine }
}
