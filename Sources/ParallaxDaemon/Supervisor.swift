import CLinux
import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// Opens sensors only while someone needs them, and reopens them when they are lost.
///
/// Demand comes from the daemon: subscribers present and motion not reduced, a calibration
/// running, and a moment at start-up (to learn what sensors exist). When demand ends
/// the sensors stay open for `linger` seconds; when it returns they reopen. Failures are retried
/// with a growing delay, but only while there is demand: an idle daemon makes no wake-ups.
/// Those decisions are `SensorLifecycle`'s; this carries them out (`perform`).
final class Supervisor {
    private(set) var state: SensorState = .none
    private(set) var sensors: [SensorDescription] = []
    /// False until the first open attempt has had an outcome (`SensorEvents.sensorsFirstOutcome`).
    private var hadOutcome = false

    let loop: EventLoop
    unowned let events: any SensorEvents
    let logger: Logger
    private var factory: @Sendable () throws(SensorError) -> any SensorDriver
    private var sourceName: String
    /// The source is this machine's IIO devices: their arrival can be awaited (Supervisor+Arrivals.swift).
    private(set) var localDevices: Bool
    /// The source is read on the loop itself (`LoopCapture`), not on a capture thread.
    private var readsOnLoop: Bool
    /// Demand, linger, hold and retry: when a capture should exist (SensorLifecycle.swift).
    private(set) var lifecycle: SensorLifecycle
    private let wakeup: SensorWakeup
    private(set) var capture: (any RunningCapture)?
    /// Captures stopped without waiting whose threads may still hold the devices: the next open
    /// waits for them (CaptureEnd.swift), on its capture thread.
    private var stillClosing: [CaptureEnd] = []
    /// What the current capture's source can do, from its `.opened` (none before).
    private(set) var abilities = SourceAbilities()
    var demanded: Bool { lifecycle.demanded }
    private var lingerTimer: EventLoop.TimerID?
    private var retryTimer: EventLoop.TimerID?
    private var lastFailure: String?
    /// The loop's own timer for taking queued samples at a forecast arrival, and the need it serves.
    private var takeTimer: EventLoop.TimerID?
    private var takeNeed: Int64 = 0

    /// Samples taken in the last second, for the status report's input rate.
    private(set) var sampleTimes = RateMeter()
    /// Resting: its decisions (`RestKeeper`), carried out in Supervisor+Rest.swift.
    var rest: RestKeeper

    /// New IIO devices, watched while they could change what is open (Supervisor+Arrivals.swift).
    var arrivals: ArrivalWatch?
    /// iio-sensor-proxy on the system bus, watched while local sensors are wanted (Supervisor+SensorProxy.swift).
    var sensorProxy: SensorProxyWatch?
    /// The current capture has said what it opened (`sensors` is its, not a previous capture's).
    var captureHasOpened = false

    /// Whether the system slept since the capture opened or last looked (Supervisor+Sleep.swift).
    var sleepClock = SleepClock(boottime: plx_boottime_ns(), monotonic: plx_monotonic_ns())
    /// logind's news of sleep, watched while sensors are open or wanted.
    var sleepWatch: SleepWatch?
    /// logind said the system goes to sleep, and has not yet said it is back: nothing opens.
    var asleep = false
    /// The sensors were open (or opening) when the system went to sleep: they open again after it.
    var openAfterSleep = false
    /// Why the capture being opened opens (`SensorEvents.sensorsOpened`): `.fresh` but where the
    /// supervisor closed one only to open it again (a sleep, another try at buffering).
    var reopening = SensorsOpening.fresh
    /// Buffered capture tried again while a capture polls in its place (Supervisor+BufferRetry.swift).
    var bufferRetryTimer: EventLoop.TimerID?
    var bufferRetry = BufferRetryBackoff()

    /// - Parameters:
    ///   - wakeup: signalled by the capture thread; its owner calls `samplesReady()` when it is readable.
    ///   - factory: opens the source's driver (on the capture thread).
    ///   - linger: seconds the sensors stay open after demand ends.
    ///   - rest: whether and how the sensors slow down while the device lies still.
    init(loop: EventLoop, wakeup: SensorWakeup, events: any SensorEvents, logger: Logger, source: String,
         localDevices: Bool = false, readsOnLoop: Bool = false,
         factory: @escaping @Sendable () throws(SensorError) -> any SensorDriver, linger: Double,
         rest: RestSettings = RestSettings()) {
        self.readsOnLoop = readsOnLoop
        self.rest = RestKeeper(settings: rest)
        self.loop = loop
        self.wakeup = wakeup
        self.events = events
        self.logger = logger
        self.factory = factory
        self.sourceName = source
        self.localDevices = localDevices
        lifecycle = SensorLifecycle(linger: Int64(linger * 1e9))
    }

    var source: String { sourceName }

    /// Takes a reloaded config's sensor settings: linger and rest at once; `factory` (the source
    /// and everything it is opened with) from the next open, and now when `reopen` says it
    /// differs from the current one: open sensors close and, if still wanted, open again.
    func reconfigure(source name: String, localDevices: Bool, readsOnLoop: Bool = false,
                     factory: @escaping @Sendable () throws(SensorError) -> any SensorDriver,
                     reopen: Bool, linger: Double, rest: RestSettings = RestSettings()) {
        lifecycle.linger = Int64(linger * 1e9)
        reconfigureRest(rest)
        sourceName = name
        self.localDevices = localDevices
        self.readsOnLoop = readsOnLoop
        self.factory = factory
        defer { updateArrivalWatch() }
        guard reopen else { return }
        perform(lifecycle.reopen())
    }

    /// Someone needs samples (true) or nobody does any more (false).
    func setDemand(_ wanted: Bool) {
        guard wanted != demanded else { return }
        perform(lifecycle.demand(wanted, isOpen: capture != nil, now: plx_monotonic_ns()))
        updateArrivalWatch()
    }

    /// Open sensors stay open until `deadline` (CLOCK_MONOTONIC ns) at least, even with no
    /// demand; 0 lifts the hold. Never opens. The daemon holds them for a connection it has
    /// greeted and not yet heard from: it is about to say whether it subscribes.
    ///
    /// Why: the linger starts when demand ends, which at start-up is at READY=1, before the
    /// client that socket-activated the service has been greeted. On a loaded machine its
    /// subscribe came more than the 2 s linger later (lab, two CPU burners): the sensors closed
    /// under it and reopened, a first frame 1–2 s late instead of at once.
    func keepOpen(until deadline: Int64) {
        perform(lifecycle.keepOpen(until: deadline))
    }

    /// Closes now, for reduce-motion or shutdown.
    func closeNow(wait: Bool = false) {
        reopening = .fresh
        perform(lifecycle.closeNow(), closingWaits: wait)
        updateArrivalWatch()
    }

    /// Opens the sensors afresh for a cause the extensions watch (a device appeared,
    /// iio-sensor-proxy came or went, the clocks say the system slept), as
    /// `SensorLifecycle.reopen` decides.
    func reopenSensors(evenWithoutDemand: Bool = false, opening: SensorsOpening? = nil) {
        perform(lifecycle.reopen(evenWithoutDemand: evenWithoutDemand), opening: opening)
    }

    /// Closes what is open and opens anew for `opening`, leaving the lifecycle as it is: another
    /// try at buffering, the open after a sleep.
    func replaceCapture(opening: SensorsOpening) {
        perform([.reopen], opening: opening)
    }

    /// The system goes to sleep: a waiting retry is dropped; whether one was (the sensors then
    /// open after the sleep).
    func dropRetryForSleep() -> Bool {
        let (actions, retryWasDue) = lifecycle.goingToSleep()
        perform(actions)
        return retryWasDue
    }

    /// The system is back: the retry's wait starts over.
    func noteResumed() { lifecycle.resumed() }

    /// Carries out the lifecycle's decisions, in order. `opening`: why an open here opens
    /// (`SensorEvents.sensorsOpened`; nil keeps the reason already set, such as a sleep's for a
    /// retry after it). `closingWaits`: a close waits for the capture to let go of the devices.
    private func perform(_ actions: [SensorLifecycle.Action], opening: SensorsOpening? = nil, closingWaits: Bool = false) {
        for action in actions {
            switch action {
            case .open:
                if let opening { reopening = opening }
                open()
            case .close:
                closeCapture(wait: closingWaits)
            case .reopen:
                closeCapture(wait: closingWaits)
                if let opening { reopening = opening }
                open()
            case .armLinger(let deadline):
                if let lingerTimer { loop.cancel(lingerTimer) }
                lingerTimer = loop.schedule(at: deadline) { [unowned self] in
                    self.lingerTimer = nil
                    let actions = self.lifecycle.lingerEnded(isOpen: self.capture != nil)
                    if !actions.isEmpty {
                        self.logger.debug("no subscribers for \(Double(self.lifecycle.linger) / 1e9) s: closing sensors")
                    }
                    self.perform(actions)
                }
            case .cancelLinger:
                if let lingerTimer { loop.cancel(lingerTimer); self.lingerTimer = nil }
            case .armRetry(let deadline):
                if let retryTimer { loop.cancel(retryTimer) }
                retryTimer = loop.schedule(at: deadline) { [unowned self] in
                    self.retryTimer = nil
                    self.perform(self.lifecycle.retryDue(isOpen: self.capture != nil,
                                                         awaitingDevices: self.arrivals?.isAwaitingDevices ?? false))
                }
            case .cancelRetry:
                if let retryTimer { loop.cancel(retryTimer); self.retryTimer = nil }
            }
        }
    }

    func open() {
        // Between logind's "going to sleep" and "back", an open would meet devices being
        // suspended: it waits for the resume.
        guard !asleep else {
            openAfterSleep = true
            return
        }
        logger.debug("opening sensors (\(sourceName))")
        let wakeup = self.wakeup
        let capture: any RunningCapture = readsOnLoop
            ? LoopCapture(loop: loop, open: factory, wake: { wakeup.signal() })
            : SensorCapture(open: afterClosingCaptures(factory), wake: { wakeup.signal() })
        guard capture.start() else {
            fail(SensorError(.lost, "cannot start the sensor thread"))
            noteOutcome()
            return
        }
        self.capture = capture
        captureHasOpened = false
        // A sleep while nothing was open needs nothing: this capture starts fresh.
        sleepClock.rebase(boottime: plx_boottime_ns(), monotonic: plx_monotonic_ns())
        updateSensorProxyWatch()
        updateSleepWatch()
    }

    func closeCapture(wait: Bool = false) {
        guard let capture else { return }
        self.capture = nil
        abilities = SourceAbilities()
        cancelTake()
        cancelBufferRetry()
        rest.captureEnded()
        if wait {
            capture.stopAndWait()
        } else {
            capture.stop()
            if let ending = capture.ending { stillClosing.append(ending) }
        }
        sampleTimes = RateMeter()
        events.sensorsClosed()
        updateSensorProxyWatch()
        updateSleepWatch()
    }

    /// `open`, once the captures still closing have let go of the devices, or after
    /// `CaptureEnd.longestWait` each (an open then finds a busy buffer and says so). A replay's
    /// open runs on the loop and touches no device: it does not come through here.
    private func afterClosingCaptures(_ open: @escaping @Sendable () throws(SensorError) -> any SensorDriver)
        -> @Sendable () throws(SensorError) -> any SensorDriver {
        stillClosing.removeAll { $0.hasEnded }
        guard !stillClosing.isEmpty else { return open }
        let closing = stillClosing
        let logger = self.logger
        return { () throws(SensorError) -> any SensorDriver in
            for ending in closing where !ending.wait(upTo: CaptureEnd.longestWait) {
                logger.notice("the sensors' previous capture has not let go of them after \(CaptureEnd.longestWait / 1_000_000) ms: opening anyway")
            }
            return try open()
        }
    }

    /// Takes queued samples now (a new subscriber wants the current offset, not a batch old one).
    func pump() {
        drain()
    }

    /// The wakeup is readable: the capture thread has queued samples or news.
    func samplesReady() {
        drain()
    }

    private func drain() {
        wakeup.drain()
        guard capture != nil, !reopenedAfterSleep(), let capture else { return }
        // Straight from the source when the loop reads it (`LoopCapture`): nothing the source
        // queued is left waiting for the next look.
        let (events, dropped, _) = capture.takeQueuedEvents() ?? { let e = capture.events(); return (e.events, e.dropped, 0) }()
        handle(events, dropped: dropped, from: capture)
        self.events.sampleBatchEnded()
        afterBatch()
    }

    /// The loop's timer at the forecast arrival of the sample a due subscriber needs: take the
    /// queued samples here; if the fresh one is not among them yet, have the capture wait for it
    /// (it wakes the loop when it comes).
    private func takeAtForecast() {
        takeTimer = nil
        guard capture != nil, !reopenedAfterSleep(), let capture else { return }
        guard let (events, dropped, newest) = capture.takeQueuedEvents() else {
            // The source cannot be taken from now (at rest, or away): the capture queues the
            // fresh sample and wakes the loop.
            if case .captureWakes(let need) = SamplePacer.afterTake(newest: nil, need: takeNeed) { capture.wakeForSamples(need) }
            return
        }
        handle(events, dropped: dropped, from: capture)
        guard self.capture === capture else { return }
        switch SamplePacer.afterTake(newest: newest, need: takeNeed) {
        case .batchEnds:
            self.events.sampleBatchEnded()
            afterBatch()
        case .captureWakes(let need):
            capture.wakeForSamples(need)
        }
    }

    /// Decides who takes the next batch: the loop itself at the forecast arrival of the sample
    /// the next due subscriber needs (one wake-up per frame), or the capture, which wakes the
    /// loop with the first sample at or after the need (a capture thread's source, which keeps
    /// nothing, a need that is now, or no forecast).
    func planNextBatch() {
        guard let capture, rest.isRunning else { return }
        cancelTake()
        let plan = SamplePacer.planBatch(need: events.nextSampleNeed(), now: plx_monotonic_ns(),
                                         canTakeQueued: abilities.takesQueued,
                                         forecast: { capture.expectedArrival(ofSampleAt: $0) })
        switch plan {
        case .loopTakes(let at, let need):
            takeNeed = need
            takeTimer = loop.schedule(at: at) { [unowned self] in self.takeAtForecast() }
            // The capture only keeps the source from overflowing meanwhile.
            capture.wakeForSamples(SampleNeed(need: .max))
        case .captureWakes(let need):
            capture.wakeForSamples(need)
        }
    }

    func cancelTake() {
        if let takeTimer { loop.cancel(takeTimer); self.takeTimer = nil }
    }

    private func handle(_ events: [CaptureEvent], dropped: Int, from capture: any RunningCapture) {
        if dropped > 0 { logger.warning("the event loop fell behind: \(dropped) samples dropped") }
        for event in events {
            // A handler below may close or replace the capture; the rest of this batch is stale then.
            guard self.capture === capture else { return }
            defer { switch event { case .sample, .handedOver: break; default: noteOutcome() } }
            switch event {
            case .opened(let sensors, let abilities):
                self.abilities = abilities
                rest.opened(sensors)
                self.sensors = sensors
                lifecycle.opened()
                if lastFailure != nil { logger.notice("sensors are back (\(sourceName))") }
                lastFailure = nil
                self.events.sensorsOpened(reopening)
                reopening = .fresh
                setState(.ok)
                updateArrivalWatch()
                captureHasOpened = true
                planBufferRetry(abilities)
                reconcileWithSensorProxy()
            case .sample(let sample):
                sampleTimes.record(sample.t)
                rest.observe(sample)
                self.events.sensorSample(sample)
            case .revised(let sensors):
                revise(sensors)
            case .resting(let pace, let order):
                restBegan(pace, order: order)
            case .awake(let moved, let order):
                restEnded(moved: moved, order: order)
            case .failed(let error):
                self.capture = nil
                abilities = SourceAbilities()
                cancelTake()
                cancelBufferRetry()
                rest.captureEnded()
                self.events.sensorsClosed()
                fail(error)
            case .handedOver:
                takeOntoLoop(from: capture)
                return
            case .ended:
                self.capture = nil
                abilities = SourceAbilities()
                cancelTake()
                rest.captureEnded()
                self.events.sensorsClosed()
                logger.notice("the replay ended (\(sourceName))")
                setState(.lost)
            }
        }
    }

    /// The capture thread opened a source the loop reads itself and ended: from here on a
    /// `LoopCapture` reads it (its `.opened` follows, as from any capture). The open stayed off
    /// the loop: `Source=auto` learns only inside it, after a sysfs walk and perhaps an IIO
    /// context, that it reads an evdev device.
    private func takeOntoLoop(from thread: any RunningCapture) {
        guard let source = (thread as? SensorCapture)?.takeHandedOver() else { return }
        thread.stopAndWait()
        let wakeup = self.wakeup
        let onLoop = LoopCapture(loop: loop, opened: source, wake: { wakeup.signal() })
        capture = onLoop
        _ = onLoop.start()
    }

    /// The open sensors' descriptions changed (the capture's own news, or what the supervisor adds).
    func revise(_ sensors: [SensorDescription]) {
        self.sensors = sensors
    }

    private func fail(_ error: SensorError) {
        // Log each distinct failure once, not every retry.
        if error.message != lastFailure {
            logger.error("sensors unavailable: \(error.message)")
            lastFailure = error.message
        }
        setState(error.kind == .lost ? .lost : .none)
        let retry = lifecycle.failed(retryable: error.kind != .invalidSource, now: plx_monotonic_ns())
        guard !retry.isEmpty else { return }
        perform(retry)
        updateArrivalWatch()
    }

    private func setState(_ new: SensorState) {
        guard new != state else { return }
        state = new
        events.sensorStateChanged(new)
    }

    private func noteOutcome() {
        guard !hadOutcome else { return }
        hadOutcome = true
        events.sensorsFirstOutcome()
    }
}
