// libFuzzer entry point for the daemon's command path past the socket: raw bytes through the
// connection's line splitter, the command budget, ClientRequest decoding, the CommandRouter and
// the Hub, with frames published between lines (FuzzScript.swift says how bytes read as steps).
// Sockets are replaced by a record (FuzzDaemon.swift). A crash, a trap or a failed invariant
// below is a bug. Built and run by scripts/fuzz.sh; docs/testing.md says how to replay a crash.

import ParallaxConfig
@testable import ParallaxDaemon
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// The access lists a reload may switch between: who may subscribe and who may control.
private func settings(policy: Int) -> CommandRouter.Settings {
    var config = DaemonConfig()
    switch policy {
    case 0: config.access.subscribers = [.everyone]; config.access.controllers = [.root]
    case 1: config.access.subscribers = [.root]; config.access.controllers = [.root]
    case 2: config.access.subscribers = [.everyone]; config.access.controllers = [.everyone]
    default: config.access.subscribers = [.root]; config.access.controllers = [.everyone]
    }
    return CommandRouter.Settings(config)
}

/// One fuzzer input played against a fresh router and hub.
private struct Session {
    static let peers = [PeerCredentials(pid: 10, uid: 0, gid: 0), PeerCredentials(pid: 11, uid: 1000, gid: 1000),
                        PeerCredentials(pid: 12, uid: 1001, gid: 1001), PeerCredentials(pid: 13, uid: 0, gid: 0)]
    let daemon: FuzzDaemon
    var connections: [ClientConnection] = []
    var current = 0
    var nextID = 1
    /// Command-budget clock (ns); starts past zero like the monotonic clock.
    var clock: Int64 = 1_000_000_000
    /// Lines of each connection already checked, and the last frame seq it saw.
    var checked: [Int: Int] = [:]
    var lastSeq: [Int: UInt64] = [:]
    /// Connections that have asked for the heading at some point: only they may see its fields.
    var askedHeading: Set<Int> = []

    init() throws {
        daemon = try FuzzDaemon(settings: settings(policy: 0))
        for slot in 0..<4 { connections.append(newConnection(slot)) }
    }

    mutating func newConnection(_ slot: Int) -> ClientConnection {
        defer { nextID += 1 }
        let lines = daemon.lines()
        let connection = ClientConnection(id: nextID, fd: FileDescriptor(rawValue: -1), peer: Self.peers[slot], lines: lines)
        lines.connection = connection
        return connection
    }

    mutating func play(_ step: FuzzStep) {
        switch step {
        case .send(let bytes):
            if connections[current].isClosed { connections[current] = newConnection(current) }
            receive(bytes, on: connections[current])
        case .connection(let index): current = index
        case .publish(let x, let y, let vx, let vy, let deliver):
            daemon.hub.publish(t: clock, offset: ViewerOffset(x: x, y: y), velocity: OffsetVelocity(x: vx, y: vy), deliver: deliver)
        case .freshen(let x, let y): daemon.hub.freshen(t: clock, offset: ViewerOffset(x: x, y: y), velocity: .zero)
        case .publishYaw(let yaw, let vyaw):
            let latest = daemon.hub.latest
            daemon.hub.publish(t: clock, offset: latest?.offset ?? .zero, velocity: latest?.velocity ?? .zero,
                               heading: Heading(yaw: yaw, rate: vyaw), offsetMoved: false)
        case .toggleGyroscope: daemon.hub.headingAvailable.toggle()
        case .publishFinal: daemon.hub.publishFinal(t: clock, offset: .zero)
        case .republishLatest: daemon.hub.republishLatest()
        case .deliver: daemon.hub.deliver()
        case .drained: if !connections[current].isClosed { daemon.hub.drained(connections[current].subscriber) }
        case .hangUp: daemon.hangUp(connections[current])
        case .advanceClock(let units): clock += Int64(units) * 10_000_000
        case .reload(let policy): daemon.router.settings = settings(policy: policy)
        }
        checkHub()
        for client in connections { checkLines(of: client) }
    }

    /// What ClientServer.readFrom does with one read's bytes.
    mutating func receive(_ bytes: [UInt8], on client: ClientConnection) {
        for event in client.splitter.feed(bytes) {
            guard !client.isClosed else { return }
            daemon.beginLine()
            var request: ClientRequest?
            if !client.takeCommandToken(rate: DaemonConfig().commandRate, now: clock) {
                daemon.rejectLine(ProtocolError(code: .badRequest, message: "slow down", id: nil), from: client)
            } else {
                switch event {
                case .line(let line):
                    request = try? ClientRequest.decode(line: line).get()
                    if case .subscribe(_, _, .some(true))? = request?.command { askedHeading.insert(client.id) }
                    daemon.router.handleLine(line, from: client)
                case .tooLong: daemon.rejectLine(.lineTooLong, from: client)
                }
            }
            precondition(daemon.answers == 1, "a client line got \(daemon.answers) answers")
            checkAnswer(to: request, on: client)
        }
    }

    /// The answer echoes the request's id, and a subscription is within the peer's cap.
    func checkAnswer(to request: ClientRequest?, on client: ClientConnection) {
        guard let answer = daemon.sent[client.id]?.last(where: \.isAnswer),
              let message = ServerMessage.decode(line: answer.line.dropLast()) else {
            preconditionFailure("the answer is not a protocol line")
        }
        guard let request else { return }
        let id: JSONValue?
        switch message {
        case .subscribed(let rate, _, let heading, let echoed):
            id = echoed
            guard case .subscribe(_, _, let asked) = request.command else { preconditionFailure("subscribed without subscribe") }
            precondition((heading == nil) == (asked == nil), "subscribed says heading \(String(describing: heading)) to a subscribe with \(String(describing: asked))")
            precondition(heading != true || asked == true, "heading granted that was not asked for")
            let cap = daemon.router.settings.maxRate(for: client.peer)
            precondition((1...cap).contains(rate) && client.subscriber.subscription?.rate == rate, "subscribed at \(rate) Hz, cap \(cap)")
        case .unsubscribed(let echoed), .status(_, let echoed), .ok(let echoed), .calibration(_, let echoed): id = echoed
        case .error(let error): id = error.id
        default: preconditionFailure("\(message) does not answer a request")
        }
        precondition(id == request.id, "the answer's id \(String(describing: id)) is not the request's \(String(describing: request.id))")
    }

    /// The hub serves exactly the open connections that hold a subscription.
    func checkHub() {
        let subscribed = connections.filter { !$0.isClosed && $0.subscriber.subscription != nil }
        precondition(daemon.hub.count == subscribed.count, "hub has \(daemon.hub.count) subscribers, connections \(subscribed.count)")
        for client in subscribed {
            let rate = client.subscriber.subscription!.rate
            precondition(rate >= 1 && rate <= DaemonConfig().privilegedMaxRate, "a subscription at \(rate) Hz")
        }
    }

    /// Every line is one protocol line; frames carry finite offsets in [−1, 1] and seq only grows.
    mutating func checkLines(of client: ClientConnection) {
        let lines = daemon.sent[client.id] ?? []
        for sent in lines.dropFirst(checked[client.id] ?? 0) {
            precondition(sent.line.last == UInt8(ascii: "\n") && !sent.line.dropLast().contains(UInt8(ascii: "\n")), "not one line")
            guard let message = ServerMessage.decode(line: sent.line.dropLast()) else {
                preconditionFailure("undecodable line: \(String(decoding: sent.line, as: UTF8.self))")
            }
            if case .state(_, _, _, let heading) = message {
                precondition(heading == nil || askedHeading.contains(client.id), "a heading state line to a v1 client")
            }
            if case .offset(let seq, _, let x, let y, let vx, let vy, let heading) = message {
                if let heading {
                    precondition(askedHeading.contains(client.id), "yaw sent to a client that never asked for it")
                    precondition(heading.yaw.isFinite && abs(heading.yaw) <= 3.1416 && heading.vyaw.isFinite, "a bad yaw")
                }
                precondition(x.isFinite && y.isFinite && vx.isFinite && vy.isFinite, "a frame with NaN or infinity")
                precondition(abs(x) <= 1 && abs(y) <= 1, "a frame outside [-1, 1]")
                precondition(seq > lastSeq[client.id, default: 0], "frame seq \(seq) after \(lastSeq[client.id, default: 0])")
                lastSeq[client.id] = seq
            }
        }
        checked[client.id] = lines.count
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouterAndHub(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let steps = FuzzScript.steps(UnsafeRawBufferPointer(start: data, count: size))
    var session: Session
    do { session = try Session() } catch { fatalError("no event loop: \(error)") }
    for step in steps { session.play(step) }
    return 0
}
