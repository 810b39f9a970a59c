// The daemon's side of the command router and the hub, with sockets replaced by a record of
// every line each connection would be sent. It does what Daemon+Commands.swift and
// ClientServer.swift do with a line (the hub calls, strikes, the strike limit), so the router
// and the hub run as in parallaxd; what it records is what the invariants are checked on.

import ParallaxConfig
@testable import ParallaxDaemon
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

final class FuzzDaemon: CommandEffects, FrameRefresher {
    /// A line the daemon wrote to a connection, and whether it answers a client line (a reply,
    /// an error) or comes unasked (frames, state lines, a closing error).
    struct Sent {
        var line: [UInt8]
        var isAnswer: Bool
    }

    let loop: EventLoop
    private(set) var hub: Hub!
    private(set) var router: CommandRouter!
    /// Everything sent, per connection id.
    private(set) var sent: [Int: [Sent]] = [:]
    /// Answers since `beginLine` (every client line must get exactly one).
    private(set) var answers = 0
    var reduceMotion = false

    init(settings: CommandRouter.Settings) throws {
        loop = try EventLoop()
        hub = Hub(loop: loop, refresher: self)
        router = CommandRouter(settings: settings, effects: self)
    }

    func beginLine() { answers = 0 }

    fileprivate func record(_ line: [UInt8], to client: ClientConnection, answer: Bool) {
        guard !client.isClosed else { return }
        sent[client.id, default: []].append(Sent(line: line, isAnswer: answer))
        if answer { answers += 1 }
    }

    /// What ClientServer.reject does: a strike, the error, and the connection closed at the limit.
    func rejectLine(_ error: ProtocolError, from client: ClientConnection) {
        client.strikes += 1
        record(ServerMessage.error(error).encode(), to: client, answer: true)
        if client.strikes >= ClientServer.strikeLimit {
            let reason = ProtocolError(code: .badRequest, message: "too many bad requests; closing the connection", id: nil)
            record(ServerMessage.error(reason).encode(), to: client, answer: false)
            hangUp(client)
        }
    }

    /// What the daemon does when a connection ends (Daemon+Clients.swift).
    func hangUp(_ client: ClientConnection) {
        hub.remove(client.subscriber)
        // ClientConnection.close would close its descriptor: -1 here, which is harmless.
        client.close()
    }

    // MARK: CommandEffects

    func reply(_ line: [UInt8], to client: ClientConnection) { record(line, to: client, answer: true) }
    func reject(_ error: ProtocolError, from client: ClientConnection) { rejectLine(error, from: client) }
    func deny(_ error: ProtocolError, from client: ClientConnection, _ what: String) { rejectLine(error, from: client) }
    func requestAnswered(_ request: ClientRequest, for client: ClientConnection) {}

    func subscribed(_ client: ClientConnection, previous: Subscription?, reply: [UInt8]) {
        let rotation = client.subscriber.subscription?.rotation
        hub.add(client.subscriber)
        record(reply, to: client, answer: true)
        record(stateLine(heading: client.subscriber.wantsHeading ? true : nil), to: client, answer: false)
        if let previous, previous.rotation != rotation {
            hub.republishLatest()
        } else {
            hub.sendLatest(to: client.subscriber)
        }
    }

    func unsubscribed(_ client: ClientConnection, wasSubscribed: Bool, reply: [UInt8]) {
        hub.remove(client.subscriber)
        record(reply, to: client, answer: true)
    }

    func statusReport() -> StatusReport {
        StatusReport(version: ProtocolConstants.serverVersion, source: "fuzz", sensor: .none, sensors: [],
                     mode: "attitude", inputRate: 0, frameRate: 0, subscribers: hub.count, clients: 4,
                     reduceMotion: reduceMotion, calibrated: false, uptime: 1, frame: nil)
    }

    var headingAvailable: Bool { hub.headingAvailable }

    func recenter() {}

    func setReduceMotion(_ on: Bool) {
        guard on != reduceMotion else { return }
        reduceMotion = on
        if on { hub.publishFinal(t: hub.latest.map { $0.t + 1 } ?? 1, offset: .zero) }
        hub.broadcast(stateLine(), headingLine: stateLine(heading: true))
    }

    /// The daemon's calibration run answers with a progress line (CalibrationRun.swift).
    func startCalibration(seconds: Double?, for client: ClientConnection, id: JSONValue?) {
        record(ServerMessage.calibration(.progress(0), id: id).encode(), to: client, answer: true)
    }

    private func stateLine(heading: Bool? = nil) -> [UInt8] {
        ServerMessage.state(sensor: .none, reduceMotion: reduceMotion, calibrated: false,
                            heading: heading.map { $0 && hub.headingAvailable }).encode()
    }

    // MARK: The hub's seams

    /// A connection's lines as the hub writes them (ConnectionLines in parallaxd).
    final class Lines: SubscriberLines {
        unowned let daemon: FuzzDaemon
        weak var connection: ClientConnection?
        init(daemon: FuzzDaemon) { self.daemon = daemon }
        func write(_ line: [UInt8]) {
            guard let connection else { preconditionFailure("the hub wrote to a connection that is gone") }
            precondition(!connection.isClosed && connection.subscriber.subscription != nil,
                         "the hub wrote to a connection that is not subscribed")
            daemon.record(line, to: connection, answer: false)
        }
        var isDrained: Bool { true }
    }

    func lines() -> Lines { Lines(daemon: self) }

    func refreshFrames() {}
}
