import CLinux
import Glibc
import Logging
import ParallaxConfig
import ParallaxProtocol
import SystemPackage

/// What the server tells the daemon about its connections, on the loop thread.
protocol ServerEvents: AnyObject {
    /// A complete line from a client, within its command budget.
    func lineReceived(_ line: [UInt8], from client: ClientConnection)
    /// The client's socket took everything queued: it may take the frame it missed.
    func clientDrained(_ client: ClientConnection)
    /// The connection is closed and forgotten (its subscription, if any, is still set).
    func clientDisconnected(_ client: ClientConnection)
    /// The first line a new connection gets (`hello` with the peer's rate cap).
    func greeting(for peer: PeerCredentials) -> [UInt8]
    /// A connection was accepted and greeted; its first command is yet to come.
    func clientArrived(_ client: ClientConnection)
}

/// The server side: the listening socket and every connection, who gets a slot
/// (ConnectionSlots.swift, ClientServer+Admission.swift), reading lines and writing replies
/// and frames without ever blocking on a client, and closing connections.
final class ClientServer {
    /// What the server decides by (`[Daemon]` and `[Access]`), replaced on reload.
    struct Settings: Equatable {
        var idleTimeout: Double
        var stallTimeout: Double
        var commandRate: Double
        var maxClients: Int
        var maxClientsPerUser: Int
        var access: AccessPolicy

        init(_ config: DaemonConfig) {
            idleTimeout = config.idleTimeout
            stallTimeout = config.stallTimeout
            commandRate = config.commandRate
            maxClients = config.maxClients
            maxClientsPerUser = config.maxClientsPerUser
            access = config.access
        }
    }

    /// Bad lines a client may send before it is disconnected.
    static let strikeLimit = 10

    let logger = Logger(label: "parallaxd")
    let loop: EventLoop
    let listener: Listener
    unowned let events: any ServerEvents
    var settings: Settings {
        didSet {
            slots.capacity = settings.maxClients
            slots.perUserLimit = settings.maxClientsPerUser
        }
    }
    var listenerToken: EventLoop.Token?
    private(set) var clients: [Int: ClientConnection] = [:]
    /// Connection slots and who gives one up (ConnectionSlots.swift, ClientServer+Admission.swift).
    var slots: ConnectionSlots
    var refusals = RefusalLog()
    var refusalTimer: EventLoop.TimerID?
    var descriptorReserve: DescriptorReserve
    var lastAcceptWarning: Int64 = 0
    var nextClientID = 1
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// Serves `listener` (bound or adopted, with `reserve` taken before it); accepts from `start`.
    init(loop: EventLoop, listener: Listener, reserve: DescriptorReserve, settings: Settings, events: any ServerEvents) {
        self.loop = loop
        self.listener = listener
        descriptorReserve = reserve
        self.settings = settings
        self.events = events
        slots = ConnectionSlots(capacity: settings.maxClients, perUserLimit: settings.maxClientsPerUser)
    }

    /// Starts accepting connections.
    func start() throws(Errno) {
        listenerToken = try loop.watch(listener.fd, events: PLX_EPOLLIN) { [unowned self] _ in self.acceptClients() }
    }

    var clientCount: Int { clients.count }

    /// Closes every connection and the listener (at shutdown).
    func close() {
        for client in clients.values { client.close() }
        clients.removeAll()
        listener.close()
    }

    /// A connection admitted (ClientServer+Admission.swift).
    func register(_ client: ClientConnection) { clients[client.id] = client }

    func connection(_ id: Int) -> ClientConnection? { clients[id] }

    func clientEvent(_ client: ClientConnection, _ ready: UInt32) {
        if ready & PLX_EPOLLOUT != 0 {
            switch client.flush() {
            case .done:
                watchWritable(client, false)
                if let timer = client.stallTimer { loop.cancel(timer); client.stallTimer = nil }
                events.clientDrained(client)
            case .blocked, .overflow: break
            case .failed: disconnect(client, reason: nil)
            }
        }
        guard !client.isClosed else { return }
        if ready & (PLX_EPOLLIN | PLX_EPOLLHUP | PLX_EPOLLERR | PLX_EPOLLRDHUP) != 0 {
            readFrom(client)
        }
    }

    private func readFrom(_ client: ClientConnection) {
        // Bounded per wake-up so one chatty client cannot starve the others.
        for _ in 0..<4 {
            let n: Int
            switch client.read(into: &readBuffer) {
            case .data(let count): n = count
            case .wouldBlock: return
            case .ended: disconnect(client, reason: nil); return
            }
            let lines = client.splitter.feed(readBuffer[0..<n])
            for event in lines {
                guard !client.isClosed else { return }
                guard client.takeCommandToken(rate: settings.commandRate, now: plx_monotonic_ns()) else {
                    reject(ProtocolError(code: .badRequest, message: "more than \(Int(settings.commandRate)) commands per second; slow down", id: nil), from: client)
                    continue
                }
                switch event {
                case .line(let line): events.lineReceived(line, from: client)
                case .tooLong: reject(.lineTooLong, from: client)
                }
            }
            // The batch's last line may have closed the connection (the last strike, a refusal).
            if n < readBuffer.count || client.isClosed { return }
        }
    }

    /// Writes a line, arranging to finish later if the socket is full.
    func write(_ line: [UInt8], to client: ClientConnection) {
        switch client.send(line) {
        case .done: break
        case .blocked:
            guard client.stallTimer == nil, let since = client.blockedSince else { return }
            watchWritable(client, true)
            let timeout = Int64(settings.stallTimeout * 1e9)
            client.stallTimer = loop.schedule(at: since + timeout) { [unowned self, weak client] in
                guard let client, !client.isClosed else { return }
                client.stallTimer = nil
                guard let blocked = client.blockedSince, plx_monotonic_ns() - blocked >= timeout else { return }
                self.noteRefusal(client.peer, .stalled, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) has not read for \(self.settings.stallTimeout) s: disconnected")
                self.disconnect(client, reason: nil)
            }
        case .overflow:
            noteRefusal(client.peer, .stalled, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) left \(ClientConnection.outputLimit / 1024) KiB unread: disconnected")
            disconnect(client, reason: nil)
        case .failed: disconnect(client, reason: nil)
        }
    }

    private func watchWritable(_ client: ClientConnection, _ on: Bool) {
        guard let token = client.token else { return }
        loop.modify(token, fd: client.fd, events: PLX_EPOLLIN | PLX_EPOLLRDHUP | (on ? PLX_EPOLLOUT : 0))
    }

    /// An error reply that counts against the client; too many and it is disconnected.
    func reject(_ error: ProtocolError, from client: ClientConnection) {
        client.strikes += 1
        write(ServerMessage.error(error).encode(), to: client)
        if client.strikes >= Self.strikeLimit {
            noteRefusal(client.peer, .badRequests, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) sent \(client.strikes) bad requests: disconnected")
            disconnect(client, reason: ProtocolError(code: .badRequest, message: "too many bad requests; closing the connection", id: nil))
        }
    }

    func disconnect(_ client: ClientConnection, reason: ProtocolError?) {
        guard !client.isClosed else { return }
        if let reason { _ = client.send(ServerMessage.error(reason).encode()) }
        if let token = client.token { loop.unwatch(token, fd: client.fd) }
        client.token = nil
        if let timer = client.stallTimer { loop.cancel(timer); client.stallTimer = nil }
        if let timer = client.idleTimer { loop.cancel(timer); client.idleTimer = nil }
        clients[client.id] = nil
        slots.remove(id: client.id)
        client.close()
        logger.debug("client \(client.id) disconnected")
        events.clientDisconnected(client)
    }
}

/// The server's end of one connection's subscriber (`SubscriberLines`): the hub's lines go
/// through `ClientServer.write`, which queues what the socket does not take and disconnects a
/// client that stops reading. Weak, because the connection owns its subscriber and this.
final class ConnectionLines: SubscriberLines {
    private unowned let server: ClientServer
    weak var connection: ClientConnection?

    init(server: ClientServer) { self.server = server }

    func write(_ line: [UInt8]) {
        guard let connection else { return }
        server.write(line, to: connection)
    }

    /// A closed or gone connection takes nothing.
    var isDrained: Bool { connection.map { !$0.isClosed && $0.isDrained } ?? false }
}
