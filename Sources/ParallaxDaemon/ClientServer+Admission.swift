import CLinux
import Glibc
import ParallaxConfig
import ParallaxProtocol
import SystemPackage

/// Who gets a connection slot, for how long, and what is logged about those who do not
/// (docs/protocol.md "Connection limits and refused peers"; the policy is ConnectionSlots.swift).
extension ClientServer {
    /// How long accepting pauses when accept() fails and even the reserve descriptor cannot help
    /// (ns): the backlog keeps the connections meanwhile.
    static let acceptPause: Int64 = 100_000_000

    func acceptClients() {
        while true {
            var exhausted = false
            var fd = plx_accept(listener.fd.rawValue)
            if fd < 0 {
                let error = errno
                switch error {
                case EAGAIN, EWOULDBLOCK, EINTR: return
                case ECONNABORTED, EPROTO: continue     // the peer gave up while queued
                case EMFILE, ENFILE:
                    guard descriptorReserve.release() else { pauseAccepting(error); return }
                    fd = plx_accept(listener.fd.rawValue)
                    // Read before the calls below (they may set errno themselves).
                    let retryError = fd < 0 ? errno : 0
                    exhausted = true
                    warnAboutAccept("out of file descriptors (\(String(cString: strerror(error)))): newcomers displace others or are refused")
                    if fd < 0 {
                        descriptorReserve.acquire()
                        if retryError == EAGAIN || retryError == EWOULDBLOCK { return }
                        pauseAccepting(retryError)
                        return
                    }
                default:
                    pauseAccepting(error)
                    return
                }
            }
            admit(FileDescriptor(rawValue: fd), descriptorsExhausted: exhausted)
            if exhausted, !descriptorReserve.acquire() {
                pauseAccepting(EMFILE)
                return
            }
        }
    }

    /// Stops watching the listener for `acceptPause`: a listener that stays readable while
    /// accept() fails would otherwise wake the loop in a spin.
    private func pauseAccepting(_ error: Int32) {
        warnAboutAccept("accept failed (\(String(cString: strerror(error)))): accepting paused for \(Self.acceptPause / 1_000_000) ms")
        guard let token = listenerToken else { return }
        loop.modify(token, fd: listener.fd, events: 0)
        loop.schedule(at: plx_monotonic_ns() + Self.acceptPause) { [unowned self] in
            self.loop.modify(token, fd: self.listener.fd, events: PLX_EPOLLIN)
        }
    }

    /// At most one such warning per refusal-log window.
    private func warnAboutAccept(_ message: String) {
        let now = plx_monotonic_ns()
        guard lastAcceptWarning == 0 || now - lastAcceptWarning >= refusals.window else { return }
        lastAcceptWarning = now
        logger.warning("\(message)")
    }

    /// Closes the connections of `uid` whose peers have already hung up, before that user is
    /// refused for being at its limit.
    ///
    /// Why: the accept loop takes every queued connection before the loop turns to other
    /// events, so a client that connects, reads its hello and closes, again and again, can run
    /// ahead of its own hang-ups and be refused for connections that are gone (seen as a flaky
    /// test). One poll() over that user's descriptors (at most `perUserLimit`) tells; a flood
    /// at its limit pays that one syscall per refused connection.
    private func reapDeparted(uid: uid_t) {
        let mine = clients.values.filter { $0.peer.uid == uid && !$0.isClosed }
        var fds = mine.map { pollfd(fd: $0.fd.rawValue, events: PLX_POLLRDHUP, revents: 0) }
        guard !fds.isEmpty, poll(&fds, nfds_t(fds.count), 0) > 0 else { return }
        let gone = PLX_POLLRDHUP | Int16(POLLHUP | POLLERR)
        for (client, p) in zip(mine, fds) where p.revents & gone != 0 {
            // As if the loop had reached its event: pending lines are handled, then the hang-up.
            clientEvent(client, PLX_EPOLLIN | PLX_EPOLLRDHUP)
        }
    }

    private func admit(_ fd: FileDescriptor, descriptorsExhausted: Bool) {
        let peer: PeerCredentials
        switch PeerCredentials.of(socket: fd) {
        case .success(let credentials): peer = credentials
        case .failure(let error):
            // Without credentials no access decision is possible: refuse rather than guess.
            warnAboutAccept("refusing a client whose credentials cannot be read: \(error)")
            try? fd.close()
            return
        }
        if slots.count(of: peer.uid) >= slots.perUserLimit { reapDeparted(uid: peer.uid) }
        // A user over its limit is refused before the access lists are consulted (group and seat
        // lookups read files): that is the flood's common case, and it should cost the least.
        let overLimit = slots.count(of: peer.uid) >= slots.perUserLimit
        let stranger = !overLimit && !settings.access.maySubscribe(peer) && !settings.access.mayControl(peer)
        let lines = ConnectionLines(server: self)
        let client = ClientConnection(id: nextClientID, fd: fd, peer: peer, lines: lines)
        lines.connection = client
        nextClientID += 1
        switch slots.admission(uid: peer.uid, stranger: stranger, descriptorsExhausted: descriptorsExhausted) {
        case .refuse(let why):
            let message = why == .userLimit
                ? "too many connections from uid \(peer.uid) (\(settings.maxClientsPerUser)); try again later"
                : "too many clients (\(settings.maxClients)); try again later"
            noteRefusal(peer, why == .userLimit ? .userLimit : .full, "refusing client pid \(peer.pid) uid \(peer.uid): \(message)")
            _ = client.send(ServerMessage.error(ProtocolError(code: .unavailable, message: message, id: nil)).encode())
            client.close()
            return
        case .evict(let id):
            guard let victim = connection(id) else { slots.remove(id: id); break }
            let held = slots.count(of: victim.peer.uid)
            noteRefusal(victim.peer, .evicted, "client \(victim.id) (pid \(victim.peer.pid), uid \(victim.peer.uid), one of \(held)) closed to make room for uid \(peer.uid)")
            disconnect(victim, reason: ProtocolError(code: .unavailable,
                message: "closed to make room for another user's connection (uid \(victim.peer.uid) holds \(held)); try again later", id: nil))
        case .admit:
            break
        }
        do {
            client.token = try loop.watch(fd, events: PLX_EPOLLIN | PLX_EPOLLRDHUP) { [unowned self, unowned client] ready in
                self.clientEvent(client, ready)
            }
        } catch {
            logger.error("cannot watch a new client: \(error)")
            client.close()
            return
        }
        register(client)
        slots.add(id: client.id, uid: peer.uid, stranger: stranger)
        startIdleTimer(client)
        logger.debug("client \(client.id) connected (pid \(peer.pid), uid \(peer.uid)\(stranger ? ", may neither subscribe nor control" : ""))")
        write(events.greeting(for: peer), to: client)
        // A stranger may not subscribe: its arrival changes nothing of the sensors.
        if !stranger && !client.isClosed { events.clientArrived(client) }
    }

    /// `IdleTimeout=` after connecting: a stranger's visit ends; anyone else is closed only if it
    /// never had a request answered and is not subscribed.
    private func startIdleTimer(_ client: ClientConnection) {
        let timeout = settings.idleTimeout
        client.idleTimer = loop.schedule(at: plx_monotonic_ns() + Int64(timeout * 1e9)) { [unowned self, weak client] in
            guard let client, !client.isClosed, let holder = self.slots.holders[client.id] else { return }
            client.idleTimer = nil
            let seconds = timeout == timeout.rounded() ? "\(Int(timeout)) s" : "\(timeout) s"
            let message: String
            if holder.stranger {
                message = "a client that may neither subscribe nor control is served for \(seconds); closing the connection"
            } else if !holder.engaged && !holder.subscribed {
                message = "no request within \(seconds); closing the connection"
            } else {
                return
            }
            self.noteRefusal(client.peer, .idle, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)): \(message)")
            self.disconnect(client, reason: ProtocolError(code: .unavailable, message: message, id: nil))
        }
    }

    /// A request was answered (not refused): the connection is in use, and a stranger that was
    /// granted subscribe or control after all (a seat session began) is one no longer.
    func requestAnswered(_ request: ClientRequest, for client: ClientConnection) {
        slots.markEngaged(id: client.id)
        slots.setSubscribed(id: client.id, client.subscriber.subscription != nil)
        switch request.command {
        case .status, .unsubscribe: break
        default: slots.promote(id: client.id)
        }
    }

    /// A request the peer's credentials do not allow: a strike for those who may do something
    /// else; a stranger gets the error and the connection is closed.
    func deny(_ error: ProtocolError, from client: ClientConnection, _ what: String) {
        noteRefusal(client.peer, .denied, "client \(client.id) (pid \(client.peer.pid), uid \(client.peer.uid)) may not \(what)")
        guard slots.holders[client.id]?.stranger == true else {
            reject(error, from: client)
            return
        }
        write(ServerMessage.error(ProtocolError(code: error.code, message: error.message + "; closing the connection", id: error.id)).encode(), to: client)
        disconnect(client, reason: nil)
    }

    /// Logs the first refusal of a burst in full and counts the rest for a summary per window.
    func noteRefusal(_ peer: PeerCredentials, _ reason: RefusalLog.Reason, _ detail: String) {
        guard refusals.record(uid: peer.uid, reason, now: plx_monotonic_ns()) else { return }
        let line = "\(detail) (further refusals for uid \(peer.uid) are summarised every \(refusals.window / 1_000_000_000) s)"
        if reason.isRoutine { logger.info("\(line)") } else { logger.warning("\(line)") }
        scheduleRefusalSummaries()
    }

    private func scheduleRefusalSummaries() {
        guard refusalTimer == nil, let at = refusals.nextFlush else { return }
        refusalTimer = loop.schedule(at: at) { [unowned self] in
            self.refusalTimer = nil
            for summary in self.refusals.flush(now: plx_monotonic_ns()) {
                if summary.isRoutine { self.logger.info("\(summary.line)") } else { self.logger.warning("\(summary.line)") }
            }
            self.scheduleRefusalSummaries()
        }
    }
}
