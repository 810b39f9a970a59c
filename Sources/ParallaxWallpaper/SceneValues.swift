// Parsers for the values of a scene file. Each returns the value or throws a message that says
// what was expected; the parser adds file, line and key.

struct SceneValueError: Error {
    var message: String
}

enum SceneValues {
    /// Longest travel or distance accepted (logical pixels): far beyond any screen, so a typo
    /// cannot make the renderer allocate or draw absurd sizes.
    static let maximumLength = 100_000.0
    static let maximumBlur = 250.0
    static let maximumRate = 1_000
    static let maximumSmoothing = 10.0
    static let maximumAngle = 89.0
    /// Most columns or rows of a [Mesh] Grid= (64 × 64 pieces is far beyond any use).
    static let maximumGridSide = 64

    /// A decimal number (locale-independent: always a point), finite, within `range`.
    static func number(_ text: String, in range: ClosedRange<Double>, what: String = "a number") throws(SceneValueError) -> Double {
        let trimmed = text.trimmingSpaces
        guard let value = Double(trimmed), value.isFinite else {
            throw SceneValueError(message: "expected \(what), got \"\(text)\"")
        }
        guard range.contains(value) else {
            throw SceneValueError(message: "\(trimmed) is outside \(format(range.lowerBound))…\(format(range.upperBound))")
        }
        return value
    }

    static func integer(_ text: String, in range: ClosedRange<Int>) throws(SceneValueError) -> Int {
        guard let value = Int(text.trimmingSpaces) else {
            throw SceneValueError(message: "expected a whole number, got \"\(text)\"")
        }
        guard range.contains(value) else {
            throw SceneValueError(message: "\(value) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// Comma-separated numbers, exactly `count` of them.
    static func numbers(_ text: String, count: Int, in range: ClosedRange<Double>, what: String) throws(SceneValueError) -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == count else {
            throw SceneValueError(message: "expected \(what), got \"\(text)\"")
        }
        var values: [Double] = []
        for part in parts { values.append(try number(part, in: range)) }
        return values
    }

    /// Comma-separated numbers, at least one (how many is checked by the caller).
    static func list(_ text: String, in range: ClosedRange<Double>, what: String) throws(SceneValueError) -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var values: [Double] = []
        for part in parts { values.append(try number(part, in: range, what: "comma-separated \(what)")) }
        return values
    }

    /// x,y,width,height (logical pixels), width and height greater than 0.
    static func rect(_ text: String) throws(SceneValueError) -> LogicalRect {
        let rect = try numbers(text, count: 4, in: -maximumLength...maximumLength, what: "x,y,width,height in pixels")
        guard rect[2] > 0, rect[3] > 0 else { throw SceneValueError(message: "width and height must be greater than 0") }
        return LogicalRect(x: rect[0], y: rect[1], width: rect[2], height: rect[3])
    }

    /// COLSxROWS, each a whole number from 1 to `maximum`.
    static func grid(_ text: String, maximum: Int) throws(SceneValueError) -> (columns: Int, rows: Int) {
        let parts = text.trimmingSpaces.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(String(parts[0]).trimmingSpaces), let rows = Int(String(parts[1]).trimmingSpaces) else {
            throw SceneValueError(message: "expected COLUMNSxROWS such as 3x2, got \"\(text)\"")
        }
        guard columns > 0, rows > 0 else {
            throw SceneValueError(message: "a mesh needs at least 1 column and 1 row, got \"\(text)\"")
        }
        guard columns <= maximum, rows <= maximum else {
            throw SceneValueError(message: "at most \(maximum) columns and \(maximum) rows")
        }
        return (columns, rows)
    }

    /// #rrggbb or #rrggbbaa (hexadecimal).
    static func color(_ text: String) throws(SceneValueError) -> SceneColor {
        let trimmed = text.trimmingSpaces
        let digits = Array(trimmed.utf8.dropFirst())
        guard trimmed.hasPrefix("#"), digits.count == 6 || digits.count == 8,
              let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        else {
            throw SceneValueError(message: "expected a colour #rrggbb or #rrggbbaa, got \"\(text)\"")
        }
        let rgba = digits.count == 8 ? value : value << 8 | 0xFF
        func channel(_ shift: UInt32) -> Double { Double((rgba >> shift) & 0xFF) / 255 }
        return SceneColor(red: channel(24), green: channel(16), blue: channel(8), alpha: channel(0))
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ text: String, as: T.Type) throws(SceneValueError) -> T where T.RawValue == String {
        let trimmed = text.trimmingSpaces
        if let value = T(rawValue: trimmed.lowercased()) { return value }
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw SceneValueError(message: "expected one of \(names), got \"\(trimmed)\"")
    }

    /// Drops a trailing `# comment` or `; comment` (one that follows whitespace, so a value that
    /// starts with # — a colour — stays) and surrounding spaces.
    static func withoutComment(_ value: String) -> String {
        var previousIsSpace = true
        var end = value.endIndex
        for index in value.indices {
            let character = value[index]
            if (character == "#" || character == ";") && previousIsSpace && index != value.startIndex {
                end = index
                break
            }
            previousIsSpace = character == " " || character == "\t"
        }
        return String(value[..<end]).trimmingSpaces
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension String {
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
