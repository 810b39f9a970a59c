import CLinux
import ParallaxMotion

/// Locale-independent parsing of the decimal numbers parallaxd reads as text: sysfs attributes,
/// trace rows, config values and the calibration file. The one implementation of that idea.
///
/// Why not `strtod`: it follows `LC_NUMERIC`, so a German or French locale would read
/// "0.000598" as 0 (iio-sensor-proxy shipped that bug). This goes through strtod in the C
/// locale and accepts only plain decimal notation, rejecting what is never meant as a number
/// here (hex floats, "nan", "inf", empty strings, trailing garbage).
public enum DecimalNumber {
    /// Parses one decimal number ("-16384", "0.000598", "1.5e-3"), ignoring surrounding
    /// whitespace and the trailing NUL that libiio may leave. nil when it is not one finite number.
    public static func parseDouble(_ text: Substring) -> Double? {
        let trimmed = trim(text)
        let parsed = trimmed.utf8.withContiguousStorageIfAvailable { parseDouble(bytes: $0) }
        return parsed ?? parseDouble(bytes: Array(trimmed.utf8))
    }

    public static func parseDouble(_ text: String) -> Double? { parseDouble(text[...]) }

    /// Parses exactly these bytes (no trimming) as one finite decimal number; allocates nothing
    /// for numbers of ordinary length (a replay parses hundreds of fields a second).
    public static func parseDouble(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty, bytes.allSatisfy(isDecimalCharacter) else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer -> Double? in
            for (i, c) in bytes.enumerated() { buffer[i] = CChar(bitPattern: c) }
            buffer[bytes.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = plx_strtod_c(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + bytes.count, value.isFinite else { return nil }
            return value
        }
    }

    public static func parseDouble(bytes: [UInt8]) -> Double? {
        bytes.withUnsafeBufferPointer { parseDouble(bytes: $0) }
    }

    /// Parses a mount matrix "a, b, c; d, e, f; g, h, i" (rows separated by ';', values by ',').
    /// nil for anything that is not exactly nine finite numbers.
    public static func parseMountMatrix(_ text: String) -> MountMatrix? {
        let rows = trim(text[...]).split(separator: ";", omittingEmptySubsequences: false)
        guard rows.count == 3 else { return nil }
        var values: [Double] = []
        values.reserveCapacity(9)
        for row in rows {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count == 3 else { return nil }
            for cell in cells {
                guard let v = parseDouble(cell) else { return nil }
                values.append(v)
            }
        }
        return MountMatrix(values)
    }

    /// Digits, sign, decimal point and exponent: the whole alphabet of a plain decimal number.
    static func isDecimalCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
             UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    static func trim(_ text: Substring) -> Substring {
        var s = text
        while let c = s.utf8.first, isSpaceOrNul(c) { s = s.dropFirst() }
        while let c = s.utf8.last, isSpaceOrNul(c) { s = s.dropLast() }
        return s
    }

    static func isBlank(_ c: UInt8) -> Bool { isSpaceOrNul(c) }

    private static func isSpaceOrNul(_ c: UInt8) -> Bool {
        c == 0 || c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\t")
            || c == UInt8(ascii: "\r")
    }
}
