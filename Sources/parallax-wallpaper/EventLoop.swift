// The one poll(2) loop: the Wayland connection, each output's subscriber descriptor, the desktop
// bus and a signalfd for SIGTERM/SIGINT. No timeouts of its own: when nothing moves, nothing
// wakes it (the subscriber's descriptor carries its reconnect timer, sd-bus says its own, a
// surface with a frame due says when to draw it).

import CLinux
import CWayland
import Glibc

struct LoopSource {
    var descriptor: Int32
    var events: Int16 = Int16(POLLIN)
    var ready: (_ revents: Int16) -> Void
}

final class EventLoop {
    let display: OpaquePointer
    /// The descriptors to watch besides Wayland's, asked for before every wait (outputs come
    /// and go, the bus changes what it waits for).
    var sources: () -> [LoopSource] = { [] }
    /// Milliseconds until some source needs a call without input; nil = none.
    var timeout: () -> Int32? = { nil }
    /// Runs after each wake-up's events were handled.
    var afterWakeup: () -> Void = {}
    /// Runs on SIGHUP (read the scene again); the loop goes on.
    var hangUp: () -> Void = {}
    private(set) var wakeups = 0
    private var running = true
    private let signals: Int32

    init(display: OpaquePointer) {
        self.display = display
        // SIGTERM and SIGINT end the loop cleanly (the compositor sees the surfaces go); SIGHUP
        // reloads the scene.
        signals = plx_signalfd_standard()
    }

    func stop() { running = false }

    /// Runs until stop(), a signal, or the compositor going away (then returns false).
    func run() -> Bool {
        while running {
            while wl_display_prepare_read(display) != 0 {
                guard wl_display_dispatch_pending(display) >= 0 else { return false }
            }
            // A full socket (EAGAIN) is fine: the rest goes out on a later turn.
            if wl_display_flush(display) < 0 && errno != EAGAIN {
                wl_display_cancel_read(display)
                return false
            }
            let extra = sources()
            var fds = [pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            fds += extra.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
            let result = poll(&fds, nfds_t(fds.count), timeout() ?? -1)
            wakeups += 1
            if result < 0 {
                wl_display_cancel_read(display)
                if errno == EINTR { continue }
                return false
            }
            if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                guard wl_display_read_events(display) >= 0 else { return false }
            } else {
                wl_display_cancel_read(display)
            }
            guard wl_display_dispatch_pending(display) >= 0 else { return false }
            if fds[1].revents != 0 {
                // Every signal queued since the last turn; any but SIGHUP ends the loop.
                var hangUps = 0
                while true {
                    let signal = plx_signalfd_read(signals)
                    if signal < 0 { break }
                    if signal != SIGHUP { return true }
                    hangUps += 1
                }
                if hangUps > 0 { hangUp() }
            }
            for (index, source) in extra.enumerated() where fds[index + 2].revents != 0 {
                source.ready(fds[index + 2].revents)
            }
            afterWakeup()
        }
        return true
    }
}
