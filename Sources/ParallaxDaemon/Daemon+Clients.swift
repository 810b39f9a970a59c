import CLinux
import Glibc
import ParallaxProtocol

/// Connections: read lines, write replies, close (accepting: Daemon+Admission.swift).
extension Daemon {
    func maxRate(for client: ClientConnection) -> Int {
        client.peer.isRoot ? config.privilegedMaxRate : config.maxRate
    }

    func clientEvent(_ client: ClientConnection, _ events: UInt32) {
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
                case .tooLong: reject(.lineTooLong, from: client)
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
                self.noteRefusal(client.peer, .stalled, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) has not read for \(self.config.stallTimeout) s: disconnected")
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
        let wasSubscribed = client.subscription != nil
        hub.remove(client)
        clients[client.id] = nil
        slots.remove(id: client.id)
        client.close()
        logger.debug("client \(client.id) disconnected")
        if wasSubscribed { updateDemand() }
    }
}
