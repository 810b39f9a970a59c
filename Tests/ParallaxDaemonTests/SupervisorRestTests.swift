import CLinux
import Logging
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import Synchronization
import Testing
@testable import ParallaxDaemon

/// Power at rest with the real supervisor, capture thread and event loop, and a scripted
/// resting source in place of sensors (the integration suite drives real libiio under umockdev):
/// a still device slows down once still long enough; the loop then sleeps while the capture
/// thread tests each slow sample; the first moving sample brings the full rate back and reaches
/// the loop at once; every sample reaches the engine in order, none lost or doubled.
@Suite(.serialized) struct SupervisorRestTests {
    /// 500 Hz at full rate, 20 Hz at rest; samples carry the real clock's time; still unless
    /// `moving` is set (then a 1 rad/s turn).
    final class Device: SensorDriver, RestingSource, @unchecked Sendable {
        // Unchecked: the driver is touched by the capture thread only; the test reads the
        // atomics and, after the capture has stopped, the lists.
        let sensors = [SensorDescription(kind: .accelerometer, device: "scripted", location: "test", rate: 500),
                       SensorDescription(kind: .gyroscope, device: "scripted", location: "test", rate: 500)]
        static let fullPeriod: Int64 = 2_000_000
        static let restPeriod: Int64 = 50_000_000
        let moving = Atomic<Bool>(false)
        let restsEntered = Atomic<Int>(0)
        let restsLeft = Atomic<Int>(0)
        private var period = Device.fullPeriod
        private var next = plx_monotonic_ns()
        private(set) var produced: [Int64] = []

        private func make(at t: Int64) -> Sample {
            produced.append(t)
            let turning = moving.load(ordering: .acquiring)
            return Sample(t: t, accel: Vector3(0, 0, -9.81), gyro: turning ? Vector3(1, 0, 0) : Vector3(0.001, 0, 0))
        }

        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            next += period
            guard MonotonicClock.sleep(until: next, shouldStop: shouldStop) else { return nil }
            return make(at: next)
        }

        func close() {}

        func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
            restsEntered.add(1, ordering: .releasing)
            period = Self.restPeriod
            return RestPace(rate: 20, samplesPerWake: 1, wakesThroughDescriptor: false)
        }

        func leaveRest() throws(SensorError) {
            restsLeft.add(1, ordering: .releasing)
            period = Self.fullPeriod
        }

        var restWakeup: RestWakeup { RestWakeup(due: next + period) }

        func takeResting() throws(SensorError) -> Sample? {
            guard plx_monotonic_ns() >= next + period else { return nil }
            next += period
            return make(at: next)
        }
    }

    final class Events: SensorEvents {
        var samples: [Int64] = []
        var batches = 0
        func sensorsOpened(_ opening: SensorsOpening) {}
        func sensorsClosed() {}
        func sensorSample(_ sample: Sample) { samples.append(sample.t) }
        func sampleBatchEnded() { batches += 1 }
        func sensorStateChanged(_ state: SensorState) {}
        func sensorsFirstOutcome() {}
        func nextSampleNeed() -> SampleNeed { SampleNeed(need: plx_monotonic_ns() + 16_000_000) }
        func mayRest(quietFor: Int64) -> Bool { true }
    }

    /// Runs the loop until `done` or `seconds`, checking every 5 ms; true when `done` came.
    static func run(_ loop: EventLoop, seconds: Double, until done: @escaping () -> Bool) -> Bool {
        // Already so: running the loop now would wait for an event that never comes.
        if done() { return true }
        var met = false
        let deadline = plx_monotonic_ns() + Int64(seconds * 1e9)
        func check() {
            if done() { met = true; loop.stop(); return }
            if plx_monotonic_ns() >= deadline { loop.stop(); return }
            loop.schedule(at: plx_monotonic_ns() + 5_000_000) { check() }
        }
        loop.schedule(at: plx_monotonic_ns() + 5_000_000) { check() }
        loop.run()
        return met
    }

    /// A loop, the device, a supervisor resting after `after` s of stillness, and a counter of
    /// the loop's wake-ups by the capture thread; demand is on.
    final class Rig {
        let loop: EventLoop
        let events: Events
        let device: Device
        let supervisor: Supervisor
        var loopWakes = 0
        private let wakeup: SensorWakeup

        init(after: Double) throws {
            loop = try EventLoop()
            wakeup = try SensorWakeup()
            let (device, events) = (Device(), Events())
            (self.device, self.events) = (device, events)
            supervisor = Supervisor(
                loop: loop, wakeup: wakeup, events: events, logger: Logger(label: "test"), source: "scripted",
                factory: { () throws(SensorError) -> any SensorDriver in device }, linger: 0,
                rest: RestSettings(after: after, request: RestRequest(rate: 20)))
            _ = try loop.watch(wakeup.fd, events: PLX_EPOLLIN) { [unowned self] _ in
                self.loopWakes += 1
                self.supervisor.samplesReady()
            }
            supervisor.setDemand(true)
        }
    }

    @Test func aStillDeviceRestsAndTheFirstMovingSampleWakesEverythingWithNothingLost() throws {
        let rig = try Rig(after: 0.2)
        let (loop, events, device, supervisor) = (rig.loop, rig.events, rig.device, rig.supervisor)

        // Still for 0.2 s of samples: the capture slows down.
        #expect(Self.run(loop, seconds: 5) { supervisor.isResting })
        #expect(device.restsEntered.load(ordering: .acquiring) == 1)

        // At rest for 0.6 s (12 slow samples): the loop is not woken for them (the drain
        // interval is 2 s), and nothing moved.
        let wakesBefore = rig.loopWakes
        _ = Self.run(loop, seconds: 0.6) { false }
        #expect(rig.loopWakes - wakesBefore <= 1)
        #expect(supervisor.isResting)

        // The device turns: the sample that shows it wakes the loop, at full rate again.
        device.moving.store(true, ordering: .releasing)
        let turned = plx_monotonic_ns()
        #expect(Self.run(loop, seconds: 2) { !supervisor.isResting && events.samples.last ?? 0 > turned })
        #expect(device.restsLeft.load(ordering: .acquiring) == 1)
        _ = Self.run(loop, seconds: 0.05) { false }
        supervisor.closeNow(wait: true)

        // Every sample the device made reached the engine's side, in order, once.
        #expect(events.samples == Array(device.produced.prefix(events.samples.count)))
        #expect(device.produced.count - events.samples.count <= 64)
        // Slow samples at rest are 50 ms apart: the rest really was slower.
        let gaps = zip(events.samples, events.samples.dropFirst()).map { $1 - $0 }
        #expect(gaps.filter { $0 == Device.restPeriod }.count >= 10)
    }

    @Test func withdrawingARestBringsTheFullRateBack() throws {
        let rig = try Rig(after: 0.1)
        let (loop, device, supervisor) = (rig.loop, rig.device, rig.supervisor)
        #expect(Self.run(loop, seconds: 5) { supervisor.isResting })
        // A recenter or a calibration: full rate without the device moving.
        supervisor.withdrawRest()
        #expect(!supervisor.isResting)
        #expect(Self.run(loop, seconds: 2) { device.restsLeft.load(ordering: .acquiring) == 1 })
        supervisor.closeNow(wait: true)
    }
}
