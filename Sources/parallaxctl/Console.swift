// Output without Foundation or stdio buffering: whole lines written with write(2), so a live
// monitor shows each frame at once and a closed pipe (`parallaxctl monitor | head`) is noticed.

import Glibc

enum Console {
    /// Standard output went away (EPIPE); the command should stop quietly.
    struct Closed: Error {}

    /// Writes `text` and a newline to standard output.
    static func print(_ text: String) throws(Closed) {
        guard write(Array((text + "\n").utf8), to: STDOUT_FILENO) else { throw Closed() }
    }

    /// Writes raw bytes and a newline to standard output.
    static func print(bytes: [UInt8]) throws(Closed) {
        guard write(bytes + [UInt8(ascii: "\n")], to: STDOUT_FILENO) else { throw Closed() }
    }

    /// Writes "parallaxctl: <text>" to standard error.
    static func error(_ text: String) {
        _ = write(Array("parallaxctl: \(text)\n".utf8), to: STDERR_FILENO)
    }

    /// Writes all of `bytes`; false when the descriptor is closed or failing.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        return true
    }
}
