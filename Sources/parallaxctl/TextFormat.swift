// Fixed-width number formatting for terminal lines (no Foundation, so no String(format:)).

import ParallaxProtocol

enum TextFormat {
    /// `value` with a sign and exactly `decimals` places: "+0.1234", "-0.0456", "+0.0000".
    static func signed(_ value: Double, decimals: Int) -> String {
        FixedDecimal.text(value, decimals: decimals, plusSign: true)
    }

    /// Nanoseconds as seconds with 6 decimals: 5123456789012 → "5123.456789".
    static func seconds(nanoseconds: Int64) -> String {
        let nanosecondsPerMicrosecond: Int64 = 1_000
        return FixedDecimal.text(units: nanoseconds / nanosecondsPerMicrosecond, decimals: 6)
    }

    /// A rate or duration with at most one decimal: 60 → "60", 99.84 → "99.8".
    static func short(_ value: Double) -> String {
        FixedDecimal.text(value, decimals: 1, zeros: .trimmed)
    }

    /// Whole seconds as "3 h 02 min 05 s", "2 min 05 s" or "7 s".
    static func duration(seconds value: Double) -> String {
        let secondsPerMinute = 60
        let secondsPerHour = 3_600
        let secondsPerDay = 86_400
        let total = Int(clamping: Int64(max(value.isFinite ? value : 0, 0)))
        let days = total / secondsPerDay
        let hours = total % secondsPerDay / secondsPerHour
        let minutes = total % secondsPerHour / secondsPerMinute
        let seconds = total % secondsPerMinute
        if days > 0 { return "\(days) d \(hours) h \(padded(minutes)) min" }
        if hours > 0 { return "\(hours) h \(padded(minutes)) min \(padded(seconds)) s" }
        if minutes > 0 { return "\(minutes) min \(padded(seconds)) s" }
        return "\(seconds) s"
    }

    /// A horizontal gauge of a value in [-1, 1]: "[.........|#.........]" (centre bar, '#' marker).
    /// - Parameter halfWidth: cells on each side of the centre (cells).
    static func gauge(_ value: Double, halfWidth: Int = 10) -> String {
        let finite = value.isFinite ? min(max(value, -1), 1) : 0
        let position = halfWidth + Int((finite * Double(halfWidth)).rounded())
        var cells = [Character](repeating: ".", count: 2 * halfWidth + 1)
        cells[halfWidth] = "|"
        cells[position] = "#"
        return "[" + String(cells) + "]"
    }

    private static func padded(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
