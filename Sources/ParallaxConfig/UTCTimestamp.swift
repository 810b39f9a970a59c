import Glibc

/// "2025-01-31T12:00:00Z": when a calibration file or a trace was written, in its header.
public enum UTCTimestamp {
    public static func text(_ t: time_t) -> String {
        var time = t
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "an unknown time" }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
