// The non-blocking subscriber for renderers and event loops: the same semantics as libparallax
// (docs/client-kit.md). One descriptor for the caller's loop, `dispatch()` does all pending work
// without ever blocking, only the latest offset is kept, and the subscription survives daemon
// restarts (reconnect with back-off, subscribe again with the same rate and rotation).
//
// Connection life: waiting → (connect) → awaiting hello → (send subscribe) → awaiting
// `subscribed` → subscribed → (end of stream) → waiting. Every failure goes back to waiting with a
// retry time: 100 ms doubling to 5 s, each ±20 % (ReconnectBackoff.swift), or 60 s after a refusal.
// A paused subscriber (SubscriberPause.swift) sends `unsubscribe` instead and keeps the connection:
// awaiting hello → awaiting `unsubscribed` → paused.

import CLinux
import Glibc
import ParallaxProtocol

/// A subscription to parallaxd that never blocks. Not thread-safe: use it from its loop's thread.
///
///     let subscriber = try ParallaxSubscriber(rate: 60)
///     // in the loop: poll subscriber.fileDescriptor for POLLIN with subscriber.timeoutMilliseconds
///     if subscriber.dispatch() { redraw(subscriber.offset?.predicted(at: shownAt) ?? .zero) }
public final class ParallaxSubscriber {
    /// First reconnect delay after a failure (ms); doubles per failure up to `maximumRetryDelay`.
    public static let initialRetryDelay: Int64 = 100
    /// Longest reconnect delay (ms) while the daemon is away.
    public static let maximumRetryDelay: Int64 = 5_000
    /// Spread of each reconnect delay around its nominal value (fraction, both ways).
    public static let retryJitter = 0.2
    /// How long a subscription must have lasted for its loss to restart the back-off (ms); a
    /// shorter one counts as a failed connection.
    public static let stableSubscription: Int64 = 10_000
    /// Delay (ms) after a refusal (access denied, another protocol): no reconnect storm.
    public static let refusalRetryDelay: Int64 = 60_000
    /// Time (ms) a connected daemon has to say hello and confirm the subscription.
    public static let handshakeTimeout: Int64 = 5_000
    /// Delay (ms) before retrying a subscribe line the socket could not take whole.
    static let sendRetryDelay: Int64 = 10
    /// Most bytes read per dispatch, so a flooding peer cannot hold the caller's loop; the
    /// descriptor stays readable for the rest.
    public static let maximumBytesPerDispatch = 1 << 20
    /// Longest server line kept (bytes); longer lines are skipped up to their end.
    public static let maximumLineLength = ServerMessage.maxServerLineLength
    private static let readChunkSize = 16_384
    static let nanosecondsPerMillisecond: Int64 = 1_000_000

    /// The daemon's socket.
    public let path: String
    /// Frames per second asked for on every (re)connection.
    public let rate: Int
    /// Clockwise rotation of the caller's output (degrees), sent on every (re)connection.
    public let rotation: Int
    /// Whether the subscription asks for the heading (`yaw`, `vyaw` on every offset).
    public let heading: Bool

    /// The latest offset; nil before the first one. Kept while reconnecting so layers do not jump
    /// (`state.connected` says whether it is live).
    public internal(set) var offset: ParallaxOffset?
    /// The connection and the daemon's last `state` line.
    public internal(set) var state = SubscriberState.disconnected
    /// Why there is no subscription now; nil while subscribed or before the first attempt ends.
    public internal(set) var problem: SubscriberProblem?
    /// The rate the daemon granted (Hz) in its last `subscribed` reply.
    public internal(set) var grantedRate: Int?
    /// Server lines ignored so far: not JSON, too long, an unknown type, missing or out-of-range
    /// fields. They never change the offset or the state.
    public internal(set) var ignoredLines = 0
    /// Whether the caller paused the subscription (`pause()`); kept across reconnections.
    public internal(set) var isPaused = false
    /// Receives one line per change of connection (subscribed, lost, refused, waiting for the
    /// daemon); a failure repeated on every retry is reported once. Runs inside `dispatch()`.
    public var log: ((SubscriberLogLevel, String) -> Void)?

    enum Phase: Equatable {
        case waiting
        case awaitingHello
        case awaitingSubscribed
        case subscribed
        /// `unsubscribe` sent (paused); waiting for `unsubscribed`.
        case awaitingUnsubscribed
        /// Connected without a subscription: no offsets or state lines come.
        case paused
    }

    var phase = Phase.waiting
    private var socket: Int32 = -1
    private let wakeups: WakeupSet
    // Times to act without input (CLOCK_MONOTONIC ns); nil = not scheduled.
    /// The next connection attempt (while waiting).
    private var connectAt: Int64?
    /// The end of the handshake: hello and `subscribed` must have come by then.
    var handshakeDeadline: Int64?
    /// The next try to send the rest of the subscribe line.
    private var sendRetryAt: Int64?
    var backoff = ReconnectBackoff(generator: SystemRandomNumberGenerator())
    /// When the current subscription was confirmed (CLOCK_MONOTONIC ns); nil while not subscribed.
    var subscribedAt: Int64?
    private var splitter = LineSplitter(maxLineLength: ParallaxSubscriber.maximumLineLength)
    private var chunk = [UInt8](repeating: 0, count: ParallaxSubscriber.readChunkSize)
    /// The part of the subscribe line the socket has not taken yet.
    private var unsent: ArraySlice<UInt8> = []
    var changed = false

    /// Starts subscribing to parallaxd. The first connection attempt is due at once: the descriptor
    /// is readable and `timeoutMilliseconds` 0 until the first `dispatch()` (so a `log` set after
    /// init hears about it). A missing daemon is not an error: the subscriber keeps trying.
    /// - Parameters:
    ///   - path: the daemon's socket; nil: `$PARALLAXD_SOCKET` when set, else the system socket.
    ///   - rate: frames per second wanted (Hz, ≥ 1); the daemon caps it (60 Hz unprivileged).
    ///   - rotation: clockwise rotation of the caller's output, 0, 90, 180 or 270 (degrees);
    ///     offsets arrive in that output's axes.
    ///   - heading: also receive the heading (`ParallaxOffset.yaw`, `vyaw`) while the daemon has a
    ///     gyroscope (`state.heading` says whether it does).
    public init(path: String? = nil, rate: Int = 60, rotation: Int = 0, heading: Bool = false) throws(SubscriberSetupError) {
        let path = path ?? ParallaxConnection.defaultSocketPath
        guard rate >= 1 else { throw .invalidRate(rate) }
        guard [0, 90, 180, 270].contains(rotation) else { throw .invalidRotation(rotation) }
        guard path.utf8.count < UnixStreamSocket.pathCapacity, !path.isEmpty else { throw .pathTooLong(path) }
        self.path = path
        self.rate = rate
        self.rotation = rotation
        self.heading = heading
        wakeups = try WakeupSet()
        connectAt = plx_monotonic_ns()
        rearm()
    }

    deinit {
        closeSocket()
    }

    /// The descriptor to watch for reading (POLLIN / EPOLLIN, level-triggered) in the caller's
    /// loop. It never changes: it becomes readable when the daemon sent something and when a
    /// reconnect or deadline is due. The subscriber owns it: never read or close it.
    public var fileDescriptor: Int32 { wakeups.descriptor }

    /// Milliseconds until `dispatch()` has work without input (a reconnect, the handshake
    /// deadline); nil when only input can bring work (poll with −1). The descriptor also becomes
    /// readable then, so a loop that watches it may ignore this. Ask again after every dispatch.
    public var timeoutMilliseconds: Int32? {
        guard let deadline = nextDeadline else { return nil }
        let left = max(deadline - plx_monotonic_ns(), 0)
        return Int32(clamping: (left + Self.nanosecondsPerMillisecond - 1) / Self.nanosecondsPerMillisecond)
    }

    /// Does all pending work and returns at once: reads every complete line (up to
    /// `maximumBytesPerDispatch`), keeps the newest offset, connects when a retry is due, gives up
    /// on a silent handshake. Returns true when the offset or the state changed.
    @discardableResult
    public func dispatch() -> Bool {
        changed = false
        wakeups.acknowledgeTimer()
        let now = plx_monotonic_ns()
        if phase == .waiting, let connectAt, now >= connectAt {
            connect(now: now)
        }
        flushUnsent(now: now)
        receive()
        applyPause(now: now)
        if let handshakeDeadline, now >= handshakeDeadline {
            fail(.handshakeTimedOut, now: now)
        }
        rearm()
        return changed
    }

    /// The earliest time something is due.
    private var nextDeadline: Int64? {
        [connectAt, handshakeDeadline, sendRetryAt, pauseChangeDue ? 0 : nil].compactMap { $0 }.min()
    }

    // MARK: connection life

    private func connect(now: Int64) {
        switch UnixStreamSocket.connect(to: path) {
        case .success(let descriptor):
            socket = descriptor
            wakeups.watch(descriptor)
            splitter.reset()
            phase = .awaitingHello
            connectAt = nil
            handshakeDeadline = now + Self.handshakeTimeout * Self.nanosecondsPerMillisecond
        case .failure(let error):
            switch error.code {
            case ENOENT, ECONNREFUSED: fail(.daemonNotRunning(path: path, errno: error.code), now: now)
            case EACCES, EPERM:
                fail(.accessDenied(message: "the socket \(path) is not open to this user"), now: now)
            default: fail(.cannotConnect(path: path, errno: error.code), now: now)
            }
        }
    }

    /// Closes the connection, reports `problem` once and schedules the next attempt.
    func fail(_ problem: SubscriberProblem, now: Int64) {
        let wasConnected = state.connected
        if let subscribedAt, now - subscribedAt >= Self.stableSubscription * Self.nanosecondsPerMillisecond {
            backoff.reset()
        }
        closeSocket()
        if state != .disconnected {
            state = .disconnected
            changed = true
        }
        let delay: Int64
        if problem.isRefusal {
            delay = Self.refusalRetryDelay
        } else {
            delay = backoff.nextDelay()
        }
        connectAt = now + delay * Self.nanosecondsPerMillisecond
        if !Self.sameKind(problem, self.problem) || wasConnected {
            switch problem {
            case .daemonNotRunning: log?(.info, problem.description)
            case .connectionLost, .handshakeTimedOut, .cannotConnect: log?(.warning, problem.description)
            default: log?(.error, problem.description)
            }
        }
        self.problem = problem
    }

    private func closeSocket() {
        guard socket >= 0 else { return }
        wakeups.unwatch()
        _ = Glibc.close(socket)
        socket = -1
        phase = .waiting
        subscribedAt = nil
        unsent = []
        handshakeDeadline = nil
        sendRetryAt = nil
    }

    /// Same failure as last time (ignoring errno and messages), so it is not logged again.
    private static func sameKind(_ a: SubscriberProblem, _ b: SubscriberProblem?) -> Bool {
        guard let b else { return false }
        switch (a, b) {
        case (.daemonNotRunning, .daemonNotRunning), (.accessDenied, .accessDenied),
            (.unsupportedProtocol, .unsupportedProtocol), (.refused, .refused),
            (.connectionLost, .connectionLost), (.protocolViolation, .protocolViolation),
            (.handshakeTimedOut, .handshakeTimedOut), (.cannotConnect, .cannotConnect):
            return true
        default:
            return false
        }
    }

    func rearm() {
        wakeups.wake(at: nextDeadline)
    }

    // MARK: sending

    func sendSubscribe(now: Int64) {
        // A subscriber without the heading sends protocol v1's line unchanged.
        let request = ClientRequest(.subscribe(rate: Double(rate), rotation: rotation, heading: heading ? true : nil))
        send(request, now: now)
    }

    /// Queues `request` behind anything not sent yet and sends what the socket takes.
    func send(_ request: ClientRequest, now: Int64) {
        unsent = unsent.isEmpty ? request.encode()[...] : (Array(unsent) + request.encode())[...]
        flushUnsent(now: now)
    }

    private func flushUnsent(now: Int64) {
        guard socket >= 0, !unsent.isEmpty else { return }
        switch UnixStreamSocket.send(socket, unsent) {
        case .done(let count):
            unsent = unsent.dropFirst(count)
        case .wouldBlock:
            break
        case .failed(let code):
            fail(.connectionLost(errno: code), now: now)
            return
        }
        sendRetryAt = unsent.isEmpty ? nil : now + Self.sendRetryDelay * Self.nanosecondsPerMillisecond
    }

    // MARK: receiving

    /// Reads until the socket is empty, the byte budget is spent or the connection ends.
    private func receive() {
        var budget = Self.maximumBytesPerDispatch
        while socket >= 0, budget > 0 {
            let descriptor = socket
            let result = chunk.withUnsafeMutableBytes { buffer in
                UnixStreamSocket.receive(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, budget)]))
            }
            switch result {
            case .wouldBlock:
                return
            case .failed(let code):
                fail(.connectionLost(errno: code), now: plx_monotonic_ns())
                return
            case .done(0):
                fail(.connectionLost(errno: ECONNRESET), now: plx_monotonic_ns())
                return
            case .done(let count):
                budget -= count
                feed(count: count)
            }
        }
    }

    private func feed(count: Int) {
        var lines: [[UInt8]] = []
        chunk.withUnsafeBytes { buffer in
            splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { event in
                switch event {
                case .line(let line): lines.append(line)
                case .tooLong: ignoredLines += 1
                }
            }
        }
        for line in lines {
            guard socket >= 0 else { return }  // a line before this one ended the connection
            handle(line: line)
        }
    }
}
