import CLinux
import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import Synchronization
import Testing
@testable import ParallaxDaemon

/// The supervisor alone, with a scripted driver in place of sensors (no IIO device can be
/// opened here without umockdev, which the integration suite drives) and its events recorded
/// (the seam `SensorEvents`): open on demand, samples in order, the first outcome once, a lost
/// source retried while there is demand.
@Suite struct SupervisorTests {
    /// Delivers `samples` samples 1 ms apart, then fails as lost (or ends).
    final class ScriptedDriver: SensorDriver {
        let sensors = [SensorDescription(kind: .accelerometer, device: "scripted", location: "test", rate: 1000)]
        private var left: Int
        private let endsAsLost: Bool
        private var t: Int64 = 1_000_000

        init(samples: Int, endsAsLost: Bool) {
            left = samples
            self.endsAsLost = endsAsLost
        }

        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            guard left > 0 else {
                if endsAsLost { throw SensorError(.lost, "scripted loss") }
                return nil
            }
            left -= 1
            t += 1_000_000
            return Sample(t: t, accel: Vector3(0, -9.81, 0), gyro: nil)
        }

        func close() {}
    }

    final class RecordingEvents: SensorEvents {
        var log: [String] = []
        var samples: [Int64] = []
        var openings: [SensorsOpening] = []
        var stopWhen: ([String]) -> Bool = { _ in false }
        let loop: EventLoop

        init(loop: EventLoop) { self.loop = loop }

        private func note(_ entry: String) {
            log.append(entry)
            if stopWhen(log) { loop.stop() }
        }

        func sensorsOpened(_ opening: SensorsOpening) {
            openings.append(opening)
            note(opening == .fresh ? "opened" : "opened to continue")
        }
        func sensorsClosed() { note("closed") }
        func sensorSample(_ sample: Sample) {
            samples.append(sample.t)
            if stopWhen(log) { loop.stop() }
        }
        func sampleBatchEnded() {}
        func sensorStateChanged(_ state: SensorState) { note("state \(state.rawValue)") }
        func sensorsFirstOutcome() { note("first outcome") }
        func nextSampleNeed() -> SampleNeed { .everySample }
        func mayRest(quietFor: Int64) -> Bool { false }
    }

    /// Counts driver openings (on the capture thread).
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// A loop, a supervisor on it and its recorded events; `opens` counts factory calls.
    static func make(samples: Int, endsAsLost: Bool, opens: Counter) throws -> (EventLoop, Supervisor, RecordingEvents) {
        try make { [opens] () throws(SensorError) -> any SensorDriver in
            opens.increment()
            return ScriptedDriver(samples: samples, endsAsLost: endsAsLost)
        }
    }

    /// A loop, a supervisor on it opening with `factory`, and its recorded events.
    static func make(factory: @escaping @Sendable () throws(SensorError) -> any SensorDriver) throws
        -> (EventLoop, Supervisor, RecordingEvents) {
        let loop = try EventLoop()
        let wakeup = try SensorWakeup()
        let events = RecordingEvents(loop: loop)
        let supervisor = Supervisor(loop: loop, wakeup: wakeup, events: events, logger: Logger(label: "test"),
                                    source: "scripted", factory: factory, linger: 0)
        _ = try loop.watch(wakeup.fd, events: PLX_EPOLLIN) { _ in supervisor.samplesReady() }
        loop.schedule(at: plx_monotonic_ns() + EventLoopTests.guardTimeout) { loop.stop() }
        return (loop, supervisor, events)
    }

    @Test func opensOnDemandDeliversSamplesInOrderAndRetriesALostSource() throws {
        let opens = Counter()
        let (loop, supervisor, events) = try Self.make(samples: 20, endsAsLost: true, opens: opens)
        // Stop at the second opening: the loss was retried.
        events.stopWhen = { (log: [String]) in log.filter { $0 == "opened" }.count == 2 }
        #expect(supervisor.state == .none)
        supervisor.setDemand(true)
        loop.run()
        supervisor.closeNow(wait: true)
        // The lost capture is closed before the state says so: its offset is no longer current.
        #expect(Array(events.log.prefix(6)) == ["opened", "state ok", "first outcome", "closed", "state lost", "opened"])
        #expect(opens.count == 2)
        // Samples of the first opening, in order (the second may have begun).
        #expect(Array(events.samples.prefix(20)) == (1...20).map { 1_000_000 + Int64($0) * 1_000_000 })
        #expect(supervisor.sensors.first?.device == "scripted")
    }

    @Test func anEndedSourceIsLostAndNotRetried() throws {
        let opens = Counter()
        let (loop, supervisor, events) = try Self.make(samples: 3, endsAsLost: false, opens: opens)
        events.stopWhen = { (log: [String]) in log.last == "state lost" }
        supervisor.setDemand(true)
        loop.run()
        #expect(events.log == ["opened", "state ok", "first outcome", "closed", "state lost"])
        #expect(events.samples.count == 3)
        // Without a retry there is nothing more: wait past the first retry delay and look again.
        loop.schedule(at: plx_monotonic_ns() + SensorLifecycle.firstRetryDelay + 100_000_000) { loop.stop() }
        loop.run()
        #expect(opens.count == 1)
        supervisor.closeNow(wait: true)
    }

    @Test func aPollableSourceTheCaptureThreadOpenedIsReadOnTheLoop() throws {
        final class WriteEnd: Sendable { let fd = Atomic<Int32>(-1) }
        let writeEnd = WriteEnd()
        let (loop, supervisor, events) = try Self.make { [writeEnd] () throws(SensorError) -> any SensorDriver in
            // Opened on the capture thread, as `Source=auto` opens an evdev node.
            guard let source = try? LoopCaptureDescriptorTests.PipeSource() else { throw SensorError(.lost, "no pipe") }
            writeEnd.fd.store(source.writeEnd, ordering: .relaxed)
            return source
        }
        events.stopWhen = { (log: [String]) in log.contains("opened") }
        supervisor.setDemand(true)
        loop.run()
        defer { supervisor.closeNow(wait: true) }
        // The first outcome waits for the loop capture's `.opened`, not the hand-over.
        #expect(Array(events.log.prefix(3)) == ["opened", "state ok", "first outcome"])
        #expect(supervisor.capture is LoopCapture, "the capture thread kept the pollable source")
        // Every sample wakes the loop (no need planned): the descriptor's readiness brings them.
        events.stopWhen = { _ in events.samples.count >= 3 }
        let bytes: [UInt8] = [1, 1, 1]
        _ = bytes.withUnsafeBytes { write(writeEnd.fd.load(ordering: .relaxed), $0.baseAddress, $0.count) }
        loop.schedule(at: plx_monotonic_ns() + EventLoopTests.guardTimeout) { loop.stop() }
        loop.run()
        #expect(events.samples.count == 3)
    }

    /// What the capture threads did, in order, across threads.
    final class Timeline: Sendable {
        private let entries = Mutex<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var log: [String] { entries.withLock { $0 } }
    }

    /// A sample every 2 ms until stopped; its close takes `closeTakes` ns (a HID hub's buffer
    /// disabled by feature reports) and is noted when done.
    final class SlowClosingDriver: SensorDriver {
        let sensors = [SensorDescription(kind: .accelerometer, device: "slow-closing", location: "test", rate: 500)]
        let number: Int
        let closeTakes: Int64
        let timeline: Timeline
        init(number: Int, closeTakes: Int64, timeline: Timeline) {
            self.number = number
            self.closeTakes = closeTakes
            self.timeline = timeline
        }
        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            guard !shouldStop() else { return nil }
            usleep(2_000)
            return Sample(t: plx_monotonic_ns(), accel: Vector3(0, -9.81, 0), gyro: nil)
        }
        func close() {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(closeTakes))
            nanosleep(&pause, nil)
            timeline.note("closed \(number)")
        }
    }

    /// A reopen (iio-sensor-proxy came or went, a device came back) opens the devices only once
    /// the capture it replaces has closed them, though the loop does not wait for that: else
    /// the old close disables the new buffer, or removes the trigger the new open adopted.
    @Test func aReopenOpensOnlyOnceThePreviousCaptureHasClosed() throws {
        let timeline = Timeline()
        let opens = Counter()
        let (loop, supervisor, events) = try Self.make { [timeline, opens] () throws(SensorError) -> any SensorDriver in
            opens.increment()
            timeline.note("opened \(opens.count)")
            return SlowClosingDriver(number: opens.count, closeTakes: 200_000_000, timeline: timeline)
        }
        events.stopWhen = { (log: [String]) in log.filter { $0 == "opened" }.count == 1 }
        supervisor.setDemand(true)
        loop.run()
        let t0 = plx_monotonic_ns()
        supervisor.closeCapture()
        supervisor.open()
        #expect(plx_monotonic_ns() - t0 < 100_000_000, "the loop waited for the old capture")
        events.stopWhen = { (log: [String]) in log.filter { $0 == "opened" }.count == 2 }
        loop.run()
        supervisor.closeNow(wait: true)
        #expect(timeline.log == ["opened 1", "closed 1", "opened 2", "closed 2"])
    }

    @Test func noDemandOpensNothing() throws {
        let opens = Counter()
        let (loop, supervisor, events) = try Self.make(samples: 3, endsAsLost: false, opens: opens)
        supervisor.setDemand(false)
        loop.schedule(at: plx_monotonic_ns() + 50_000_000) { loop.stop() }
        loop.run()
        #expect(events.log.isEmpty)
        #expect(opens.count == 0)
    }

    /// A sample every 2 ms of real time, until stopped.
    final class SteadyDriver: SensorDriver {
        let sensors = [SensorDescription(kind: .accelerometer, device: "steady", location: "test", rate: 500)]
        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            guard !shouldStop() else { return nil }
            usleep(2_000)
            return Sample(t: plx_monotonic_ns(), accel: Vector3(0, -9.81, 0), gyro: nil)
        }
        func close() {}
    }

    /// What becomes of a newcomer's hold on lingering sensors (`keepOpen`).
    enum Hold: CaseIterable { case none, kept, lifted }

    /// A hold that outlasts the linger closes the sensors when it ends, not before; a hold lifted
    /// early (the newcomer spoke) closes them then; with no hold the linger alone does.
    @Test(arguments: Hold.allCases) func aNewcomersHoldKeepsLingeringSensorsOpen(hold: Hold) throws {
        let loop = try EventLoop()
        let wakeup = try SensorWakeup()
        let events = RecordingEvents(loop: loop)
        let supervisor = Supervisor(
            loop: loop, wakeup: wakeup, events: events, logger: Logger(label: "test"), source: "steady",
            factory: { () throws(SensorError) -> any SensorDriver in SteadyDriver() }, linger: 0.05)
        _ = try loop.watch(wakeup.fd, events: PLX_EPOLLIN) { _ in supervisor.samplesReady() }
        loop.schedule(at: plx_monotonic_ns() + EventLoopTests.guardTimeout) { loop.stop() }
        events.stopWhen = { (log: [String]) in log.last == "opened" }
        supervisor.setDemand(true)
        loop.run()
        let held: Int64 = 600_000_000, liftedAt: Int64 = 200_000_000
        let t0 = plx_monotonic_ns()
        if hold != .none { supervisor.keepOpen(until: t0 + held) }
        supervisor.setDemand(false)
        if hold == .lifted { loop.schedule(at: t0 + liftedAt) { supervisor.keepOpen(until: 0) } }
        events.stopWhen = { (log: [String]) in log.last == "closed" }
        loop.run()
        let closedAfter = plx_monotonic_ns() - t0
        #expect(events.log.last == "closed")
        switch hold {
        case .none: #expect(closedAfter < liftedAt)
        case .kept: #expect(closedAfter >= held)
        case .lifted: #expect(closedAfter >= liftedAt && closedAfter < held)
        }
        supervisor.closeNow(wait: true)
    }
}
