import CLinux
import Glibc
import ParallaxProtocol

/// Connections: accept, read lines, write replies, close.
extension Daemon {
    func acceptClients() {
        while true {
            let fd = plx_accept(listener.fd)
            if fd < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                // EMFILE and friends: log and leave the rest in the backlog for later.
                logger.error("accept failed: \(String(cString: strerror(errno)))")
                return
            }
            guard let peer = PeerCredentials.of(socket: fd) else {
                // Without credentials no access decision is possible: refuse rather than guess.
                logger.warning("refusing a client whose credentials cannot be read: \(String(cString: strerror(errno)))")
                close(fd)
                continue
            }
            let client = ClientConnection(id: nextClientID, fd: fd, peer: peer)
            nextClientID += 1
            if clients.count >= config.maxClients {
                logger.warning("refusing client pid \(peer.pid) uid \(peer.uid): \(config.maxClients) clients already connected")
                _ = client.send(ServerMessage.error(ProtocolError(code: .unavailable, message: "too many clients (\(config.maxClients)); try again later", id: nil)).encode())
                client.close()
                continue
            }
            do {
                client.token = try loop.watch(fd, events: PLX_EPOLLIN | PLX_EPOLLRDHUP) { [unowned self, unowned client] events in
                    self.clientEvent(client, events)
                }
            } catch {
                logger.error("cannot watch a new client: \(error)")
                client.close()
                continue
            }
            clients[client.id] = client
            logger.debug("client \(client.id) connected (pid \(peer.pid), uid \(peer.uid))")
            write(ServerMessage.hello(maxRate: maxRate(for: client)).encode(), to: client)
        }
    }

    func maxRate(for client: ClientConnection) -> Int {
        client.peer.isRoot ? config.privilegedMaxRate : config.maxRate
    }

    private func clientEvent(_ client: ClientConnection, _ events: UInt32) {
        if events & PLX_EPOLLOUT != 0 {
            switch client.flush() {
            case .done:
                watchWritable(client, false)
                if let timer = client.stallTimer { loop.cancel(timer); client.stallTimer = nil }
                hub.clientDrained(client)
            case .blocked, .overflow: break
            case .failed: disconnect(client, reason: nil)
            }
        }
        guard !client.isClosed else { return }
        if events & (PLX_EPOLLIN | PLX_EPOLLHUP | PLX_EPOLLERR | PLX_EPOLLRDHUP) != 0 {
            readFrom(client)
        }
    }

    private func readFrom(_ client: ClientConnection) {
        // Bounded per wake-up so one chatty client cannot starve the others.
        for _ in 0..<4 {
            let n = client.read(into: &readBuffer)
            if n == 0 { disconnect(client, reason: nil); return }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                disconnect(client, reason: nil)
                return
            }
            let lines = client.splitter.feed(readBuffer[0..<n])
            for event in lines {
                guard !client.isClosed else { return }
                guard client.takeCommandToken(rate: config.commandRate, now: plx_monotonic_ns()) else {
                    reject(ProtocolError(code: .badRequest, message: "more than \(Int(config.commandRate)) commands per second; slow down", id: nil), from: client)
                    continue
                }
                switch event {
                case .line(let line): handleLine(line, from: client)
                case .tooLong:
                    reject(ProtocolError(code: .tooLong, message: "line longer than \(ProtocolConstants.maxLineLength) bytes", id: nil), from: client)
                }
            }
            if n < readBuffer.count { return }
        }
    }

    /// Writes a line, arranging to finish later if the socket is full.
    func write(_ line: [UInt8], to client: ClientConnection) {
        switch client.send(line) {
        case .done: break
        case .blocked:
            guard client.stallTimer == nil, let since = client.blockedSince else { return }
            watchWritable(client, true)
            let timeout = Int64(config.stallTimeout * 1e9)
            client.stallTimer = loop.schedule(at: since + timeout) { [unowned self, weak client] in
                guard let client, !client.isClosed else { return }
                client.stallTimer = nil
                guard let blocked = client.blockedSince, plx_monotonic_ns() - blocked >= timeout else { return }
                self.logger.warning("client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) has not read for \(self.config.stallTimeout) s: disconnected")
                self.disconnect(client, reason: nil)
            }
        case .overflow:
            logger.warning("client \(client.id) (pid \(client.peer.pid)) left \(ClientConnection.outputLimit / 1024) KiB unread: disconnected")
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
            logger.warning("client \(client.id) (pid \(client.peer.pid)) sent \(client.strikes) bad requests: disconnected")
            disconnect(client, reason: ProtocolError(code: .badRequest, message: "too many bad requests; closing the connection", id: nil))
        }
    }

    func disconnect(_ client: ClientConnection, reason: ProtocolError?) {
        guard !client.isClosed else { return }
        if let reason { _ = client.send(ServerMessage.error(reason).encode()) }
        if let token = client.token { loop.unwatch(token, fd: client.fd) }
        client.token = nil
        if let timer = client.stallTimer { loop.cancel(timer); client.stallTimer = nil }
        let wasSubscribed = client.subscription != nil
        hub.remove(client)
        clients[client.id] = nil
        client.close()
        logger.debug("client \(client.id) disconnected")
        if wasSubscribed { updateDemand() }
    }
}
