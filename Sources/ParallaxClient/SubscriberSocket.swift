// The non-blocking pieces under ParallaxSubscriber: a Unix stream connection that never waits
// (connect, send and recv with O_NONBLOCK), and one stable descriptor for the caller's loop (an
// epoll set holding the socket while there is one and a timerfd for back-off and deadlines), so
// the caller registers one descriptor once, however often the daemon restarts.

import CLinux
import Glibc

/// Outcome of one non-blocking operation on the socket.
enum SocketResult: Equatable {
    case done(Int)
    case wouldBlock
    case failed(errno: Int32)
}

enum UnixStreamSocket {
    /// Bytes of `sun_path` including its terminating NUL.
    static let pathCapacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// Opens a non-blocking, close-on-exec socket and starts connecting to `path`. Returns the
    /// descriptor, or the errno of socket(2)/connect(2). A Unix connect completes at once or fails
    /// (EAGAIN: the listener's backlog is full), so nothing is left half-done.
    static func connect(to path: String) -> Result<Int32, SocketError> {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { return .failure(SocketError(errno)) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < pathCapacity else {
            _ = close(descriptor)
            return .failure(SocketError(ENAMETOOLONG))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        // EINPROGRESS does not happen for Unix sockets today; if it did, the first read tells.
        if result != 0, errno != EINPROGRESS {
            let code = errno
            _ = close(descriptor)
            return .failure(SocketError(code))
        }
        return .success(descriptor)
    }

    static func send(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> SocketResult {
        while true {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if count >= 0 { return .done(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(errno: errno)
        }
    }

    /// One recv(2); `.done(0)` is the peer's end of stream.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> SocketResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 { return .done(count) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed(errno: errno)
        }
    }
}

/// An errno from a socket call.
struct SocketError: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

/// The caller's one descriptor: readable when the socket is, or when the timer is due.
final class WakeupSet {
    /// The epoll descriptor handed to the caller; valid for the life of the subscriber.
    let descriptor: Int32
    private let timer: Int32
    private var watched: Int32 = -1
    private static let timerToken: UInt64 = 1
    private static let socketToken: UInt64 = 2

    init() throws(SubscriberSetupError) {
        let epoll = plx_epoll_create()
        guard epoll >= 0 else { throw .system(operation: "epoll_create1", errno: errno) }
        let timer = plx_timerfd()
        guard timer >= 0 else {
            let code = errno
            _ = close(epoll)
            throw .system(operation: "timerfd_create", errno: code)
        }
        guard plx_epoll_add(epoll, timer, PLX_EPOLLIN, Self.timerToken) == 0 else {
            let code = errno
            _ = close(timer)
            _ = close(epoll)
            throw .system(operation: "epoll_ctl", errno: code)
        }
        descriptor = epoll
        self.timer = timer
    }

    deinit {
        _ = close(timer)
        _ = close(descriptor)
    }

    /// Watches `socket` for input (and hang-up) instead of any earlier one.
    func watch(_ socket: Int32) {
        unwatch()
        if plx_epoll_add(descriptor, socket, PLX_EPOLLIN | PLX_EPOLLRDHUP, Self.socketToken) == 0 {
            watched = socket
        }
    }

    /// Stops watching the socket (call before closing it).
    func unwatch() {
        guard watched >= 0 else { return }
        _ = plx_epoll_del(descriptor, watched)
        watched = -1
    }

    /// Makes the descriptor readable at `deadline` (CLOCK_MONOTONIC ns); nil disarms.
    func wake(at deadline: Int64?) {
        _ = plx_timerfd_arm_at(timer, deadline.map { max($0, 1) } ?? 0)
    }

    /// Clears an expired timer so the descriptor stops being readable for it.
    func acknowledgeTimer() {
        _ = plx_timerfd_drain(timer)
    }
}
