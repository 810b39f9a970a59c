import Glibc
import ParallaxMotion
import Synchronization

/// Runs one `SensorDriver` on its own thread and hands what it produces to the event loop.
///
/// Why a thread: sensor reads block (sysfs, buffers, a replay's pacing) and must never stall the
/// loop that serves clients. The thread owns the driver; the loop only drains `events()` after the
/// `wake` callback (an eventfd write) tells it something is waiting.
public final class SensorCapture: Sendable {
    public enum Event: Sendable, Equatable {
        case opened([SensorDescription])
        case sample(Sample)
        /// The driver failed to open or was lost; the capture thread has ended.
        case failed(SensorError)
        /// The stream ended normally (a replay without looping); the capture thread has ended.
        case ended
    }

    /// Samples kept while the loop is busy; beyond it the oldest are dropped (the engine only
    /// needs recent motion, and an unbounded queue would grow without limit behind a stalled loop).
    public static let queueLimit = 4096

    private struct Shared {
        var events: [Event] = []
        var dropped = 0
        /// The loop has been woken and has not drained yet: no second wake is needed.
        var wakePending = false
    }

    private let shared = Mutex(Shared())
    private let stopping = Atomic<Bool>(false)
    /// Monotonic time (ns) before which samples need not wake the loop (see `wakeForSamples`).
    private let sampleWakeTime = Atomic<Int64>(0)
    private let thread = Mutex<pthread_t?>(nil)
    private let open: @Sendable () throws(SensorError) -> any SensorDriver
    private let wake: @Sendable () -> Void

    /// - Parameters:
    ///   - open: discovers and opens the sensors; called on the capture thread.
    ///   - wake: called (from the capture thread) whenever events are queued.
    public init(open: @escaping @Sendable () throws(SensorError) -> any SensorDriver,
                wake: @escaping @Sendable () -> Void) {
        self.open = open
        self.wake = wake
    }

    /// Starts the capture thread. Returns false if the thread could not be created.
    public func start() -> Bool {
        final class Box { let run: () -> Void; init(_ run: @escaping () -> Void) { self.run = run } }
        let box = Box { [self] in self.run() }
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            let box = Unmanaged<AnyObject>.fromOpaque(arg!).takeRetainedValue() as! Box
            box.run()
            return nil
        }, Unmanaged<AnyObject>.passRetained(box).toOpaque())
        guard rc == 0 else { return false }
        thread.withLock { $0 = tid }
        return true
    }

    /// Asks the thread to stop without waiting for it: a read in progress (a slow network
    /// backend) finishes on its own thread, which then closes the driver and ends. Whatever it
    /// still queues is never read.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            pthread_detach(tid)
        }
    }

    /// Stops and waits until the driver is closed (at shutdown, so devices are released before exit).
    public func stopAndWait() {
        stopping.store(true, ordering: .releasing)
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            pthread_join(tid, nil)
        }
    }

    /// Takes every queued event (oldest first) and the count of samples dropped since last time.
    public func events() -> (events: [Event], dropped: Int) {
        shared.withLock { s in
            defer { s.events.removeAll(keepingCapacity: true); s.dropped = 0; s.wakePending = false }
            return (s.events, s.dropped)
        }
    }

    /// Samples taken before `time` (monotonic ns) are queued without waking the loop; the first
    /// one at or after it wakes the loop, which then takes the whole batch. Other events always
    /// wake it.
    ///
    /// Why: the loop only needs samples when a subscriber is due for a frame (30–60 Hz), while
    /// sensors deliver 100–200 Hz. Waking it for every sample doubled the daemon's wake-ups; the
    /// engine integrates the batch in order, so nothing is lost, and the sample that wakes the
    /// loop is the fresh one the due subscriber gets, so latency does not grow.
    public func wakeForSamples(after time: Int64) {
        sampleWakeTime.store(time, ordering: .relaxed)
    }

    private func post(_ event: Event) {
        let isSample: Bool
        if case .sample = event { isSample = true } else { isSample = false }
        let due = !isSample || MonotonicClock.now() >= sampleWakeTime.load(ordering: .relaxed)
        let mustWake = shared.withLock { s -> Bool in
            if s.events.count >= Self.queueLimit, case .sample = s.events[0] {
                s.events.removeFirst()
                s.dropped += 1
            }
            s.events.append(event)
            // One wake per batch: the loop drains everything it finds.
            guard due, !s.wakePending else { return false }
            s.wakePending = true
            return true
        }
        if mustWake { wake() }
    }

    private func run() {
        let shouldStop = { self.stopping.load(ordering: .acquiring) }
        let driver: any SensorDriver
        do {
            driver = try open()
        } catch {
            post(.failed(error))
            return
        }
        defer { driver.close() }
        post(.opened(driver.sensors))
        while !shouldStop() {
            do {
                guard let sample = try driver.nextSample(shouldStop: shouldStop) else {
                    if !shouldStop() { post(.ended) }
                    return
                }
                post(.sample(sample))
            } catch {
                post(.failed(error))
                return
            }
        }
    }
}
