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
            var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
            _ = plx_peer_credentials(fd, &pid, &uid, &gid)
            let client = ClientConnection(id: nextClientID, fd: fd, peer: PeerCredentials(pid: pid, uid: uid, gid: gid))
            nextClientID += 1
            if clients.count >= config.maxClients {
                logger.warning("refusing client pid \(pid) uid \(uid): \(config.maxClients) clients already connected")
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
            logger.debug("client \(client.id) connected (pid \(pid), uid \(uid))")
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
        case .blocked: watchWritable(client, true)
        case .overflow:
            logger.warning("client \(client.id) (pid \(client.peer.pid)) stopped reading: disconnected")
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
        let wasSubscribed = client.subscription != nil
        hub.remove(client)
        clients[client.id] = nil
        client.close()
        logger.debug("client \(client.id) disconnected")
        if wasSubscribed { updateDemand() }
    }
}
