// The non-blocking subscriber against a fake daemon (FakeDaemon.swift says why it is a fake):
// subscription with the asked rate and rotation, latest value only, bad lines of every kind,
// daemon restart, a daemon that appears later, and refusals without a reconnect storm.

import CLinux
import Glibc
import ParallaxClient
import Testing

@Suite struct ParallaxSubscriberTests {
    @Test func subscribesWithItsRateAndRotationAndReadsFrames() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 30, rotation: 90)
        #expect(subscriber.timeoutMilliseconds == 0)  // the first attempt is due at once
        let connection = try #require(daemon.accept(pumping: subscriber))
        let request = try #require(connection.handshake(pumping: subscriber))
        #expect(request == #"{"cmd":"subscribe","rate":30,"rotation":90}"#)
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(subscriber.state == SubscriberState(connected: true, sensor: .ok, reduceMotion: false, calibrated: true))
        #expect(subscriber.grantedRate == 30 && subscriber.problem == nil && subscriber.offset == nil)
        #expect(subscriber.timeoutMilliseconds == nil)  // subscribed: only input brings work

        connection.send(offsetLine(seq: 5, t: 2_000_000_000, x: 0.25, y: -0.5, vx: 1.5, vy: -0.25), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset != nil })
        #expect(subscriber.offset == ParallaxOffset(x: 0.25, y: -0.5, vx: 1.5, vy: -0.25, t: 2_000_000_000, seq: 5))
        #expect(subscriber.ignoredLines == 0)
    }

    @Test func aLateReaderGetsTheNewestOffsetInOneDispatch() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = connection.handshake(pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })
        // The client is busy: 500 frames pile up in its socket before it reads again.
        var backlog = ""
        for seq in 1...500 { backlog += offsetLine(seq: UInt64(seq), t: Int64(seq) * 1_000_000, x: Double(seq) / 1000, y: 0) }
        connection.send(backlog, pumping: subscriber)
        #expect(!ready([subscriber.fileDescriptor], within: patience).isEmpty)
        #expect(subscriber.dispatch())
        #expect(subscriber.offset?.seq == 500 && subscriber.offset?.x == 0.5)
        #expect(!subscriber.dispatch())  // nothing new: nothing changed
    }

    @Test func badLinesAreIgnoredAndNeverChangeTheOffset() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = connection.handshake(pumping: subscriber)
        connection.send(offsetLine(seq: 1, x: 0.1, y: 0.2), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 1 })
        let good = subscriber.offset

        let bad = [
            "garbage that is not JSON",
            #"{"type":"offset","seq":2,"t":1,"x":NaN,"y":0}"#,
            #"{"type":"offset","seq":3,"t":1,"x":Infinity,"y":0}"#,
            #"{"type":"offset","seq":4,"t":1,"x":1e999,"y":0}"#,
            #"{"type":"offset","seq":5,"t":1,"x":0.5,"y":0,"vx":-1e400,"vy":0}"#,
            #"{"type":"offset","seq":6,"t":1,"x":1.5,"y":0}"#,  // outside [−1, 1]
            #"{"type":"offset","seq":7,"t":1,"x":"0.5","y":0}"#,  // a string
            #"{"type":"offset","seq":8,"x":0.5,"y":0}"#,  // no t
            #"{"type":"teleport","x":0.9}"#,  // a type this client does not know
            #"{"type":"state","sensor":"ok"}"#,  // fields missing
            #"[1,2,3]"#,
            "{\"type\":\"offset\",\"seq\":9,\"t\":1,\"x\":0.7,\"y\":0,\"pad\":\"" + String(repeating: "a", count: 70_000) + "\"}",
        ]
        connection.send(bad.joined(separator: "\n") + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.ignoredLines == bad.count })
        #expect(subscriber.offset == good && subscriber.state.connected)

        // The stream is still in step: the next good line counts, split across two writes.
        let next = offsetLine(seq: 10, x: -0.3, y: 0.4, vx: 0.5)
        connection.send(String(next.prefix(20)), pumping: subscriber)
        connection.send(String(next.dropFirst(20)), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 10 })
        #expect(subscriber.offset == ParallaxOffset(x: -0.3, y: 0.4, vx: 0.5, vy: 0, t: 1_000_000_000, seq: 10))
        #expect(subscriber.ignoredLines == bad.count)
        #expect(subscriber.offset.map { $0.x.isFinite && $0.y.isFinite && $0.vx.isFinite && $0.vy.isFinite } == true)
    }

    @Test func resubscribesWithTheSameRateAndRotationAfterARestart() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 45, rotation: 270)
        var lines: [(SubscriberLogLevel, String)] = []
        subscriber.log = { lines.append(($0, $1)) }
        var connection = try #require(daemon.accept(pumping: subscriber))
        let first = connection.handshake(pumping: subscriber, grantedRate: 30)
        connection.send(offsetLine(seq: 9, x: 0.5, y: 0.5), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 9 })
        #expect(subscriber.grantedRate == 30)

        // The daemon crashes: connection and socket gone.
        connection.close()
        daemon.stop()
        #expect(pump(subscriber) { !subscriber.state.connected })
        #expect(subscriber.problem == .connectionLost(errno: ECONNRESET))
        #expect(subscriber.offset?.seq == 9)  // kept, so layers do not jump
        #expect(subscriber.state == .disconnected)
        #expect((1...120).contains(Int64(subscriber.timeoutMilliseconds ?? -1)))  // the first delay: 100 ms ± 20 %

        // It comes back at the same path; the subscriber finds it and asks for the same again.
        daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        connection = try #require(daemon.accept(pumping: subscriber))
        let second = connection.handshake(pumping: subscriber)
        #expect(first == #"{"cmd":"subscribe","rate":45,"rotation":270}"# && second == first)
        #expect(pump(subscriber) { subscriber.state.connected })
        connection.send(offsetLine(seq: 1, x: -0.25, y: 0), pumping: subscriber)  // a new daemon counts afresh
        #expect(pump(subscriber) { subscriber.offset?.seq == 1 })
        #expect(lines.filter { $0.0 == .warning }.count == 1)  // the loss, once
        #expect(lines.filter { $0.1.hasPrefix("subscribed") }.count == 2)
    }

    @Test func waitsQuietlyForADaemonThatIsNotThereYet() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("parallaxd.sock")
        let subscriber = try ParallaxSubscriber(path: path)
        var lines: [(SubscriberLogLevel, String)] = []
        subscriber.log = { lines.append(($0, $1)) }
        // Three failed attempts: the pause before the next one grows (100, 200, 400 ms, each ±20 %).
        // A failed attempt shows as the time to the next one jumping up.
        var pauses: [Int32] = []
        var last: Int32 = 0
        #expect(
            pump(subscriber) {
                let left = subscriber.timeoutMilliseconds ?? 0
                if left > last { pauses.append(left) }
                last = left
                return pauses.count == 3
            })
        #expect(subscriber.problem == .daemonNotRunning(path: path, errno: ENOENT))
        #expect(pauses[0] <= 120 && pauses[1] <= 240 && pauses[1] > pauses[0] && pauses[2] > pauses[1])
        #expect(!subscriber.state.connected && subscriber.offset == nil)
        #expect(lines.count == 1 && lines[0].0 == .info)  // one line, not one per retry

        // A socket with nobody behind it (ECONNREFUSED) is the same case.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { _ = close(stale) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)  // bound, never listening: connect(2) gets ECONNREFUSED
        #expect(pump(subscriber) { subscriber.problem == .daemonNotRunning(path: path, errno: ECONNREFUSED) })
        #expect(lines.count == 1)
        _ = unlink(path)

        let daemon = FakeDaemon(path: path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = connection.handshake(pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(subscriber.problem == nil && lines.count == 2 && lines[1].0 == .info)
    }

    @Test func permissionDeniedIsAClearErrorAndALongPause() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        var lines: [(SubscriberLogLevel, String)] = []
        subscriber.log = { lines.append(($0, $1)) }
        let connection = try #require(daemon.accept(pumping: subscriber))
        connection.send(#"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n", pumping: subscriber)
        _ = connection.readLine(pumping: subscriber)
        let reason = "subscribing needs root, group parallax or a local seat session"
        connection.send(#"{"type":"error","code":"permission_denied","message":"\#(reason)"}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.problem != nil })
        #expect(subscriber.problem == .accessDenied(message: reason))
        #expect(subscriber.problem?.description.contains("permission_denied") == true)
        #expect(lines.count == 1 && lines[0].0 == .error && lines[0].1.contains(reason))
        #expect(!subscriber.state.connected)
        #expect(connection.isClosedByPeer(within: patience))
        // The next attempt is a minute away, and nothing knocks meanwhile.
        #expect(subscriber.timeoutMilliseconds! > Int32(ParallaxSubscriber.maximumRetryDelay))
        subscriber.dispatch()
        #expect(!daemon.hasPendingConnection(within: 300))
        #expect(lines.count == 1)
    }

    @Test func anotherProtocolVersionIsRefusedToo() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        connection.send("not a hello\n" + #"{"type":"hello","protocol":2,"max_rate":60}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.problem != nil })
        #expect(subscriber.problem == .unsupportedProtocol(version: 2) && subscriber.ignoredLines == 1)
        #expect(subscriber.timeoutMilliseconds! > Int32(ParallaxSubscriber.maximumRetryDelay))
    }

    @Test func aFullServerIsRetriedSoon() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path)
        let connection = try #require(daemon.accept(pumping: subscriber))
        connection.send(#"{"type":"error","code":"unavailable","message":"server full"}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.problem != nil })
        guard case .refused(let error)? = subscriber.problem else {
            Issue.record("expected a refusal, got \(String(describing: subscriber.problem))")
            return
        }
        #expect(error.code == .unavailable)
        #expect(subscriber.timeoutMilliseconds! <= 120)  // the first delay: 100 ms ± 20 %
        let second = try #require(daemon.accept(pumping: subscriber))
        #expect(second.handshake(pumping: subscriber) != nil)
        #expect(pump(subscriber) { subscriber.state.connected })
        _ = connection
    }

    @Test func rejectsImpossibleArguments() {
        #expect(throws: SubscriberSetupError.invalidRate(0)) { _ = try ParallaxSubscriber(path: "/tmp/x", rate: 0) }
        #expect(throws: SubscriberSetupError.invalidRotation(45)) { _ = try ParallaxSubscriber(path: "/tmp/x", rotation: 45) }
        let long = "/tmp/" + String(repeating: "p", count: 200)
        #expect(throws: SubscriberSetupError.pathTooLong(long)) { _ = try ParallaxSubscriber(path: long) }
    }
}
