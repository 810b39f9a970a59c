import Glibc

/// Starting a thread of the process's own (pthreads): the one place the daemon does it. A
/// capture thread (`SensorCapture`) is joinable, so that shutdown can wait for its close;
/// everything else (`BackgroundTask` in the daemon) is detached.
///
/// Why pthreads and not Foundation's `Thread` or a dispatch queue: the daemon links no
/// Foundation (its ICU costs 8–15 MB of RSS), and a blocking read must hold a thread of its own,
/// not one of a shared pool's.
public enum ThreadStart {
    /// Starts `body` on a new joinable thread; returns its id, which the caller joins or detaches
    /// (`pthread_join`, `pthread_detach`), or nil if no thread could be created (out of
    /// resources: `body` is then released unrun).
    public static func joinable(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        start(body, detached: false)
    }

    /// Starts `body` on a new detached thread, whose resources go when it ends; false if no
    /// thread could be created (`body` is then released unrun).
    public static func detached(_ body: @escaping @Sendable () -> Void) -> Bool {
        start(body, detached: true) != nil
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private static func start(_ body: @escaping @Sendable () -> Void, detached: Bool) -> pthread_t? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
        // Retained for the thread, which takes it over; released here if there is no thread.
        let box = Unmanaged.passRetained(Body(body))
        var tid = pthread_t()
        let rc = pthread_create(&tid, &attributes, { arg in
            Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            return nil
        }
        return tid
    }
}
