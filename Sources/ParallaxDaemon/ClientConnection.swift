import CLinux
import Glibc
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// Who is on the other end of a connection (SO_PEERCRED and SO_PEERGROUPS, taken at accept:
/// what the process was when it connected, which a later setuid cannot change).
struct PeerCredentials: Sendable, Equatable {
    let pid: pid_t
    let uid: uid_t
    let gid: gid_t
    /// Supplementary groups.
    var groups: [gid_t] = []
    var isRoot: Bool { uid == 0 }

    func isMember(of group: gid_t) -> Bool { gid == group || groups.contains(group) }

    /// Reads the credentials of a connected socket, or why the kernel will not say.
    static func of(socket descriptor: FileDescriptor) -> Result<PeerCredentials, Errno> {
        let fd = descriptor.rawValue
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard plx_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return .failure(Errno(rawValue: errno)) }
        var peer = PeerCredentials(pid: pid, uid: uid, gid: gid)
        var groups = [gid_t](repeating: 0, count: 64)
        var n = Int(plx_peer_groups(fd, &groups, Int32(groups.count)))
        if n > groups.count {
            groups = [gid_t](repeating: 0, count: n)
            n = Int(plx_peer_groups(fd, &groups, Int32(groups.count)))
        }
        if n > 0 { peer.groups = Array(groups.prefix(n)) }
        return .success(peer)
    }
}

/// One connected client: its socket, its input line splitter and its output buffer.
///
/// Writes are non-blocking. Replies and state lines are never dropped: what the socket does not
/// take waits in `output` and goes out when epoll says the socket is writable again. Offset
/// frames are different (latest-value): the hub skips a client whose output is backed up and
/// sends it the newest frame once it has drained, instead of queueing stale ones. What the
/// connection has been sent, and when its next frame is due, is its `subscriber`'s.
final class ClientConnection {
    /// Output a client may leave unread before it is disconnected as stalled (bytes).
    static let outputLimit = 256 * 1024

    let id: Int
    let fd: FileDescriptor
    let peer: PeerCredentials
    var token: EventLoop.Token?
    var splitter = LineSplitter(maxLineLength: ProtocolConstants.maxLineLength)
    /// Its part in the fan-out: subscription, pacing, what it was sent (Subscriber.swift).
    let subscriber: Subscriber
    /// Bad lines so far; too many closes the connection.
    var strikes = 0
    private(set) var isClosed = false
    /// Since when (monotonic ns) output has been waiting for the client to read; nil when drained.
    private(set) var blockedSince: Int64?
    /// The timer that disconnects the client if it stays blocked (owned by the daemon).
    var stallTimer: EventLoop.TimerID?
    /// The timer that closes the connection if it stays idle, or ends a stranger's visit
    /// (`[Daemon] IdleTimeout=`, ClientServer+Admission.swift).
    var idleTimer: EventLoop.TimerID?
    /// Command budget (token bucket): refilled at the configured rate, one token per command.
    private var commandTokens: Double = -1
    private var lastRefill: Int64 = 0

    private var output: [UInt8] = []
    private var outputStart = 0

    /// `lines`: where the hub's lines for this connection go (the server's `ConnectionLines`).
    init(id: Int, fd: FileDescriptor, peer: PeerCredentials, lines: any SubscriberLines) {
        self.id = id
        self.fd = fd
        self.peer = peer
        subscriber = Subscriber(id: id, lines: lines)
    }

    /// True when nothing is waiting to be written: the socket can take a fresh frame now.
    var isDrained: Bool { outputStart == output.count }

    enum WriteResult { case done, blocked, failed(Errno), overflow }

    /// One send(2) of `bytes[from...]`: the count sent, or the error as send left it (read at
    /// once: anything the runtime calls after send may overwrite errno).
    private func sendOnce(_ bytes: [UInt8], from start: Int) -> Result<Int, Errno> {
        bytes.withUnsafeBytes { raw in
            let n = plx_send(fd.rawValue, raw.baseAddress! + start, raw.count - start)
            return n >= 0 ? .success(n) : .failure(Errno(rawValue: errno))
        }
    }

    private static func wouldBlock(_ error: Errno) -> Bool { error == .wouldBlock || error == .resourceTemporarilyUnavailable }

    /// Queues `bytes` and writes as much as the socket takes right now.
    func send(_ bytes: [UInt8]) -> WriteResult {
        guard !isClosed else { return .failed(.brokenPipe) }
        if isDrained {
            output.removeAll(keepingCapacity: true)
            outputStart = 0
            var n = 0
            switch bytes.isEmpty ? .success(0) : sendOnce(bytes, from: 0) {
            case .success(let sent): n = sent
            case .failure(let error) where Self.wouldBlock(error): n = 0
            case .failure(let error): return .failed(error)
            }
            if n == bytes.count { return .done }
            output.append(contentsOf: bytes[n...])
            blockedSince = plx_monotonic_ns()
            return .blocked
        }
        if output.count - outputStart + bytes.count > Self.outputLimit { return .overflow }
        output.append(contentsOf: bytes)
        return .blocked
    }

    /// Writes queued output (on EPOLLOUT).
    func flush() -> WriteResult {
        while outputStart < output.count {
            switch sendOnce(output, from: outputStart) {
            case .success(let n): outputStart += n
            case .failure(let error) where Self.wouldBlock(error): return .blocked
            case .failure(let error): return .failed(error)
            }
        }
        output.removeAll(keepingCapacity: true)
        outputStart = 0
        blockedSince = nil
        return .done
    }

    /// Takes one command from the budget; false when the client is over `rate` commands/s
    /// (bursts up to `rate` are fine: a client may send a few commands back to back).
    func takeCommandToken(rate: Double, now: Int64) -> Bool {
        if commandTokens < 0 { commandTokens = rate; lastRefill = now }
        commandTokens = min(rate, commandTokens + Double(now - lastRefill) * 1e-9 * rate)
        lastRefill = now
        guard commandTokens >= 1 else { return false }
        commandTokens -= 1
        return true
    }

    /// What one read from the socket brought.
    enum ReadResult: Equatable {
        /// Bytes at the start of the buffer.
        case data(Int)
        /// Nothing more for now.
        case wouldBlock
        /// The peer closed, the socket failed, or this connection is closed: its descriptor
        /// number may already belong to something else, which must never be read as the client.
        case ended
    }

    /// Reads what is available into `buffer`.
    func read(into buffer: inout [UInt8]) -> ReadResult {
        guard !isClosed else { return .ended }
        let result = buffer.withUnsafeMutableBytes { raw -> Result<Int, Errno> in
            let n = recv(fd.rawValue, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
            return n >= 0 ? .success(n) : .failure(Errno(rawValue: errno))
        }
        switch result {
        case .success(0): return .ended
        case .success(let n): return .data(n)
        case .failure(let error) where Self.wouldBlock(error) || error == .interrupted: return .wouldBlock
        case .failure: return .ended
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        try? fd.close()
    }
}
