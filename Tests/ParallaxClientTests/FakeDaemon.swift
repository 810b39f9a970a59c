// A FAKE parallaxd for the subscriber tests: a real listening Unix socket in a temporary
// directory, driven line by line by the test. It is a fake (not the real daemon) because it has
// to misbehave on purpose — garbage, overlong lines, NaN, refusals, another protocol version,
// vanishing mid-stream — which the real daemon never does. Every wait is poll(2) on the
// descriptors involved with a deadline, pumping the subscriber meanwhile: no sleeps.

import CLinux
import Glibc
import ParallaxClient
import Testing

/// How long any single wait may take before the test fails (ms): generous, only hit on failure.
let patience: Int32 = 10_000

/// A temporary directory for one test's socket, removed with everything in it by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/plx-client-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        _ = unlink(file("parallaxd.sock"))
        _ = rmdir(path)
    }
}

/// Polls `descriptors` for `events` until one is ready or `milliseconds` pass; the ready ones.
func ready(_ descriptors: [Int32], events: Int16 = Int16(POLLIN), within milliseconds: Int32) -> [Int32] {
    var fds = descriptors.map { pollfd(fd: $0, events: events, revents: 0) }
    let deadline = plx_monotonic_ns() + Int64(milliseconds) * 1_000_000
    while true {
        let left = Int32(max((deadline - plx_monotonic_ns()) / 1_000_000, 0))
        let count = poll(&fds, nfds_t(fds.count), left)
        if count < 0, errno == EINTR { continue }
        return count > 0 ? fds.filter { $0.revents != 0 }.map(\.fd) : []
    }
}

/// Dispatches `subscriber` whenever its descriptor is readable (or its timeout is due) until
/// `condition` holds; false if `milliseconds` pass first.
@discardableResult
func pump(_ subscriber: ParallaxSubscriber, within milliseconds: Int32 = patience, until condition: () -> Bool) -> Bool {
    let deadline = plx_monotonic_ns() + Int64(milliseconds) * 1_000_000
    while !condition() {
        let left = Int32(max((deadline - plx_monotonic_ns()) / 1_000_000, 0))
        if left == 0 { return false }
        // The descriptor alone would do (its timer fires when a retry is due); the timeout is
        // honoured as well so both ways of driving the subscriber are exercised.
        let timeout = min(left, subscriber.timeoutMilliseconds ?? left)
        _ = ready([subscriber.fileDescriptor], within: timeout)
        subscriber.dispatch()
    }
    return true
}

/// The listening side.
final class FakeDaemon {
    let path: String
    private(set) var listener: Int32

    init(path: String) {
        _ = unlink(path)
        self.path = path
        listener = plx_unix_listen(path, 8)
        precondition(listener >= 0, "cannot listen at \(path)")
    }

    deinit { stop() }

    /// The daemon goes away: no listener, no socket file (a stopped or crashed daemon).
    func stop() {
        guard listener >= 0 else { return }
        _ = close(listener)
        _ = unlink(path)
        listener = -1
    }

    /// Accepts the subscriber's next connection, pumping the subscriber until it connects.
    func accept(pumping subscriber: ParallaxSubscriber) -> FakeConnection? {
        let deadline = plx_monotonic_ns() + Int64(patience) * 1_000_000
        while plx_monotonic_ns() < deadline {
            let timeout = min(subscriber.timeoutMilliseconds ?? 100, 100)
            let readyNow = ready([listener, subscriber.fileDescriptor], within: timeout)
            if readyNow.contains(listener) {
                let descriptor = plx_accept(listener)
                if descriptor >= 0 { return FakeConnection(descriptor) }
            }
            subscriber.dispatch()
        }
        return nil
    }

    /// True when a client is waiting to be accepted within `milliseconds`.
    func hasPendingConnection(within milliseconds: Int32) -> Bool {
        !ready([listener], within: milliseconds).isEmpty
    }
}

/// One accepted connection, as the daemon sees it.
final class FakeConnection {
    private(set) var descriptor: Int32
    private var received: [UInt8] = []

    init(_ descriptor: Int32) { self.descriptor = descriptor }
    deinit { close() }

    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// Writes all of `text`, pumping the subscriber while the socket is full so it drains it.
    func send(_ text: String, pumping subscriber: ParallaxSubscriber) {
        send(bytes: Array(text.utf8), pumping: subscriber)
    }

    /// Writes all of `bytes` (a line need not be UTF-8), pumping the subscriber as `send` does.
    func send(bytes: [UInt8], pumping subscriber: ParallaxSubscriber) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { plx_send(descriptor, $0.baseAddress! + sent, $0.count - sent) }
            if count > 0 {
                sent += count
            } else if errno == EAGAIN {
                _ = ready([descriptor, subscriber.fileDescriptor], events: Int16(POLLOUT) | Int16(POLLIN), within: 100)
                subscriber.dispatch()
            } else {
                Issue.record("fake daemon send failed: errno \(errno)")
                return
            }
        }
    }

    /// The client's next line (without "\n"), pumping the subscriber meanwhile; nil at end of stream.
    func readLine(pumping subscriber: ParallaxSubscriber) -> String? {
        let deadline = plx_monotonic_ns() + Int64(patience) * 1_000_000
        while plx_monotonic_ns() < deadline {
            if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[..<end], as: UTF8.self)
                received.removeSubrange(...end)
                return line
            }
            let readyNow = ready([descriptor, subscriber.fileDescriptor], within: 100)
            if readyNow.contains(descriptor) {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count == 0 { return nil }
                if count > 0 { received += buffer[..<count] }
            }
            if readyNow.contains(subscriber.fileDescriptor) { subscriber.dispatch() }
        }
        Issue.record("no line from the client within \(patience) ms")
        return nil
    }

    /// True when the client closed its end within `milliseconds` (anything it sent is discarded).
    func isClosedByPeer(within milliseconds: Int32) -> Bool {
        let deadline = plx_monotonic_ns() + Int64(milliseconds) * 1_000_000
        while plx_monotonic_ns() < deadline {
            let left = Int32(max((deadline - plx_monotonic_ns()) / 1_000_000, 0))
            guard !ready([descriptor], within: left).isEmpty else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { return true }
        }
        return false
    }

    /// The protocol's handshake as parallaxd does it: hello, read subscribe, subscribed + state.
    /// Returns the subscribe line the client sent.
    /// `heading`: the `subscribed` reply and the state line say this (nil: neither has the field).
    func handshake(pumping subscriber: ParallaxSubscriber, grantedRate: Int? = nil, heading: Bool? = nil) -> String? {
        send(#"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n", pumping: subscriber)
        guard let line = readLine(pumping: subscriber) else { return nil }
        let rate = grantedRate ?? Int(Self.number("rate", in: line) ?? 0)
        let rotation = Int(Self.number("rotation", in: line) ?? 0)
        let flag = heading.map { #","heading":\#($0)"# } ?? ""
        send(
            #"{"type":"subscribed","rate":\#(rate),"rotation":\#(rotation)\#(flag)}"# + "\n"
                + #"{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true\#(flag)}"# + "\n",
            pumping: subscriber)
        return line
    }

    /// The number after `"key":` in a flat JSON line (enough for the client's subscribe line).
    static func number(_ key: String, in line: String) -> Double? {
        guard let range = line.firstRange(of: "\"\(key)\":") else { return nil }
        let digits = line[range.upperBound...].prefix { "0123456789.-".contains($0) }
        return Double(digits)
    }
}

/// An offset line as parallaxd writes it.
func offsetLine(seq: UInt64, t: Int64 = 1_000_000_000, x: Double, y: Double, vx: Double = 0, vy: Double = 0) -> String {
    #"{"type":"offset","seq":\#(seq),"t":\#(t),"x":\#(x),"y":\#(y),"vx":\#(vx),"vy":\#(vy)}"# + "\n"
}
