import CInih

/// systemd-style INI text through libinih, with the line of every entry: the one INI parse path
/// for the daemon's config, its drop-ins and the calibration file.
public enum IniText {
    /// Calls `entry(section, key, value, line)` for each `Key=value`; `entry` returns false when
    /// the value is wrong (inih then remembers that line as an error and goes on). Returns inih's
    /// answer: 0, or the first line with an error (a syntax error or a refused value).
    public static func parse(_ text: String, entry: (String, String, String, Int) -> Bool) -> Int {
        withoutActuallyEscaping(entry) { entry in
            let reader = LineFeeder(text: text, entry: entry)
            let unmanaged = Unmanaged.passRetained(reader)
            defer { unmanaged.release() }
            return Int(ini_parse_stream({ str, num, stream in
                Unmanaged<LineFeeder>.fromOpaque(stream!).takeUnretainedValue().nextLine(into: str!, capacity: Int(num))
            }, unmanaged.toOpaque(), { user, section, name, value in
                let reader = Unmanaged<LineFeeder>.fromOpaque(user!).takeUnretainedValue()
                return reader.entry(String(cString: section!), String(cString: name!), String(cString: value!), reader.line) ? 1 : 0
            }, unmanaged.toOpaque()))
        }
    }
}

/// Feeds lines to inih one at a time, so the current line number is known when inih calls back.
private final class LineFeeder {
    let entry: (String, String, String, Int) -> Bool
    private let lines: [Substring]
    /// Lines handed to inih so far: the line inih is working on (1-based).
    private(set) var line = 0

    init(text: String, entry: @escaping (String, String, String, Int) -> Bool) {
        self.entry = entry
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// inih's reader: copies the next line (with its newline) into `buffer`.
    func nextLine(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> UnsafeMutablePointer<CChar>? {
        guard line < lines.count, capacity > 1 else { return nil }
        let bytes = Array(lines[line].utf8) + [UInt8(ascii: "\n")]
        line += 1
        let n = min(bytes.count, capacity - 1)
        bytes.withUnsafeBufferPointer { src in
            buffer.withMemoryRebound(to: UInt8.self, capacity: capacity) { dst in
                dst.update(from: src.baseAddress!, count: n)
                dst[n] = 0
            }
        }
        return buffer
    }
}
