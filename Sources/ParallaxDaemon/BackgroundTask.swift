import CLinux
import Glibc
import ParallaxIIO
import Synchronization
import SystemPackage

/// Work that may block (a disk's fsync) run on a thread of its own, its result handed back on
/// the event loop: the loop watches an eventfd the thread signals when done.
///
/// Why: the loop serves every client; a write to a slow or busy disk can take seconds, and a
/// stalled loop starves subscribers and, under systemd's watchdog, gets the daemon killed.
enum BackgroundTask {
    /// Runs `work` off the loop and then `done` with its result on the loop. When no thread or
    /// eventfd can be had (out of resources), runs both here and now: late beats never.
    static func run<Result: Sendable>(on loop: EventLoop, _ work: @escaping @Sendable () -> Result,
                                      then done: @escaping (Result) -> Void) {
        let raw = plx_eventfd()
        guard raw >= 0 else { done(work()); return }
        let signal = FileDescriptor(rawValue: raw)
        let outcome = Outcome<Result>()
        let token: EventLoop.Token
        do {
            // Level-triggered: the eventfd stays readable until the loop has handled it.
            var watched: EventLoop.Token?
            token = try loop.watch(signal, events: PLX_EPOLLIN) { _ in
                guard let watched, let result = outcome.value.withLock({ $0.take() }) else { return }
                loop.unwatch(watched, fd: signal)
                try? signal.close()
                done(result)
            }
            watched = token
        } catch {
            try? signal.close()
            done(work())
            return
        }
        let started = detached {
            outcome.value.withLock { $0 = work() }
            _ = plx_eventfd_signal(raw)
        }
        if !started {
            loop.unwatch(token, fd: signal)
            try? signal.close()
            done(work())
        }
    }

    /// The worker's result, from its thread to the loop's.
    private final class Outcome<Result: Sendable>: Sendable {
        let value = Mutex<Result?>(nil)
    }

    /// Starts `body` on a new detached thread (its resources go when it ends); false if none
    /// could be created.
    static func detached(_ body: @escaping @Sendable () -> Void) -> Bool {
        ThreadStart.detached(body)
    }
}
