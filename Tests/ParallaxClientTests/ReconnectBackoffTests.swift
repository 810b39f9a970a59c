// The reconnect back-off against a crash-looping daemon (docs/client-kit.md, "Reconnecting"): a
// fake daemon that accepts, greets, confirms the subscription and drops the connection at once,
// again and again, as a daemon does that dies right after serving each client. The subscriber
// must back off exponentially, not knock ten times a second. The same schedule and bounds as
// libparallax's and the Python module's tests.

import CLinux
import Glibc
@testable import ParallaxClient
import Testing

@Suite struct ReconnectBackoffTests {
    /// The window over which connections are counted (ms).
    static let window: Int64 = 3_000
    /// Fewest attempts an exponential back-off makes in `window`: the first at once, the next
    /// after at most 120 + 240 + 480 ms. Wide on purpose (a loaded machine answers late); the
    /// point is the upper bound, which no machine speed can raise.
    static let fewestAttempts = 3

    /// Most connection attempts within `window` for a subscriber honouring the back-off: the first
    /// at once, then each after at least (1 − jitter) of its nominal delay.
    static func mostAttempts(within window: Int64) -> Int {
        var attempts = 1
        var elapsed = 0.0
        var delay = Double(ParallaxSubscriber.initialRetryDelay)
        let shortest = 1 - ParallaxSubscriber.retryJitter
        while elapsed + delay * shortest <= Double(window) {
            elapsed += delay * shortest
            attempts += 1
            delay = min(delay * 2, Double(ParallaxSubscriber.maximumRetryDelay))
        }
        return attempts
    }

    /// Connections a subscriber makes in `window` to a daemon that drops each one, after the
    /// subscription (`handshake`) or before its hello.
    static func connections(handshake: Bool) throws -> Int {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        var count = 0
        let end = plx_monotonic_ns() + window * 1_000_000
        while case let left = Int32((end - plx_monotonic_ns()) / 1_000_000), left > 0 {
            let readyNow = ready(
                [daemon.listener, subscriber.fileDescriptor], within: min(left, subscriber.timeoutMilliseconds ?? left))
            if readyNow.contains(daemon.listener) {
                let descriptor = plx_accept(daemon.listener)
                if descriptor >= 0 {
                    count += 1
                    let connection = FakeConnection(descriptor)
                    if handshake {
                        #expect(connection.handshake(pumping: subscriber) != nil)
                        #expect(pump(subscriber) { subscriber.state.connected })
                    }
                    connection.close()
                }
            }
            subscriber.dispatch()
        }
        return count
    }

    @Test func backsOffFromADaemonThatDropsEverySubscription() throws {
        let count = try Self.connections(handshake: true)
        #expect((Self.fewestAttempts...Self.mostAttempts(within: Self.window)).contains(count), "\(count) connections")
    }

    @Test func backsOffFromADaemonThatClosesBeforeTheHello() throws {
        let count = try Self.connections(handshake: false)
        #expect((Self.fewestAttempts...Self.mostAttempts(within: Self.window)).contains(count), "\(count) connections")
    }

    /// A generator with a fixed seed (SplitMix64), so each schedule is reproducible.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func scheduleDoublesToTheCapWithJitterAndStartsOverAfterAReset() {
        let nominal: [Double] = [100, 200, 400, 800, 1600, 3200, 5000, 5000]
        let jitter = ParallaxSubscriber.retryJitter
        var firsts = Set<Int64>()
        for seed in UInt64(0)..<200 {
            var backoff = ReconnectBackoff(generator: SeededGenerator(state: seed))
            for n in nominal {
                let delay = Double(backoff.nextDelay())
                #expect(delay >= (n * (1 - jitter)).rounded() && delay <= (n * (1 + jitter)).rounded(), "seed \(seed)")
            }
            var first = ReconnectBackoff(generator: SeededGenerator(state: seed))
            firsts.insert(first.nextDelay())
        }
        #expect(firsts.count >= 20 && firsts.min()! <= 85 && firsts.max()! >= 115, "\(firsts.sorted())")
        var backoff = ReconnectBackoff(generator: SeededGenerator(state: 1))
        for _ in 0..<4 { _ = backoff.nextDelay() }
        backoff.reset()
        #expect((80...120).contains(backoff.nextDelay()))
    }
}
