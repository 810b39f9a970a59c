import CLinux
import Glibc
import SystemPackage

/// A single-threaded epoll loop with one-shot timers on a timerfd.
///
/// Everything that touches clients, the engine or the hub runs inside its callbacks, on the main
/// thread, so none of that state needs locks. Other threads talk to it only through an eventfd.
final class EventLoop {
    typealias Handler = (_ events: UInt32) -> Void
    typealias TimerID = UInt64

    /// A registration: the token epoll hands back, never reused (a callback that unregisters
    /// another fd in the same batch cannot have that fd's later events routed to a stranger).
    struct Token: Hashable { fileprivate let value: UInt64 }

    private let epoll: FileDescriptor
    private var handlers: [UInt64: Handler] = [:]
    private var nextToken: UInt64 = 1
    private var running = false

    private struct Timer { let id: TimerID; let deadline: Int64; let action: () -> Void }
    private let timerFD: FileDescriptor
    private var timers: [Timer] = []          // sorted by deadline
    private var armedDeadline: Int64 = 0
    private var nextTimerID: TimerID = 1

    init() throws(Errno) {
        let ep = plx_epoll_create()
        guard ep >= 0 else { throw Errno(rawValue: errno) }
        let tfd = plx_timerfd()
        guard tfd >= 0 else {
            let error = Errno(rawValue: errno)     // before close(), which may set errno itself
            close(ep)
            throw error
        }
        epoll = FileDescriptor(rawValue: ep)
        timerFD = FileDescriptor(rawValue: tfd)
        _ = try watch(timerFD, events: PLX_EPOLLIN) { [unowned self] _ in self.fireTimers() }
    }

    deinit {
        try? timerFD.close()
        try? epoll.close()
    }

    /// Calls `handler` with the epoll event mask whenever `fd` is ready for `events`.
    func watch(_ fd: FileDescriptor, events: UInt32, handler: @escaping Handler) throws(Errno) -> Token {
        let token = nextToken
        nextToken += 1
        guard plx_epoll_add(epoll.rawValue, fd.rawValue, events, token) == 0 else { throw Errno(rawValue: errno) }
        handlers[token] = handler
        return Token(value: token)
    }

    func modify(_ token: Token, fd: FileDescriptor, events: UInt32) {
        _ = plx_epoll_mod(epoll.rawValue, fd.rawValue, events, token.value)
    }

    /// Stops watching; the caller still owns (and closes) the fd.
    func unwatch(_ token: Token, fd: FileDescriptor) {
        _ = plx_epoll_del(epoll.rawValue, fd.rawValue)
        handlers[token.value] = nil
    }

    /// Runs `action` once at `deadline` (CLOCK_MONOTONIC ns).
    @discardableResult
    func schedule(at deadline: Int64, _ action: @escaping () -> Void) -> TimerID {
        let id = nextTimerID
        nextTimerID += 1
        let index = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
        timers.insert(Timer(id: id, deadline: deadline, action: action), at: index)
        rearm()
        return id
    }

    func cancel(_ id: TimerID) {
        timers.removeAll { $0.id == id }
        rearm()
    }

    /// Dispatches events until `stop()`.
    func run() {
        running = true
        let capacity = 64
        var tokens = [UInt64](repeating: 0, count: capacity)
        var events = [UInt32](repeating: 0, count: capacity)
        while running {
            let n = plx_epoll_wait(epoll.rawValue, &tokens, &events, Int32(capacity), -1)
            if n < 0 {
                let error = Errno(rawValue: errno)
                if error == .interrupted { continue }
                fatalError("epoll_wait failed: \(error)")
            }
            for i in 0..<Int(n) {
                handlers[tokens[i]]?(events[i])
                if !running { break }
            }
        }
    }

    func stop() { running = false }

    private func fireTimers() {
        _ = plx_timerfd_drain(timerFD.rawValue)
        armedDeadline = 0
        let now = plx_monotonic_ns()
        while let first = timers.first, first.deadline <= now {
            timers.removeFirst()
            first.action()
        }
        rearm()
    }

    private func rearm() {
        // 0 disarms the timerfd (and is `armedDeadline`'s "none"): a timer due at 0 or before,
        // meaning "at once", is armed at 1 ns, long past.
        let deadline = timers.first.map { max($0.deadline, 1) } ?? 0
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        _ = plx_timerfd_arm_at(timerFD.rawValue, deadline)
    }
}
