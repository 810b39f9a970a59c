import CLinux
import Glibc
import ParallaxMotion
import Synchronization
import SystemPackage

/// Runs one `SensorDriver` whose reads may block on its own thread, and hands what it produces
/// to the event loop.
///
/// Why a thread: some reads block (polled sysfs, an accelerometer polled beside buffers while
/// iio-sensor-proxy holds its buffer, a remote IIO context) and must never stall the loop that
/// serves clients. The thread opens the driver (the open may block too: a sysfs walk, an IIO
/// context); a source the loop can read itself (`PollableSource` whose takes never block) is then
/// handed to the loop (`.handedOver`, `LoopCapture`) and the thread ends. Any other source the
/// thread reads and closes itself, and the loop only ever drains `events()`, after the `wake`
/// callback (an eventfd write) tells it something is waiting: the loop never touches the driver.
public final class SensorCapture: RunningCapture, Sendable {
    public typealias Event = CaptureEvent

    /// Samples kept while the loop is busy (`CaptureQueue.limit`).
    public static let queueLimit = CaptureQueue.limit

    /// What the capture thread hands to the loop: events, woken once per batch.
    let shared = Mutex(CaptureQueue())
    /// What the loop tells the capture thread: its need, its rest order, stop (`LoopWord`).
    let word = Mutex(LoopWord())
    /// Wakes the capture thread from a wait at rest (the loop's new order, or stop).
    let wakeFD: FileDescriptor?
    private let thread = Mutex<pthread_t?>(nil)
    private let open: @Sendable () throws(SensorError) -> any SensorDriver
    let wake: @Sendable () -> Void
    /// The source handed over, until the loop takes it.
    private let handedOver = Mutex<HandedOverSource?>(nil)
    /// Set when the thread has closed the driver (or handed it over): a new capture of the same
    /// devices opens only after it (Supervisor.open).
    let end = CaptureEnd()

    /// - Parameters:
    ///   - open: discovers and opens the sensors; called on the capture thread.
    ///   - wake: called (from the capture thread) whenever events are queued.
    public init(open: @escaping @Sendable () throws(SensorError) -> any SensorDriver,
                wake: @escaping @Sendable () -> Void) {
        self.open = open
        self.wake = wake
        let fd = plx_eventfd()
        wakeFD = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    }

    deinit {
        // A thread that ended on its own (a failed open, a lost source, a replay's end) and was
        // never stopped: detached now, so its stack is released (joinable, it would stay mapped,
        // 8 MiB per failed attempt). The thread holds this object until it returns, so this runs
        // once it has ended or is ending.
        if let tid = thread.withLock({ $0 }) { pthread_detach(tid) }
        try? wakeFD?.close()
    }

    /// Wakes the capture thread from a wait at rest (a new order, or stop).
    func signalCaptureThread() {
        if let wakeFD { _ = plx_eventfd_signal(wakeFD.rawValue) }
    }

    /// Starts the capture thread. Returns false if the thread could not be created.
    public func start() -> Bool {
        guard let tid = ThreadStart.joinable({ [self] in self.run() }) else { return false }
        thread.withLock { $0 = tid }
        return true
    }

    /// Asks the thread to stop without waiting for it: a read in progress (a slow network
    /// backend) finishes on its own thread, which then closes the driver and ends. Whatever it
    /// still queues is never read.
    public func stop() {
        word.withLock { $0.stop() }
        signalCaptureThread()
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            pthread_detach(tid)
        }
    }

    /// Stops and waits until the driver is closed (at shutdown, so devices are released before exit).
    public func stopAndWait() {
        word.withLock { $0.stop() }
        signalCaptureThread()
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            pthread_join(tid, nil)
        }
    }

    public var ending: CaptureEnd? { end }

    /// Takes every queued event (oldest first) and the count of samples dropped since last time.
    public func events() -> (events: [Event], dropped: Int) {
        shared.withLock { $0.drain() }
    }

    /// The source the capture thread opened and handed over (`.handedOver`), once; the caller
    /// owns it from here on (reads and closes it). nil when there is none, or it was taken.
    public func takeHandedOver() -> (any PollableSource)? {
        handedOver.withLock { $0.take() }?.markTaken()
    }

    /// An opened source on its way from the capture thread, which never touches it again once
    /// it is here, to the loop. Unchecked Sendable: one side holds it at a time. Closed when
    /// nobody takes it (the capture stopped meanwhile).
    final class HandedOverSource: @unchecked Sendable {
        let source: any PollableSource
        private var taken = false

        init(_ source: any PollableSource) { self.source = source }

        func markTaken() -> any PollableSource {
            taken = true
            return source
        }

        deinit { if !taken { source.close() } }
    }

    func post(_ event: Event, wakingLoop: Bool = true) {
        if shared.withLock({ $0.append(event, wakingLoop: wakingLoop) }) { wake() }
    }


    /// The capture thread's name (/proc/PID/task/TID/comm): tests and `top -H` tell it apart.
    public static let threadName = "plx-capture"

    private func run() {
        // Last of all, after the driver's close (defers run last first).
        defer { end.markEnded() }
        _ = plx_set_thread_name(Self.threadName)
        let shouldStop = { self.isStopping }
        let driver: any SensorDriver
        do {
            driver = try open()
        } catch {
            post(.failed(error))
            return
        }
        if let pollable = driver as? any PollableSource, pollable.takesWithoutBlocking {
            // The loop reads it from here on: no thread, no lock on the sample's way.
            let box = HandedOverSource(pollable)
            handedOver.withLock { $0 = box }
            post(.handedOver)
            return
        }
        defer { driver.close() }
        let resting = driver as? any RestingSource
        let revising = driver as? any RevisedDescriptions
        post(.opened(driver.sensors, SourceAbilities(takesQueued: false, rests: resting != nil,
                                                     bufferingFailed: (driver as? any PollsInPlaceOfBuffer)?.bufferingFailed)))
        var plan = Plan()
        while !shouldStop() {
            plan.refresh(self)
            let outcome: Outcome
            if let resting, let order = plan.rest {
                outcome = runAtRest(resting, order: order, plan: &plan)  // SensorCapture+Rest.swift
            } else {
                do throws(SensorError) {
                    if let sample = try driver.nextSample(shouldStop: shouldStop) {
                        post(.sample(sample), wakingLoop: plan.take(arrival: MonotonicClock.now()))
                        if let revised = revising?.takeRevisedSensors() { post(.revised(revised)) }
                        outcome = .reading
                    } else {
                        outcome = .ended
                    }
                } catch {
                    outcome = .failed(error)
                }
            }
            switch outcome {
            case .reading: continue
            case .ended: if !shouldStop() { post(.ended) }
            case .failed(let error): post(.failed(error))
            }
            return
        }
    }

    /// The loop has asked the capture to stop.
    var isStopping: Bool { word.withLock { $0.stopping } }

    /// What one read on the capture thread came to.
    enum Outcome {
        case reading
        case ended
        case failed(SensorError)
    }
}

/// Everything the loop tells the capture thread, as one value under one lock: each change is
/// counted (`generation`), so that the capture thread's copy (`SensorCapture.Plan`), which it
/// advances itself as it serves the need (`SampleNeed.wakes`), is replaced only when the loop
/// has spoken.
struct LoopWord {
    /// When the loop next needs samples (SamplePacing.swift).
    var need = SampleNeed.everySample
    /// The order to rest, nil: full rate (RestCycle.swift).
    var rest: RestOrder?
    var stopping = false
    /// Counts the loop's changes.
    var generation: UInt64 = 0

    mutating func stop() {
        stopping = true
        generation &+= 1
    }
}
