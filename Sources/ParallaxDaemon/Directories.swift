import Glibc
import SystemPackage

/// Directories the daemon makes for what it writes (the socket's, the calibration file's).
enum Directories {
    /// The directory `path` is in: "/run/parallaxd" for "/run/parallaxd/parallaxd.sock", "/" for
    /// "/x", "." for a bare name.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// mkdir -p: `directory` and every missing parent, each with `mode`. nil on success, else the
    /// directory that could not be made and why.
    static func create(_ directory: String, mode: mode_t) -> (directory: String, error: Errno)? {
        var st = stat()
        if stat(directory, &st) == 0 { return nil }
        let parent = parent(of: directory)
        if parent != directory, let failed = create(parent, mode: mode) { return failed }
        if mkdir(directory, mode) != 0 && errno != EEXIST { return (directory, Errno(rawValue: errno)) }
        return nil
    }
}
