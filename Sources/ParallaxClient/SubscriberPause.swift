// Pausing a subscription without closing the connection (docs/client-kit.md "Pausing while
// nobody can see"): a client whose picture cannot be seen sends `unsubscribe`, so the daemon can
// close the sensors after its Linger=, and `subscribe` with the same rate, rotation and heading
// when it can be seen again. One request is on the wire at a time: a pause or resume asked for
// while the other is still unanswered is sent once that answer came, so replies never need
// matching. The paused state survives reconnections (the new connection sends `unsubscribe`
// instead of `subscribe`, which also keeps the daemon's idle rule from closing it).

import CLinux
import ParallaxProtocol

extension ParallaxSubscriber {
    /// Stops the offsets without closing the connection: the next `dispatch()` sends
    /// `unsubscribe` (the descriptor becomes readable for it at once). `offset` keeps the last
    /// frame and `state` what the daemon said before; no offsets or state lines come until
    /// `resume()`. Reconnections after a daemon restart stay paused. Never blocks; a second call
    /// does nothing.
    public func pause() {
        guard !isPaused else { return }
        isPaused = true
        rearm()
    }

    /// Subscribes again with the same rate, rotation and heading: the next `dispatch()` sends
    /// `subscribe`, and the daemon answers with `subscribed`, a `state` line and its current
    /// offset. Never blocks; does nothing when not paused.
    public func resume() {
        guard isPaused else { return }
        isPaused = false
        rearm()
    }

    /// A pause or resume is waiting for the connection to be between requests.
    var pauseChangeDue: Bool {
        (phase == .subscribed && isPaused) || (phase == .paused && !isPaused)
    }

    /// Sends the request that brings the connection to what `isPaused` asks for, when the last
    /// one was answered; called by `dispatch()`.
    func applyPause(now: Int64) {
        guard pauseChangeDue else { return }
        handshakeDeadline = now + Self.handshakeTimeout * Self.nanosecondsPerMillisecond
        if isPaused {
            phase = .awaitingUnsubscribed
            sendUnsubscribe(now: now)
        } else {
            phase = .awaitingSubscribed
            sendSubscribe(now: now)
        }
    }

    func sendUnsubscribe(now: Int64) {
        send(ClientRequest(.unsubscribe), now: now)
    }

    /// Lines while paused or pausing: the offsets and state lines the daemon sent before it read
    /// `unsubscribe` are dropped (the pause holds the last frame); `unsubscribed` completes the
    /// pause, and on a new connection makes it connected.
    func handlePausedLine(_ value: JSONValue, type: String, now: Int64) {
        switch ServerMessage.decode(value) {
        case .unsubscribed? where phase == .awaitingUnsubscribed:
            phase = .paused
            handshakeDeadline = nil
            if !state.connected {
                subscribedAt = now
                problem = nil
                state.connected = true
                changed = true
            }
            log?(.info, "paused the subscription to parallaxd at \(path) (connected, no offsets)")
        case .error(let error)? where phase == .awaitingUnsubscribed && !state.connected:
            // A new connection's first request refused (the daemon is full, or an odd one).
            fail(error.code == .permissionDenied ? .accessDenied(message: error.message) : .refused(error), now: now)
        case .offset?, .state?:
            break
        default:
            ignoredLines += 1
        }
    }
}
