// A blocking protocol-v1 connection for tools and applications: connect, send requests, read
// lines with a timeout. Lines are cut with the protocol's LineSplitter, so a reply split across
// reads or several replies in one read behave the same.

import CLinux
import Glibc
import ParallaxProtocol

/// One connection to parallaxd. Not thread-safe: use it from one thread.
public final class ParallaxConnection {
    /// Where parallaxd listens when nothing else is configured.
    public static let systemSocketPath = "/run/parallaxd/parallaxd.sock"

    /// `$PARALLAXD_SOCKET` when set and not empty, else `systemSocketPath`.
    public static var defaultSocketPath: String {
        if let value = getenv("PARALLAXD_SOCKET"), value.pointee != 0 { return String(cString: value) }
        return systemSocketPath
    }

    /// The socket path this connection was opened on.
    public let path: String
    /// The connected socket; -1 once closed.
    public private(set) var fileDescriptor: Int32
    /// Bytes read per recv(2) (bytes; an offset line is ~70, a status line a few hundred).
    private static let readChunkSize = 4096
    private var splitter = LineSplitter(maxLineLength: ServerMessage.maxServerLineLength)
    /// Reused receive buffer, so a monitor at 60 Hz does not allocate one per frame.
    private var chunk = [UInt8](repeating: 0, count: ParallaxConnection.readChunkSize)
    /// Complete lines read but not yet returned, oldest first.
    private var readyLines: [[UInt8]] = []
    /// Readable when a termination signal is pending (see `interruptOnTerminationSignals()`).
    private var signalDescriptor: Int32 = -1

    /// Connects to parallaxd's socket at `path` (blocking).
    public init(path: String = ParallaxConnection.defaultSocketPath) throws(ClientError) {
        self.path = path
        let descriptor = path.withCString { plx_unix_connect($0) }
        guard descriptor >= 0 else { throw .cannotConnect(path: path, errno: errno) }
        fileDescriptor = descriptor
    }

    deinit {
        close()
        if signalDescriptor >= 0 { _ = Glibc.close(signalDescriptor) }
    }

    /// Closes the socket; later calls throw `ClientError.closed`.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        _ = Glibc.close(fileDescriptor)
        fileDescriptor = -1
    }

    /// From now on SIGINT, SIGTERM and SIGHUP no longer kill the process: a read in progress or
    /// the next one throws `ClientError.interrupted` instead, so the caller can end cleanly.
    /// Also ignores SIGPIPE (a closed stdout or socket then reports EPIPE).
    public func interruptOnTerminationSignals() throws(ClientError) {
        guard signalDescriptor < 0 else { return }
        let descriptor = plx_signalfd_standard()
        guard descriptor >= 0 else { throw .io(operation: "signalfd", errno: errno) }
        signalDescriptor = descriptor
    }

    // MARK: sending

    /// Sends one request line.
    public func send(_ request: ClientRequest) throws(ClientError) {
        try sendLine(request.encode())
    }

    /// Sends raw bytes (they should be one JSON line ending in "\n").
    public func sendLine(_ bytes: [UInt8]) throws(ClientError) {
        guard fileDescriptor >= 0 else { throw .closed }
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                Glibc.send(fileDescriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
            }
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .io(operation: "send", errno: errno)
            }
            sent += result
        }
    }

    // MARK: receiving

    /// The next line from the server (without "\n"), or nil when `timeoutMs` passed first.
    /// - Parameter timeoutMs: how long to wait (ms); nil waits as long as it takes.
    public func readLine(timeoutMs: Int32?) throws(ClientError) -> [UInt8]? {
        let deadline = timeoutMs.map { plx_monotonic_ns() + Int64(max($0, 0)) * Self.nanosecondsPerMillisecond }
        while readyLines.isEmpty {
            guard fileDescriptor >= 0 else { throw .closed }
            guard try waitReadable(until: deadline) else { return nil }
            try receive()
        }
        return readyLines.removeFirst()
    }

    /// The next message this protocol version knows, or nil when `timeoutMs` passed first.
    /// Lines that are not JSON or carry an unknown type are skipped.
    /// - Parameter timeoutMs: how long to wait (ms); nil waits as long as it takes.
    public func readMessage(timeoutMs: Int32?) throws(ClientError) -> ServerMessage? {
        let deadline = timeoutMs.map { plx_monotonic_ns() + Int64(max($0, 0)) * Self.nanosecondsPerMillisecond }
        while true {
            guard let line = try readLine(timeoutMs: Self.remainingMilliseconds(until: deadline)) else { return nil }
            if let message = ServerMessage.decode(line: line) { return message }
        }
    }

    private static let nanosecondsPerMillisecond: Int64 = 1_000_000

    /// CLOCK_MONOTONIC (ns), the clock of deadlines here and of offset times `t`.
    public static func monotonicNanoseconds() -> Int64 { plx_monotonic_ns() }

    /// Milliseconds left until `deadline` (CLOCK_MONOTONIC ns), rounded up and never negative,
    /// ready for a `timeoutMs:` parameter; nil for no deadline.
    public static func remainingMilliseconds(until deadline: Int64?) -> Int32? {
        guard let deadline else { return nil }
        let left = max(deadline - plx_monotonic_ns(), 0)
        let milliseconds = (left + nanosecondsPerMillisecond - 1) / nanosecondsPerMillisecond
        return Int32(clamping: milliseconds)
    }

    /// Waits until the socket is readable (true) or the deadline passes (false).
    private func waitReadable(until deadline: Int64?) throws(ClientError) -> Bool {
        while true {
            // A zero timeout still reports data already waiting, so a passed deadline reads it.
            let timeout = Self.remainingMilliseconds(until: deadline) ?? -1
            var descriptors = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)]
            if signalDescriptor >= 0 {
                descriptors.append(pollfd(fd: signalDescriptor, events: Int16(POLLIN), revents: 0))
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "poll", errno: errno)
            }
            if ready == 0 { return false }
            if descriptors.count > 1, descriptors[1].revents != 0 {
                _ = plx_signalfd_read(signalDescriptor)
                throw .interrupted
            }
            if descriptors[0].revents != 0 { return true }
        }
    }

    /// Reads what is available and queues the complete lines it ends.
    private func receive() throws(ClientError) {
        let descriptor = fileDescriptor
        let count = chunk.withUnsafeMutableBytes { buffer in
            recv(descriptor, buffer.baseAddress, buffer.count, 0)
        }
        if count == 0 { throw .closed }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            if errno == ECONNRESET { throw .closed }
            throw .io(operation: "recv", errno: errno)
        }
        var tooLong = false
        chunk.withUnsafeBytes { buffer in
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { event in
                switch event {
                case .line(let line): readyLines.append(line)
                case .tooLong: tooLong = true
                }
            }
        }
        if tooLong {
            throw .unexpectedReply("a line longer than \(ServerMessage.maxServerLineLength) bytes")
        }
    }

    // MARK: conversations

    /// Reads the greeting every connection starts with; returns the client's rate cap (Hz).
    /// - Parameter timeoutMs: how long to wait for it (ms).
    @discardableResult
    public func awaitHello(timeoutMs: Int32) throws(ClientError) -> Int {
        guard let message = try readMessage(timeoutMs: timeoutMs) else { throw .timedOut(milliseconds: timeoutMs) }
        switch message {
        case .hello(let maxRate): return maxRate
        case .error(let error): throw .rejected(error)
        default: throw .unexpectedReply("expected hello first")
        }
    }

    /// Sends `request` and returns its reply: the first `subscribed`, `unsubscribed`, `status`, `ok`
    /// or `error` line whose id matches. Offsets and state lines arriving meanwhile are skipped.
    /// - Parameter timeoutMs: how long to wait for the reply (ms).
    public func call(_ request: ClientRequest, timeoutMs: Int32) throws(ClientError) -> ServerMessage {
        try callReturningLine(request, timeoutMs: timeoutMs).message
    }

    /// `call(_:timeoutMs:)` that also returns the reply's raw line (without "\n"), for tools that
    /// print what the daemon said verbatim.
    public func callReturningLine(_ request: ClientRequest, timeoutMs: Int32) throws(ClientError)
        -> (message: ServerMessage, line: [UInt8])
    {
        try send(request)
        let deadline = plx_monotonic_ns() + Int64(max(timeoutMs, 0)) * Self.nanosecondsPerMillisecond
        while true {
            guard let line = try readLine(timeoutMs: Self.remainingMilliseconds(until: deadline)) else {
                throw .timedOut(milliseconds: timeoutMs)
            }
            guard let message = ServerMessage.decode(line: line) else { continue }
            if let id = Self.replyID(message), id == request.id { return (message, line) }
        }
    }

    /// The echoed id of a reply message, wrapped so that "no id" can match a request without one;
    /// nil for messages that are not replies.
    private static func replyID(_ message: ServerMessage) -> JSONValue?? {
        switch message {
        case .subscribed(_, _, _, let id), .unsubscribed(let id), .status(_, let id), .ok(let id): return .some(id)
        case .error(let error): return .some(error.id)
        case .calibration(let report, let id): return report.isDone ? .some(id) : nil
        case .hello, .state, .offset: return nil
        }
    }
}
