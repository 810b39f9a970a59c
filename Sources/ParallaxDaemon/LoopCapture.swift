import CLinux
import ParallaxIIO
import ParallaxMotion
import SystemPackage

/// A capture the event loop reads itself (docs/capture-loop-plan.md, steps 5 and 6): a
/// `PollableSource` (a replay, an evdev motion device), read on the loop's timers, and on its
/// descriptor while a due sample is awaited, with no thread, no lock and no eventfd of its own.
/// It carries out the same decisions as the capture thread (`SamplePacer.sleepTarget` and
/// `SampleNeed.wakes` for pacing, `RestCycle.Watch` at rest), so the supervisor cannot tell the
/// two apart: both are a `RunningCapture`.
///
/// Why: a capture thread costs the daemon a second wake-up per batch (the thread's, then the
/// loop's) and ten synchronized fields; a source that never blocks needs neither.
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
    /// A source watched this long (ns) without a sample is looked at anyway: a silent device's
    /// driver says why (hid-steam's lizard mode mutes a Steam Deck), at one wake-up a second.
    static let longestWatch: Int64 = 1_000_000_000
    /// The source's descriptor while the loop waits on it for a due sample.
    private var watched: (token: EventLoop.Token, fd: FileDescriptor)?

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
            post(.failed(error))
            return true
        }
        guard let pollable = driver as? any PollableSource else {
            driver.close()
            post(.failed(SensorError(.invalidSource, "this source cannot be read on the event loop")))
            return true
        }
        source = pollable
        post(.opened(driver.sensors, SourceAbilities(takesQueued: true, rests: true)))
        step()
        return true
    }

    func stop() {
        cancelWaits()
        guard let source else { return }
        self.source = nil
        if resting != nil { try? source.leaveRest() }
        resting = nil
        source.close()
    }

    func stopAndWait() { stop() }

    /// `stop` closes the source on the loop: nothing of it outlives the call.
    var ending: CaptureEnd? { nil }

    func events() -> (events: [CaptureEvent], dropped: Int) { queue.drain() }

    func takeQueuedEvents() -> (events: [CaptureEvent], dropped: Int, newestArrival: Int64)? {
        guard let source, resting == nil else { return nil }
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
        guard let source, resting == nil else { return nil }
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

    private func schedule(at deadline: Int64) {
        cancelWaits()
        armTimer(at: deadline)
    }

    /// The next step at `deadline` (none at `.max`), beside whatever else is awaited.
    private func armTimer(at deadline: Int64) {
        guard deadline != .max else { return }
        timer = loop.schedule(at: deadline) { [unowned self] in
            self.timer = nil
            self.step()
        }
    }

    /// The next step when `descriptor` becomes readable (or fails: the read then says how), or
    /// after `longestWatch` of silence. Where it cannot be watched, a timer at the next forecast
    /// sample, at least a minimum sleep away.
    private func awaitReadable(_ descriptor: Int32, forecast: Int64) {
        cancelWaits()
        let fd = FileDescriptor(rawValue: descriptor)
        let now = plx_monotonic_ns()
        var deadline = max(forecast, now + SamplePacer.minimumSleep)
        do throws(Errno) {
            let token = try loop.watch(fd, events: PLX_EPOLLIN) { [unowned self] _ in self.step() }
            watched = (token, fd)
            deadline = now + Self.longestWatch
        } catch {}
        armTimer(at: deadline)
    }

    /// What the capture thread's loop does in one turn, then the timer for the next.
    private func step() {
        cancelWaits()
        guard let source else { return }
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
        let target = SamplePacer.sleepTarget(now: plx_monotonic_ns(), need: need.need, queueSpan: source.queueSpan,
                                             forecast: { source.expectedArrival(ofSampleAt: $0) })
        if target == nil, let descriptor = source.descriptor {
            awaitReadable(descriptor, forecast: source.nextReadable)
        } else {
            schedule(at: target ?? source.nextReadable)
        }
    }

    /// One look at a resting source (SensorCapture.runAtRest, on the loop).
    private func restStep(_ source: any PollableSource) {
        let now = plx_monotonic_ns()
        guard let entered = resting ?? enterRest(source, now: now) else { return }
        let pace = entered.pace
        var watch = entered.watch
        do throws(SensorError) {
            while let sample = try source.takeResting() {
                watch.observe(sample, sourceReportedMotion: source.reportedMotion)
                post(.sample(sample), wakingLoop: false)
            }
        } catch {
            resting = nil
            fail(error)
            return
        }
        switch watch.look(now: now, order: order, stopping: false) {
        case .leave(let moved, let serial):
            // The sample that moved goes to the loop first, as on the capture thread.
            if moved { nudge() }
            resting = nil
            var failure: SensorError?
            do throws(SensorError) { try source.leaveRest() } catch { failure = error }
            post(.awake(moved: moved, order: serial))
            if let failure { fail(failure); return }
            if moved {
                // The order is spent; every sample wakes the loop until it plans again.
                order = nil
                need = .everySample
            }
            step()
        case .stay(let renewed, let drain):
            if renewed { post(.resting(pace, order: watch.serial), wakingLoop: false) }
            if drain { nudge() }
            resting = (pace, watch)
            schedule(at: watch.deadline(pace: pace, wakeup: RestWakeup(due: source.nextReadable)))
        }
    }

    private func enterRest(_ source: any PollableSource, now: Int64) -> (pace: RestPace, watch: RestCycle.Watch)? {
        guard let order else { return nil }
        let pace: RestPace
        do throws(SensorError) {
            pace = try source.enterRest(order.request)
        } catch {
            fail(error)
            return nil
        }
        post(.resting(pace, order: order.serial), wakingLoop: false)
        let entered = (pace: pace, watch: RestCycle.Watch(order: order, now: now))
        resting = entered
        return entered
    }

    private func fail(_ error: SensorError) {
        stop()
        post(.failed(error))
    }
}
