import Glibc

/// Short text files of sysfs and configfs, read and written whole, outside libiio: the trigger
/// attributes of a device and the software triggers libiio's context does not know (a trigger
/// made after the context was opened is not in it).
enum SysfsText {
    /// The file's text without trailing blanks and NULs, nil if it cannot be read.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { return nil }
        let text = String(decoding: bytes.prefix(n), as: UTF8.self)
        return String(text.reversed().drop { $0.isWhitespace || $0 == "\0" }.reversed())
    }

    /// Writes `value` in one write(); nil when it took, the errno otherwise.
    @discardableResult
    static func write(_ path: String, _ value: String) -> Int32? {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return n == bytes.count ? nil : (n < 0 ? errno : EIO)
    }

    /// The names in a directory (without "." and ".."), empty if it cannot be listed.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func describe(errno code: Int32) -> String { "\(String(cString: strerror(code))) (\(code))" }
}
