// Pausing and resuming a subscription on one connection, against the fake daemon
// (FakeDaemon.swift says why a fake): `unsubscribe` on the same socket, frames the daemon sent
// before reading it dropped, the same subscribe line on resume, one request on the wire at a
// time, and the paused state kept across a daemon restart.

import CLinux
import Glibc
import ParallaxClient
import Testing

/// The client wrote something the fake daemon has not read yet.
private func sentSomething(_ connection: FakeConnection) -> Bool {
    !ready([connection.descriptor], within: 0).isEmpty
}

@Suite struct SubscriberPauseTests {
    private static let unsubscribe = #"{"cmd":"unsubscribe"}"#
    private static let unsubscribed = #"{"type":"unsubscribed"}"# + "\n"

    @Test func pauseUnsubscribesOnTheSameConnectionAndResumeSubscribesAgainAlike() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 30, rotation: 90, heading: true)
        let connection = try #require(daemon.accept(pumping: subscriber))
        let first = try #require(connection.handshake(pumping: subscriber, heading: true))
        connection.send(offsetLine(seq: 1, x: 0.25, y: 0), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 1 })

        subscriber.pause()
        #expect(subscriber.isPaused)
        #expect(subscriber.timeoutMilliseconds == 0)  // the next dispatch sends it
        #expect(connection.readLine(pumping: subscriber) == Self.unsubscribe)
        // A frame the daemon sent before it read the unsubscribe is dropped: the pause holds.
        connection.send(offsetLine(seq: 2, x: 0.75, y: 0) + Self.unsubscribed, pumping: subscriber)
        #expect(pump(subscriber) { subscriber.timeoutMilliseconds == nil })
        #expect(subscriber.offset?.seq == 1 && subscriber.state.connected && subscriber.ignoredLines == 0)

        subscriber.resume()
        #expect(connection.readLine(pumping: subscriber) == first)
        connection.send(#"{"type":"subscribed","rate":30,"rotation":90,"heading":true}"# + "\n", pumping: subscriber)
        connection.send(offsetLine(seq: 3, x: -0.5, y: 0), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 3 })
        #expect(!daemon.hasPendingConnection(within: 0))  // the same connection throughout
        #expect(!subscriber.isPaused && subscriber.problem == nil)
    }

    @Test func aPauseAskedForBeforeTheReplyWaitsForIt() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 60)
        let connection = try #require(daemon.accept(pumping: subscriber))
        connection.send(#"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n", pumping: subscriber)
        let subscribe = try #require(connection.readLine(pumping: subscriber))
        #expect(subscribe.contains(#""cmd":"subscribe""#))
        subscriber.pause()
        // Nothing more goes out until the subscribe is answered (one request on the wire).
        #expect(!pump(subscriber, within: 200) { sentSomething(connection) })
        connection.send(#"{"type":"subscribed","rate":60,"rotation":0}"# + "\n", pumping: subscriber)
        #expect(connection.readLine(pumping: subscriber) == Self.unsubscribe)
        subscriber.resume()
        // The resume waits for `unsubscribed` in turn.
        #expect(!pump(subscriber, within: 200) { sentSomething(connection) })
        connection.send(Self.unsubscribed, pumping: subscriber)
        #expect(connection.readLine(pumping: subscriber) == subscribe)
    }

    @Test func aPausedSubscriberReconnectsPausedAfterARestart() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 60)
        subscriber.pause()  // before the first connection: it never subscribes
        var connection = try #require(daemon.accept(pumping: subscriber))
        connection.send(#"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n", pumping: subscriber)
        #expect(connection.readLine(pumping: subscriber) == Self.unsubscribe)
        connection.send(Self.unsubscribed, pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })

        // The daemon restarts: the new connection is paused too.
        connection.close()
        #expect(pump(subscriber) { !subscriber.state.connected })
        connection = try #require(daemon.accept(pumping: subscriber))
        connection.send(#"{"type":"hello","protocol":1,"server":"parallaxd","version":"0.1.0","max_rate":60}"# + "\n", pumping: subscriber)
        #expect(connection.readLine(pumping: subscriber) == Self.unsubscribe)
        connection.send(Self.unsubscribed, pumping: subscriber)
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(subscriber.isPaused && subscriber.offset == nil)

        subscriber.resume()
        #expect(connection.readLine(pumping: subscriber) == #"{"cmd":"subscribe","rate":60,"rotation":0}"#)
    }
}
