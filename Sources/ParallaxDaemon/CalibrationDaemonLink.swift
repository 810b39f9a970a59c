import CLinux
import Glibc
import ParallaxProtocol

/// A blocking protocol-v1 connection just big enough for one calibrate exchange (the daemon
/// module does not depend on ParallaxClient).
final class DaemonLink {
    enum Outcome {
        case connected(DaemonLink)
        /// Nobody listens, or nobody greets: the caller works without a daemon.
        case notAnswering(String)
        /// A daemon answered with an error instead of a greeting (too many clients).
        case refused(ProtocolError)
    }

    private let fd: Int32
    private var splitter = LineSplitter(maxLineLength: ServerMessage.maxServerLineLength)
    private var lines: [[UInt8]] = []

    private init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    static func connect(path: String, helloTimeoutMs: Int32) -> Outcome {
        let fd = plx_unix_connect(path)
        guard fd >= 0 else { return .notAnswering(String(cString: strerror(errno))) }
        let link = DaemonLink(fd: fd)
        switch link.read(timeoutMs: helloTimeoutMs) {
        case .hello?: return .connected(link)
        case .error(let e)?: return .refused(e)
        default: return .notAnswering("no greeting within \(helloTimeoutMs / 1000) s")
        }
    }

    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The next message this version understands; nil on timeout or when the daemon closes.
    func read(timeoutMs: Int32) -> ServerMessage? {
        let deadline = plx_monotonic_ns() + Int64(timeoutMs) * 1_000_000
        while true {
            while !lines.isEmpty {
                if let message = ServerMessage.decode(line: lines.removeFirst()) { return message }
            }
            let left = Int32(clamping: max(0, (deadline - plx_monotonic_ns()) / 1_000_000))
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, left)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            chunk.withUnsafeBytes { bytes in
                splitter.feed(UnsafeRawBufferPointer(rebasing: bytes[0..<n])) { event in
                    if case .line(let line) = event { lines.append(line) }
                }
            }
        }
    }
}
