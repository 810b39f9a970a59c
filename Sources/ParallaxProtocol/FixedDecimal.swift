/// A number as decimal text with a fixed number of places, rounded half away from zero, never
/// "-0", never an exponent, the same in every locale; non-finite values write 0. The one
/// implementation for offset lines, status lines, the calibration file, messages and the
/// terminal. Integer arithmetic only: the server writes an offset line per subscriber many
/// times a second.
public enum FixedDecimal {
    /// Most places written (10^9 keeps the scaled value inside UInt64); more are clamped.
    public static let maxDecimals = 9
    /// Largest `|value| × 10^decimals` written; larger values are clamped to it (fixed-point
    /// output is meant for bounded quantities: offsets, rates, seconds).
    public static let maxScaled = 1e18

    /// What happens to zeros at the end of the fraction.
    public enum Zeros: Sendable {
        /// Dropped, and the point with them: 0.1234, -0.0456, 0, 1 (JSON).
        case trimmed
        /// Kept: exactly `decimals` places, 0.000, 9.81 (files and terminal columns).
        case kept
    }

    /// Appends `value` to `bytes`.
    /// - Parameters:
    ///   - decimals: places after the point (0...`maxDecimals`, clamped).
    ///   - plusSign: write "+" before values that are not negative (terminal columns).
    public static func append(_ value: Double, decimals: Int, zeros: Zeros = .trimmed, plusSign: Bool = false,
                              to bytes: inout [UInt8]) {
        let places = min(max(decimals, 0), maxDecimals)
        let scale = powersOfTen[places]
        let finite = value.isFinite ? value : 0
        let rounded = (finite.magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero)
        let scaled = UInt64(min(rounded, maxScaled))
        // The sign is decided after rounding, so -0.00001 at 4 places becomes "0", not "-0".
        appendUnits(scaled, negative: finite < 0, places: places, zeros: zeros, plusSign: plusSign, to: &bytes)
    }

    /// `units` × 10^-`decimals` with exactly `decimals` places: a count of small units (µs) as a
    /// larger one (s) without going through a Double. 5123456789 µs at 6 places → "5123.456789".
    public static func text(units: Int64, decimals: Int) -> String {
        var bytes: [UInt8] = []
        appendUnits(units.magnitude, negative: units < 0, places: min(max(decimals, 0), maxDecimals),
                    zeros: .kept, plusSign: false, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendUnits(_ units: UInt64, negative: Bool, places: Int, zeros: Zeros, plusSign: Bool,
                                    to bytes: inout [UInt8]) {
        if negative, units != 0 {
            bytes.append(UInt8(ascii: "-"))
        } else if plusSign {
            bytes.append(UInt8(ascii: "+"))
        }
        let scale = powersOfTen[places]
        appendDecimal(units / scale, to: &bytes)
        var fraction = units % scale
        var digits = places
        if zeros == .trimmed {
            while digits > 0, fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
        }
        if digits > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDecimal(fraction, minimumDigits: digits, to: &bytes)
        }
    }

    /// `value` as a String; by default with exactly `decimals` places ("0.000", "-0.014910").
    public static func text(_ value: Double, decimals: Int, zeros: Zeros = .kept, plusSign: Bool = false) -> String {
        var bytes: [UInt8] = []
        append(value, decimals: decimals, zeros: zeros, plusSign: plusSign, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the decimal digits of `value`, left-padded with zeros to `minimumDigits`, without
    /// allocating beyond the buffer's growth.
    public static func appendDecimal(_ value: UInt64, minimumDigits: Int = 1, to bytes: inout [UInt8]) {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        count = max(count, minimumDigits)
        let end = bytes.count + count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var remaining = value
        var position = end - 1
        while remaining > 0 {
            bytes[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
            position -= 1
        }
    }

    private static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
    ]
}
