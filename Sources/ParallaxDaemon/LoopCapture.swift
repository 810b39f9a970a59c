import CLinux
import ParallaxIIO
import ParallaxMotion
import Synchronization
import SystemPackage

/// A capture the event loop reads itself (docs/architecture.md "Threads"): a
/// `PollableSource` (a replay, an evdev motion device, local IIO buffers), read on the loop's
/// timers, and on its descriptor while a due sample is awaited or a resting buffer wakes, with
/// no thread, no lock and no eventfd of its own. It carries out the paced-capture decisions
/// (`SamplePacer.sleepTarget` and `SampleNeed.wakes`; `RestCycle.Watch` at rest, as a capture
/// thread does for a source whose reads block), so the supervisor cannot tell it from a
/// `SensorCapture`: both are a `RunningCapture`.
///
/// Why: a capture thread costs the daemon a second wake-up per batch (the thread's, then the
/// loop's) and ten synchronized fields; a source that never blocks needs neither.
///
/// The source's slow writes (entering and leaving a rest: on a HID hub a feature report each,
/// tens of ms) and its close (a hub powers its sensors down) run off the loop through
/// `BackgroundTask`; meanwhile the source is away (`Away`) and nothing here touches it.
final class LoopCapture: RunningCapture {
    private let loop: EventLoop
    private let open: () throws(SensorError) -> any SensorDriver
    /// Wakes the supervisor for what is queued (its eventfd: the loop drains it on its next turn).
    private let wake: () -> Void
    private var source: (any PollableSource)?
    private var queue = CaptureQueue()
    /// The loop's word: when it needs samples, and its rest order.
    private var need = SampleNeed.everySample
    private var order: RestOrder?
    /// At rest: the pace the source runs at and the rest's watch (RestCycle.swift).
    private var resting: (pace: RestPace, watch: RestCycle.Watch)?
    private var timer: EventLoop.TimerID?
    /// When `timer` fires: a step that wants the same deadline keeps it.
    private var timerDeadline: Int64 = 0
    /// A source watched this long (ns) without a sample is looked at anyway: a silent device's
    /// driver says why (hid-steam's lizard mode mutes a Steam Deck), at one wake-up a second.
    static let longestWatch: Int64 = 1_000_000_000
    /// The source's descriptor while the loop waits on it.
    private var watched: (token: EventLoop.Token, fd: FileDescriptor)?
    /// The source while a slow write of it runs off the loop.
    private var away: Away?
    /// Set once the source is closed, wherever that ran (the supervisor's next open waits for it).
    private let end = CaptureEnd()
    /// The source's close has begun (here, on a thread of its own, or after a write away): only
    /// that close marks the end.
    private var closing = false

    init(loop: EventLoop, open: @escaping () throws(SensorError) -> any SensorDriver, wake: @escaping () -> Void) {
        self.loop = loop
        self.open = open
        self.wake = wake
    }

    /// For a source a capture thread opened and handed over (`SensorCapture.takeHandedOver`).
    convenience init(loop: EventLoop, opened source: any PollableSource, wake: @escaping () -> Void) {
        self.init(loop: loop, open: { source }, wake: wake)
    }

    /// Opens the source here, on the loop (a replay's open reads its file's first rows), or
    /// takes the one handed over.
    func start() -> Bool {
        let driver: any SensorDriver
        do {
            driver = try open()
        } catch {
            end.markEnded()
            post(.failed(error))
            return true
        }
        guard let pollable = driver as? any PollableSource else {
            driver.close()
            end.markEnded()
            post(.failed(SensorError(.invalidSource, "this source cannot be read on the event loop")))
            return true
        }
        source = pollable
        post(.opened(driver.sensors, SourceAbilities(takesQueued: true, rests: true)))
        step()
        return true
    }

    /// Closes off the loop: a source away finishes its write first, on its thread.
    func stop() { stop(waiting: false) }

    /// Closes here and now (at shutdown, so devices are released before exit); a source away is
    /// waited for, at most `CaptureEnd.longestWait`.
    func stopAndWait() {
        stop(waiting: true)
        _ = end.wait(upTo: CaptureEnd.longestWait)
    }

    var ending: CaptureEnd? { end }

    private func stop(waiting: Bool) {
        cancelWaits()
        guard let source else {
            // Never opened (a stop before the start): nothing to wait for.
            if !closing { end.markEnded() }
            return
        }
        self.source = nil
        closing = true
        var leavesRest = resting != nil
        resting = nil
        if let away {
            // Its thread closes it after the write, or, if the write is done, this does.
            guard away.closeWhenBack(leavingRest: away.restsAfter) else { return }
            self.away = nil
            leavesRest = away.restsAfter
        }
        close(source, leavingRest: leavesRest, here: waiting)
    }

    /// Leaves the rest if it is in one, closes, then marks the end: here, or on a thread of its
    /// own (a buffer disabled is a round of feature reports on a hub).
    private func close(_ source: any PollableSource, leavingRest: Bool, here: Bool) {
        let closing = Away(source, restsAfter: leavingRest)
        let end = self.end
        if here || !BackgroundTask.detached({ closing.close(end) }) { closing.close(end) }
    }

    func events() -> (events: [CaptureEvent], dropped: Int) { queue.drain() }

    func takeQueuedEvents() -> (events: [CaptureEvent], dropped: Int, newestArrival: Int64)? {
        guard let source, resting == nil, away == nil else { return nil }
        var (events, dropped) = queue.drain()
        var newest: Int64 = 0
        do throws(SensorError) {
            newest = try source.takeAll(into: &events)
        } catch {
            stop()
            events.append(.failed(error))
        }
        return (events, dropped, newest)
    }

    func expectedArrival(ofSampleAt time: Int64) -> Int64? {
        guard let source, resting == nil, away == nil else { return nil }
        return source.expectedArrival(ofSampleAt: time)
    }

    func wakeForSamples(_ need: SampleNeed) {
        self.need = need
        guard resting == nil else { return }
        step()
    }

    func rest(_ order: RestOrder?) {
        self.order = order
        step()
    }

    private func post(_ event: CaptureEvent, wakingLoop: Bool = true) {
        if queue.append(event, wakingLoop: wakingLoop) { wake() }
    }

    private func nudge() {
        if queue.nudge() { wake() }
    }

    /// No timer, no descriptor watched.
    private func cancelWaits() {
        if let timer { loop.cancel(timer); self.timer = nil }
        if let watched { loop.unwatch(watched.token, fd: watched.fd); self.watched = nil }
    }

    /// The next step at `deadline` (none at `.max`), and when `descriptor` becomes readable (or
    /// fails: the read then says how) if one is given. Where it cannot be watched, a timer at
    /// `fallback`, at least a minimum sleep away. A descriptor already watched stays so, and a
    /// timer already at `deadline` stays armed: a resting buffer or a late report wakes the loop
    /// once, not once plus four syscalls.
    private func wait(on descriptor: FileDescriptor?, until deadline: Int64, fallback: @autoclosure () -> Int64 = .max) {
        if let watched, watched.fd != descriptor {
            loop.unwatch(watched.token, fd: watched.fd)
            self.watched = nil
        }
        var deadline = deadline
        if let fd = descriptor, watched == nil {
            do throws(Errno) {
                let token = try loop.watch(fd, events: PLX_EPOLLIN) { [unowned self] _ in
                    if self.resting == nil { self.source?.descriptorBecameReadable() }
                    self.step()
                }
                watched = (token, fd)
            } catch {
                deadline = max(fallback(), plx_monotonic_ns() + SamplePacer.minimumSleep)
            }
        }
        if let timer {
            guard timerDeadline != deadline else { return }
            loop.cancel(timer)
            self.timer = nil
        }
        guard deadline != .max else { return }
        timerDeadline = deadline
        timer = loop.schedule(at: deadline) { [unowned self] in
            self.timer = nil
            self.step()
        }
    }

    /// One look at the source (what a capture thread's read loop does in one turn), then the
    /// timer or descriptor wait for the next.
    private func step() {
        guard let source, away == nil else {
            cancelWaits()
            return
        }
        if resting != nil || order != nil {
            restStep(source)
            return
        }
        do throws(SensorError) {
            while let sample = try source.takeQueued() {
                post(.sample(sample), wakingLoop: need.wakes(arrival: source.lastSampleArrival))
            }
        } catch {
            fail(error)
            return
        }
        if source.hasEnded {
            stop()
            post(.ended)
            return
        }
        // Until the sample the loop needs, or to keep the source from overflowing; a need that
        // is due now waits for the next sample.
        let now = plx_monotonic_ns()
        let target = SamplePacer.sleepTarget(now: now, need: need.need, queueSpan: source.queueSpan,
                                             forecast: { source.expectedArrival(ofSampleAt: $0) })
        if target == nil, let descriptor = source.descriptor {
            let latest = max(source.lookAtTheLatest, now + SamplePacer.minimumSleep)
            wait(on: descriptor, until: min(latest, now + Self.longestWatch), fallback: source.nextReadable)
        } else {
            wait(on: nil, until: target ?? max(source.nextReadable, now + SamplePacer.minimumSleep))
        }
    }

    /// One look at a resting source (SensorCapture.runAtRest, on the loop).
    private func restStep(_ source: any PollableSource) {
        guard let entered = resting else {
            if let order { enterRest(source, order: order) }
            return
        }
        let now = plx_monotonic_ns()
        let pace = entered.pace
        var watch = entered.watch
        do throws(SensorError) {
            while let sample = try source.takeResting() {
                watch.observe(sample, sourceReportedMotion: source.reportedMotion)
                post(.sample(sample), wakingLoop: false)
            }
        } catch {
            fail(error)
            return
        }
        switch watch.look(now: now, order: order, stopping: false) {
        case .leave(let moved, let serial):
            // The sample that moved goes to the loop first, and the rest's end with it: bringing
            // a hub back to its full rate takes feature reports, and neither the first frame of
            // a motion nor the loop's next plan waits for them (it takes nothing meanwhile).
            if moved { nudge() }
            resting = nil
            post(.awake(moved: moved, order: serial))
            if moved {
                // The order is spent; every sample wakes the loop until it plans again.
                order = nil
                need = .everySample
            }
            lend(source, restsAfter: false, { source throws(SensorError) in try source.leaveRest() }) { [self] outcome in
                if case .failure(let error) = outcome { fail(error); return }
                step()
            }
        case .stay(let renewed, let drain):
            if renewed { post(.resting(pace, order: watch.serial), wakingLoop: false) }
            if drain { nudge() }
            resting = (pace, watch)
            let wakeup = source.restWakeup
            let deadline = watch.deadline(pace: pace, wakeup: wakeup)
            wait(on: wakeup.descriptor, until: deadline, fallback: now &+ pace.lookInterval)
        }
    }

    private func enterRest(_ source: any PollableSource, order: RestOrder) {
        lend(source, restsAfter: true, { source throws(SensorError) in try source.enterRest(order.request) }) { [self] outcome in
            switch outcome {
            case .failure(let error):
                fail(error)
            case .success(let pace):
                post(.resting(pace, order: order.serial), wakingLoop: false)
                resting = (pace, RestCycle.Watch(order: order, now: plx_monotonic_ns()))
                step()
            }
        }
    }

    /// Runs `write` on the source off the loop, then `done` on the loop with its outcome, unless
    /// the capture stopped meanwhile (the source is then closed: `stop`). `restsAfter`: the
    /// source is at rest once the write is done (it leaves the rest before a close).
    private func lend<Value: Sendable>(_ source: any PollableSource, restsAfter: Bool,
                                       _ write: @escaping @Sendable (any PollableSource) throws(SensorError) -> Value,
                                       then done: @escaping (Result<Value, SensorError>) -> Void) {
        // Nothing on the loop reads the source until it is back.
        cancelWaits()
        let away = Away(source, restsAfter: restsAfter)
        self.away = away
        let end = self.end
        BackgroundTask.run(on: loop, { away.write(write, end: end) }, then: { [self] outcome in
            // Stopped after the write was done: `stop` closed it.
            guard self.away === away else { return }
            self.away = nil
            // Stopped during the write: its thread closed it.
            guard let outcome else { return }
            done(outcome)
        })
    }

    private func fail(_ error: SensorError) {
        stop()
        post(.failed(error))
    }
}

/// A source out of the loop's hands: on a thread for a slow write, or for its close. Unchecked
/// Sendable: one side touches the source at a time, and who closes it is decided under `state`.
private final class Away: @unchecked Sendable {
    let source: any PollableSource
    /// The source is at rest once the write is done.
    let restsAfter: Bool
    private let state = Mutex(State.writing)

    enum State {
        case writing
        /// The write is done; the loop has the source back.
        case back
        /// The capture stopped during the write: the write's thread closes it.
        case closeWhenBack(leavingRest: Bool)
        case closed
    }

    init(_ source: any PollableSource, restsAfter: Bool) {
        self.source = source
        self.restsAfter = restsAfter
    }

    /// The write, on its thread; nil when the capture stopped meanwhile and this closed the source.
    func write<Value: Sendable>(_ body: @Sendable (any PollableSource) throws(SensorError) -> Value,
                                end: CaptureEnd) -> Result<Value, SensorError>? {
        let outcome: Result<Value, SensorError>
        do throws(SensorError) { outcome = .success(try body(source)) } catch { outcome = .failure(error) }
        let closing = state.withLock { s -> Bool? in
            if case .closeWhenBack(let leavingRest) = s {
                s = .closed
                return leavingRest
            }
            s = .back
            return nil
        }
        guard let leavingRest = closing else { return outcome }
        if leavingRest { try? source.leaveRest() }
        source.close()
        end.markEnded()
        return nil
    }

    /// The capture stopped: true when the write is done and the caller closes the source; false
    /// when the write's thread will.
    func closeWhenBack(leavingRest: Bool) -> Bool {
        state.withLock { s in
            guard case .writing = s else {
                s = .closed
                return true
            }
            s = .closeWhenBack(leavingRest: leavingRest)
            return false
        }
    }

    /// Leaves the rest (`restsAfter`) and closes, then marks the end.
    func close(_ end: CaptureEnd) {
        if restsAfter { try? source.leaveRest() }
        source.close()
        end.markEnded()
    }
}
