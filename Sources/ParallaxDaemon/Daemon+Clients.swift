import CLinux
import ParallaxProtocol

/// The daemon's side of the server's seam (ClientServer.swift) and of the command router's
/// refusals: lines go to the router, drained sockets to the hub, departures end subscriptions.
extension Daemon: ServerEvents {
    func lineReceived(_ line: [UInt8], from client: ClientConnection) {
        router.handleLine(line, from: client)
        heardFrom(client)
    }

    func clientDrained(_ client: ClientConnection) { hub.drained(client.subscriber) }

    func clientDisconnected(_ client: ClientConnection) {
        heardFrom(client)
        hub.remove(client.subscriber)
        updateHeadingFrames()
        if client.subscriber.subscription != nil { updateDemand() }
    }

    func greeting(for peer: PeerCredentials) -> [UInt8] {
        ServerMessage.hello(maxRate: router.settings.maxRate(for: peer)).encode()
    }

    /// A newcomer may subscribe in a moment: the linger does not close open sensors under it
    /// until its first command, or `newcomerGrace` (Supervisor.keepOpen).
    func clientArrived(_ client: ClientConnection) {
        let now = plx_monotonic_ns()
        let crowd = awaitsNewcomer(now: now)
        newcomers[client.id] = now + Self.newcomerGrace
        supervisor.keepOpen(until: newcomers.values.max() ?? 0)
        // It is about to subscribe: fuse what is queued now, and in short batches until it has
        // spoken (`nextSampleNeed`), so its subscribe finds the latest frame current
        // (`Hub.currentAge`) with next to nothing left to fuse. Once for a crowd arriving (the
        // batches are already short); a silent one whose grace is over does not count.
        if !crowd { supervisor.pump() }
    }

    /// A connection greeted and not yet heard from is within its grace: it may subscribe any moment.
    func awaitsNewcomer(now: Int64) -> Bool {
        newcomers.values.contains { $0 > now }
    }

    /// The connection has said something (or gone): it holds the sensors no more.
    private func heardFrom(_ client: ClientConnection) {
        guard newcomers.removeValue(forKey: client.id) != nil else { return }
        supervisor.keepOpen(until: newcomers.values.max() ?? 0)
    }

    /// Writes a line, arranging to finish later if the socket is full (ClientServer.swift).
    func write(_ line: [UInt8], to client: ClientConnection) { server.write(line, to: client) }

    func reject(_ error: ProtocolError, from client: ClientConnection) { server.reject(error, from: client) }

    func deny(_ error: ProtocolError, from client: ClientConnection, _ what: String) { server.deny(error, from: client, what) }

    func requestAnswered(_ request: ClientRequest, for client: ClientConnection) { server.requestAnswered(request, for: client) }
}
