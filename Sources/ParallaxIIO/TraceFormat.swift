import CLinux
import ParallaxMotion
import SystemPackage

/// Trace files (docs/trace-format.md): `#` comment lines, the header `t_ns,ax,ay,az,gx,gy,gz`,
/// then one row per sample: monotonic ns, accelerometer m/s², gyroscope rad/s, device frame.
/// An empty field means "no new value from that sensor in this row".
public enum TraceFormat {
    public static let header = "t_ns,ax,ay,az,gx,gy,gz"

    /// Parses one data row. `line` is for messages only.
    public static func parseRow(_ row: Substring, line: Int) throws(TraceError) -> Sample {
        var bytes = Array(row.utf8)
        return try bytes.withUnsafeMutableBufferPointer { (b) throws(TraceError) -> Sample in
            try parseRow(UnsafeBufferPointer(b), line: line)
        }
    }

    /// Parses one data row from its bytes (no newline).
    ///
    /// Why bytes: a replay parses 100–200 rows a second for as long as it plays, and splitting
    /// Strings cost a fifth of the daemon's CPU in the typical-load benchmark. This allocates
    /// nothing; numbers go through strtod in the C locale, so a decimal comma never sneaks in.
    public static func parseRow(_ row: UnsafeBufferPointer<UInt8>, line: Int) throws(TraceError) -> Sample {
        var fields = FieldCursor(row)
        guard let timeField = fields.next(), let t = parseInteger(timeField) else {
            throw TraceError(line: line, "t_ns \"\(text(fields.first))\" is not an integer number of nanoseconds")
        }
        var values = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        var present = 0
        for i in 0..<6 {
            guard let field = fields.next() else {
                throw TraceError(line: line, "expected 7 comma-separated fields (\(header)), found \(i + 1)")
            }
            guard !field.isEmpty else { continue }
            guard let v = DecimalNumber.parseDouble(bytes: field) else {
                throw TraceError(line: line, "\(i < 3 ? "accelerometer" : "gyroscope") value \"\(text(field))\" is not a finite number")
            }
            withUnsafeMutableBytes(of: &values) { $0.storeBytes(of: v, toByteOffset: i * 8, as: Double.self) }
            present |= 1 << i
        }
        if fields.next() != nil {
            throw TraceError(line: line, "expected 7 comma-separated fields (\(header)), found \(8 + fields.remaining)")
        }
        func vector(_ mask: Int, _ x: Double, _ y: Double, _ z: Double, _ name: String) throws(TraceError) -> Vector3? {
            switch present & mask {
            case 0: return nil
            case mask: return Vector3(x, y, z)
            default: throw TraceError(line: line, "\(name) has some axes empty and some not")
            }
        }
        return Sample(t: t, accel: try vector(0b000111, values.0, values.1, values.2, "accelerometer"),
                      gyro: try vector(0b111000, values.3, values.4, values.5, "gyroscope"))
    }

    /// Walks the comma-separated fields of a row, each trimmed of blanks.
    private struct FieldCursor {
        let row: UnsafeBufferPointer<UInt8>
        var position = 0
        var done = false
        /// The first field (for messages).
        var first: UnsafeBufferPointer<UInt8> { Self.trim(UnsafeBufferPointer(rebasing: row[0..<(row.firstIndex(of: UInt8(ascii: ",")) ?? row.count)])) }
        /// Fields left after the current one (for messages).
        var remaining: Int { done ? 0 : row[position...].count { $0 == UInt8(ascii: ",") } }

        init(_ row: UnsafeBufferPointer<UInt8>) { self.row = row }

        mutating func next() -> UnsafeBufferPointer<UInt8>? {
            guard !done else { return nil }
            let end = row[position...].firstIndex(of: UInt8(ascii: ",")) ?? row.count
            let field = UnsafeBufferPointer(rebasing: row[position..<end])
            if end == row.count { done = true } else { position = end + 1 }
            return Self.trim(field)
        }

        static func trim(_ f: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            var lo = f.startIndex, hi = f.endIndex
            while lo < hi, isBlank(f[lo]) { lo += 1 }
            while hi > lo, isBlank(f[hi - 1]) { hi -= 1 }
            return UnsafeBufferPointer(rebasing: f[lo..<hi])
        }

        static func isBlank(_ c: UInt8) -> Bool {
            c == 0 || c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
        }
    }

    private static func text(_ field: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: field, as: UTF8.self)
    }

    /// A decimal integer with an optional sign; nil on anything else or on overflow.
    private static func parseInteger(_ field: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = field.startIndex
        var negative = false
        if i < field.endIndex, field[i] == UInt8(ascii: "-") || field[i] == UInt8(ascii: "+") {
            negative = field[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < field.endIndex else { return nil }
        var value: Int64 = 0
        while i < field.endIndex {
            let d = field[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(negative ? -Int64(d) : Int64(d))
            guard !o1, !o2 else { return nil }
            value = sum
            i += 1
        }
        return value
    }

    /// Formats one row; numbers in plain C-locale notation.
    public static func formatRow(_ sample: Sample) -> String {
        func cells(_ v: Vector3?) -> String {
            guard let v else { return ",," }
            return "\(v.x),\(v.y),\(v.z)"
        }
        return "\(sample.t),\(cells(sample.accel)),\(cells(sample.gyro))"
    }

}

/// A malformed trace line.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { "line \(line): \(message)" }
}

/// Reads a trace file sample by sample (streaming: a long recording is not loaded whole).
public final class TraceReader {
    public let path: String
    /// The `#` comment lines (provenance), without the '#'.
    public private(set) var comments: [String] = []
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private var start = 0
    private var eof = false
    private var lineNumber = 0
    private var sawHeader = false
    private var lastTime: Int64?

    public init(path: String) throws(SensorError) {
        self.path = path
        do {
            fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
        } catch {
            throw SensorError(.invalidSource, "cannot open trace \(path): \(error)")
        }
    }

    deinit { try? fd.close() }

    /// The next sample, or nil at the end of the file.
    public func next() throws(SensorError) -> Sample? {
        while let range = try nextLine() {
            lineNumber += 1
            let sample = try buffer.withUnsafeBufferPointer { (all) throws(SensorError) -> Sample? in
                let line = UnsafeBufferPointer(rebasing: all[range])
                guard let first = line.firstIndex(where: { !DecimalNumber.isBlank($0) }) else { return nil }
                // Data rows first: they are nearly every line, and parse without a String.
                if sawHeader && line[first] != UInt8(ascii: "#") {
                    do throws(TraceError) {
                        let sample = try TraceFormat.parseRow(line, line: lineNumber)
                        if let lastTime, sample.t < lastTime {
                            throw TraceError(line: lineNumber, "t_ns goes backwards (\(sample.t) after \(lastTime))")
                        }
                        lastTime = sample.t
                        return sample
                    } catch {
                        throw SensorError(.invalidSource, "\(path):\(error.line): \(error.message)")
                    }
                }
                let text = DecimalNumber.trim(String(decoding: line, as: UTF8.self)[...])
                if text.hasPrefix("#") {
                    if !sawHeader { comments.append(String(text.dropFirst())) }
                    return nil
                }
                guard text.replacing(" ", with: "") == TraceFormat.header else {
                    throw SensorError(.invalidSource, "\(path):\(lineNumber): expected the header \"\(TraceFormat.header)\"")
                }
                sawHeader = true
                return nil
            }
            if let sample { return sample }
        }
        if !sawHeader { throw SensorError(.invalidSource, "\(path): no header \"\(TraceFormat.header)\" found") }
        return nil
    }

    /// Starts again from the first sample (for looping replays).
    public func rewind() throws(SensorError) {
        do { _ = try fd.seek(offset: 0, from: .start) } catch {
            throw SensorError(.invalidSource, "cannot rewind \(path): \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
        start = 0
        eof = false
        lineNumber = 0
        sawHeader = false
        lastTime = nil
        comments.removeAll()
    }

    /// Where the next line lies in `buffer` (without its newline); nil at the end of the file.
    private func nextLine() throws(SensorError) -> Range<Int>? {
        while true {
            if let nl = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                defer { start = nl + 1 }
                return start..<nl
            }
            if eof {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return start..<buffer.count
            }
            buffer.removeFirst(start)
            start = 0
            let n: Int
            do {
                let old = buffer.count
                buffer.append(contentsOf: repeatElement(0, count: Self.chunk))
                n = try buffer.withUnsafeMutableBytes { try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[old...])) }
                buffer.removeLast(Self.chunk - n)
            } catch {
                throw SensorError(.invalidSource, "cannot read trace \(path): \(error)")
            }
            if n == 0 { eof = true }
        }
    }

    /// Bytes read from the file at a time.
    private static let chunk = 65536
}
