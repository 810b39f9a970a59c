import ParallaxMotion
import SystemPackage

/// Trace files (DESIGN.md "Trace files"): `#` comment lines, the header `t_ns,ax,ay,az,gx,gy,gz`,
/// then one row per sample: monotonic ns, accelerometer m/s², gyroscope rad/s, device frame.
/// An empty field means "no new value from that sensor in this row".
public enum TraceFormat {
    public static let header = "t_ns,ax,ay,az,gx,gy,gz"

    /// Parses one data row. `line` is for messages only.
    public static func parseRow(_ row: Substring, line: Int) throws(TraceError) -> Sample {
        let fields = row.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 7 else {
            throw TraceError(line: line, "expected 7 comma-separated fields (\(header)), found \(fields.count)")
        }
        guard let t = Int64(SysfsNumber.trim(fields[0])) else {
            throw TraceError(line: line, "t_ns \"\(fields[0])\" is not an integer number of nanoseconds")
        }
        let accel = try vector(fields[1...3], name: "accelerometer", line: line)
        let gyro = try vector(fields[4...6], name: "gyroscope", line: line)
        return Sample(t: t, accel: accel, gyro: gyro)
    }

    /// Formats one row; numbers in plain C-locale notation.
    public static func formatRow(_ sample: Sample) -> String {
        func cells(_ v: Vector3?) -> String {
            guard let v else { return ",," }
            return "\(v.x),\(v.y),\(v.z)"
        }
        return "\(sample.t),\(cells(sample.accel)),\(cells(sample.gyro))"
    }

    private static func vector(_ fields: ArraySlice<Substring>, name: String, line: Int) throws(TraceError) -> Vector3? {
        let trimmed = fields.map { SysfsNumber.trim($0) }
        if trimmed.allSatisfy(\.isEmpty) { return nil }
        var values: [Double] = []
        for f in trimmed {
            guard let v = SysfsNumber.parseDouble(f) else {
                throw TraceError(line: line, "\(name) value \"\(f)\" is not a finite number")
            }
            values.append(v)
        }
        return Vector3(values[0], values[1], values[2])
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
        while let line = try nextLine() {
            lineNumber += 1
            let text = SysfsNumber.trim(line[...])
            if text.isEmpty { continue }
            if text.hasPrefix("#") {
                if !sawHeader { comments.append(String(text.dropFirst())) }
                continue
            }
            if !sawHeader {
                guard text.replacing(" ", with: "") == TraceFormat.header else {
                    throw SensorError(.invalidSource, "\(path):\(lineNumber): expected the header \"\(TraceFormat.header)\"")
                }
                sawHeader = true
                continue
            }
            do throws(TraceError) {
                let sample = try TraceFormat.parseRow(text, line: lineNumber)
                if let lastTime, sample.t < lastTime {
                    throw TraceError(line: lineNumber, "t_ns goes backwards (\(sample.t) after \(lastTime))")
                }
                lastTime = sample.t
                return sample
            } catch {
                throw SensorError(.invalidSource, "\(path):\(error.line): \(error.message)")
            }
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

    private func nextLine() throws(SensorError) -> String? {
        while true {
            if let nl = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[start..<nl], as: UTF8.self)
                start = nl + 1
                return line
            }
            if eof {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            buffer.removeFirst(start)
            start = 0
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch {
                throw SensorError(.invalidSource, "cannot read trace \(path): \(error)")
            }
            if n == 0 { eof = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        }
    }
}
