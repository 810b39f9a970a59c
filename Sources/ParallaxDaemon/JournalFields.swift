import CSystemd
import Glibc
import Logging

// Structured journal records for DaemonLogHandler when stderr is connected to the journal
// (systemd sets JOURNAL_STREAM for a service whose output goes there).
//
// Why not just `<N>` lines on stderr: a record keeps its fields. `journalctl -u parallaxd
// PARALLAXD_LOGGER=parallaxd.sensors` or `-o verbose` then show which part logged it, the
// source line, and every metadata key as a field of its own, and multi-line messages stay one
// entry.

/// Building and sending journal records; separate from the handler so tests can check fields.
enum JournalFields {
    /// SYSLOG_IDENTIFIER of every record (what `journalctl -t` selects by).
    static let identifier = "parallaxd"
    /// Longest field name journald accepts (characters).
    static let maxNameLength = 64

    /// The record's "NAME=value" fields: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC,
    /// PARALLAXD_LOGGER and one field per metadata key (as a valid journal field name).
    static func record(message: String, priority: Int, logger: String, metadata: [String: String],
                       file: String, line: UInt, function: String) -> [String] {
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(priority)",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "PARALLAXD_LOGGER=\(logger)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
        ]
        let reserved: Set<String> = ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "PARALLAXD_LOGGER",
                                     "CODE_FILE", "CODE_LINE", "CODE_FUNC"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            guard let name = fieldName(key), !reserved.contains(name) else { continue }
            fields.append("\(name)=\(value)")
        }
        return fields
    }

    /// A metadata key as a journal field name: upper case, [A-Z0-9_] only, not starting with a
    /// digit or "_" (those are journald's trusted fields), at most 64 characters; nil if nothing
    /// usable is left.
    static func fieldName(_ key: String) -> String? {
        var name = ""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "a"..."z": name.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            case "A"..."Z", "0"..."9", "_": name.unicodeScalars.append(scalar)
            default: name.append("_")
            }
        }
        while name.hasPrefix("_") { name.removeFirst() }
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "F" + name }
        name = String(name.prefix(maxNameLength))
        return name.isEmpty ? nil : name
    }

    /// Sends one record to journald; false if it did not take it.
    static func send(_ fields: [String]) -> Bool {
        // One contiguous buffer, then iovecs into it: every pointer stays valid for the call.
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.utf8)
            ranges.append(start..<buffer.count)
        }
        return buffer.withUnsafeMutableBytes { bytes -> Bool in
            let iovecs = ranges.map { iovec(iov_base: bytes.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return iovecs.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) >= 0 }
        }
    }
}

/// Whether a file descriptor is the journal's stream: JOURNAL_STREAM holds "device:inode" of it
/// (systemd.exec(5)); compare with fstat so a stderr redirected elsewhere by a child is not taken.
enum JournalStream {
    static func isJournal(fd: Int32) -> Bool {
        isJournal(fd: fd, journalStream: getenv("JOURNAL_STREAM").map { String(cString: $0) })
    }

    /// `journalStream`: the value of JOURNAL_STREAM (nil when unset).
    static func isJournal(fd: Int32, journalStream: String?) -> Bool {
        guard let journalStream, let (device, inode) = parse(journalStream) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// "8:12345" → (8, 12345); nil when malformed.
    static func parse(_ text: String) -> (UInt64, UInt64)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
        return (device, inode)
    }
}
