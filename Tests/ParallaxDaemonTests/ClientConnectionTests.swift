import Glibc
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// One connection over a real socketpair: writes go straight out while the peer reads, wait in
/// the output buffer while it does not, overflow past the limit, and commands have a budget.
@Suite struct ClientConnectionTests {
    /// For a connection these tests never subscribe: the hub never writes to it.
    final class NoLines: SubscriberLines {
        func write(_ line: [UInt8]) { Issue.record("the hub wrote to a connection that never subscribed") }
        var isDrained: Bool { true }
    }

    /// A connected pair of non-blocking stream sockets: (daemon side, client side).
    static func socketPair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let rc = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        precondition(rc == 0, "socketpair failed")
        return (fds[0], fds[1])
    }

    static let peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000)

    /// Everything the peer can read right now.
    static func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard n > 0 else { return all }
            all += chunk[0..<n]
        }
    }

    @Test func aLineGoesStraightOutWhileThePeerReads() {
        let (ours, theirs) = Self.socketPair()
        defer { close(theirs) }
        let client = ClientConnection(id: 1, fd: FileDescriptor(rawValue: ours), peer: Self.peer, lines: Self.NoLines())
        defer { client.close() }
        guard case .done = client.send(Array("hello\n".utf8)) else { Issue.record("not written at once"); return }
        #expect(client.isDrained)
        #expect(Self.drain(theirs) == Array("hello\n".utf8))
    }

    @Test func outputWaitsForASlowPeerThenFlushesOrOverflows() {
        let (ours, theirs) = Self.socketPair()
        defer { close(theirs) }
        let client = ClientConnection(id: 1, fd: FileDescriptor(rawValue: ours), peer: Self.peer, lines: Self.NoLines())
        defer { client.close() }
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
        var sent = 0
        var blocked = false
        // Fill the socket until it takes no more: the rest waits in the connection.
        while !blocked && sent < 10_000 {
            switch client.send(line) {
            case .done: sent += 1
            case .blocked: blocked = true
            case .failed, .overflow: Issue.record("failed before blocking"); return
            }
        }
        #expect(blocked)
        #expect(!client.isDrained)
        #expect(client.blockedSince != nil)
        // The peer reads everything: the queued rest goes out on flush.
        var received = Self.drain(theirs).count
        var flushed = false
        for _ in 0..<1000 where !flushed {
            if case .done = client.flush() { flushed = true }
            received += Self.drain(theirs).count
        }
        #expect(flushed)
        #expect(client.isDrained)
        #expect(client.blockedSince == nil)
        #expect(received == (sent + 1) * line.count)
        // A peer that never reads: output beyond the limit is refused, not queued.
        var overflowed = false
        for _ in 0..<(ClientConnection.outputLimit / line.count + 1000) where !overflowed {
            if case .overflow = client.send(line) { overflowed = true }
        }
        #expect(overflowed)
    }

    @Test func commandsHaveABudgetThatRefills() {
        let client = ClientConnection(id: 1, fd: FileDescriptor(rawValue: -1), peer: Self.peer, lines: Self.NoLines())
        let rate = 5.0
        let t0: Int64 = 1_000_000_000
        for _ in 0..<5 { #expect(client.takeCommandToken(rate: rate, now: t0)) }
        #expect(!client.takeCommandToken(rate: rate, now: t0))
        // One token back after 1/rate s.
        #expect(client.takeCommandToken(rate: rate, now: t0 + 200_000_000))
        #expect(!client.takeCommandToken(rate: rate, now: t0 + 200_000_000))
    }

    @Test func aSubscriptionPacesOnItsRatesGrid() {
        let sub = Subscription(rate: 50, rotation: .none)
        #expect(sub.interval == 20_000_000)
        #expect(sub.pacing.nextDue == nil)   // its first frame is due whenever it comes
    }
}
