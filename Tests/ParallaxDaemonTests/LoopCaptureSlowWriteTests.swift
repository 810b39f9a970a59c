import CLinux
import Glibc
import ParallaxIIO
import ParallaxMotion
import Synchronization
import Testing
@testable import ParallaxDaemon

/// A source whose rest writes and close are slow (a HID hub: a feature report each, tens of ms)
/// read on the event loop (LoopCapture.swift): the writes run off the loop, which keeps serving
/// meanwhile, and a capture stopped during one closes the source after it, off the loop too.
@Suite struct LoopCaptureSlowWriteTests {
    static let ms: Int64 = 1_000_000

    /// Every call, in order, with whether it ran on the loop's thread; enterRest, leaveRest and
    /// close each take `writeTakes`.
    final class SlowWriteSource: PollableSource {
        let sensors = [SensorDescription(kind: .accelerometer, device: "slow-writes", location: "test", rate: 100)]
        let loopThread = pthread_self()
        let writeTakes: Int64
        let calls = Mutex<[String]>([])

        init(writeTakes: Int64) { self.writeTakes = writeTakes }

        private func note(_ call: String) {
            let onLoop = pthread_equal(pthread_self(), loopThread) != 0
            calls.withLock { $0.append(call + (onLoop ? " on the loop" : " off the loop")) }
        }

        private func slowWrite(_ call: String) {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(writeTakes))
            nanosleep(&pause, nil)
            note(call)
        }

        var hasEnded: Bool { false }
        var queueSpan: Int64 { 60_000 * LoopCaptureSlowWriteTests.ms }
        var nextReadable: Int64 { .max }
        let lastSampleArrival: Int64 = 0
        func expectedArrival(ofSampleAt time: Int64) -> Int64 { .max }
        func takeQueued() throws(SensorError) -> Sample? { nil }
        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? { nil }
        func close() { slowWrite("close") }

        func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
            slowWrite("enterRest")
            return RestPace(rate: 6.25, samplesPerWake: 1, wakesThroughDescriptor: false)
        }
        func leaveRest() throws(SensorError) { slowWrite("leaveRest") }
        var restWakeup: RestWakeup { RestWakeup() }
        func takeResting() throws(SensorError) -> Sample? { nil }
    }

    /// The loop, the capture of `source`, and the events it posted.
    final class Rig {
        let loop: EventLoop
        let source: SlowWriteSource
        var events: [CaptureEvent] = []
        var capture: LoopCapture!

        init(writeTakes: Int64) throws {
            loop = try EventLoop()
            let source = SlowWriteSource(writeTakes: writeTakes)
            self.source = source
            capture = LoopCapture(loop: loop, opened: source, wake: { [unowned self] in
                self.loop.schedule(at: plx_monotonic_ns()) { [unowned self] in
                    self.events += self.capture.events().events
                }
            })
        }

        /// Runs the loop until `until` holds (looked at every 5 ms, with the events queued so far,
        /// woken for or not) or `seconds` pass; true if it held.
        func run(seconds: Double, until: @escaping (Rig) -> Bool) -> Bool {
            let deadline = plx_monotonic_ns() + Int64(seconds * 1e9)
            var held = false
            func look() {
                events += capture.events().events
                held = until(self)
                if held || plx_monotonic_ns() > deadline { loop.stop(); return }
                loop.schedule(at: plx_monotonic_ns() + 5 * LoopCaptureSlowWriteTests.ms) { look() }
            }
            loop.schedule(at: plx_monotonic_ns()) { look() }
            loop.run()
            return held
        }

        var calls: [String] { source.calls.withLock { $0 } }
    }

    static func order(serial: UInt64) -> RestOrder {
        var gate = Stillness()
        for i in 0..<200 { gate.observe(Sample(t: Int64(i) * 10 * ms, accel: Vector3(0, 0, 9.81), gyro: Vector3(0, 0, 0))) }
        return RestOrder(gate: gate, request: RestRequest(rate: 6.25), serial: serial)
    }

    @Test func restWritesRunOffTheLoopWhichKeepsServing() throws {
        let rig = try Rig(writeTakes: 300 * Self.ms)
        #expect(rig.capture.start())
        defer { rig.capture.stopAndWait() }
        let t0 = plx_monotonic_ns()
        rig.capture.rest(Self.order(serial: 3))
        // The order returned at once, and the loop's own timer fires while the write runs.
        #expect(plx_monotonic_ns() - t0 < 100 * Self.ms, "rest(order) waited for the write")
        var timerFired: Int64 = 0
        rig.loop.schedule(at: t0 + 20 * Self.ms) { timerFired = plx_monotonic_ns() }
        #expect(rig.run(seconds: 3) { $0.events.contains { if case .resting = $0 { true } else { false } } })
        #expect(timerFired > 0 && timerFired - t0 < 200 * Self.ms, "the loop was blocked \((timerFired - t0) / Self.ms) ms")
        // The source is away meanwhile: nothing is taken from it.
        #expect(rig.calls == ["enterRest off the loop"])
        rig.capture.rest(nil)
        #expect(rig.run(seconds: 3) { $0.events.contains(.awake(moved: false, order: 3)) })
        #expect(rig.run(seconds: 3) { $0.calls.count == 2 })
        #expect(rig.calls == ["enterRest off the loop", "leaveRest off the loop"])
    }

    @Test func aCaptureStoppedDuringARestWriteClosesTheSourceAfterItOffTheLoop() throws {
        let rig = try Rig(writeTakes: 200 * Self.ms)
        #expect(rig.capture.start())
        rig.capture.rest(Self.order(serial: 1))
        let t0 = plx_monotonic_ns()
        rig.capture.stop()
        #expect(plx_monotonic_ns() - t0 < 100 * Self.ms, "stop waited for the write")
        let ending = try #require(rig.capture.ending)
        #expect(!ending.hasEnded)
        // The write's thread brings it back from the rest it was entering, then closes it.
        #expect(ending.wait(upTo: 3_000 * Self.ms))
        #expect(rig.calls == ["enterRest off the loop", "leaveRest off the loop", "close off the loop"])
        // The write's answer reaches the loop and changes nothing: no `.resting` for a stopped capture.
        _ = rig.run(seconds: 0.3) { _ in false }
        #expect(!rig.events.contains { if case .resting = $0 { true } else { false } })
        #expect(rig.calls.count == 3)
    }

    @Test func stopAndWaitClosesOnTheLoopBeforeItReturns() throws {
        let rig = try Rig(writeTakes: 50 * Self.ms)
        #expect(rig.capture.start())
        rig.capture.stopAndWait()
        #expect(rig.capture.ending?.hasEnded == true)
        #expect(rig.calls == ["close on the loop"])
    }

    /// A capture that stopped itself (a failed read) and is then stopped again at shutdown: the
    /// second stop waits for the first one's close, so devices are released before exit.
    @Test func stopAndWaitAfterAStopWaitsForThatClose() throws {
        let rig = try Rig(writeTakes: 200 * Self.ms)
        #expect(rig.capture.start())
        rig.capture.stop()
        rig.capture.stopAndWait()
        #expect(rig.calls == ["close off the loop"], "stopAndWait returned before the close")
        #expect(rig.capture.ending?.hasEnded == true)
    }

    @Test func aStoppedCaptureClosesOffTheLoopAndSaysWhenItHas() throws {
        let rig = try Rig(writeTakes: 100 * Self.ms)
        #expect(rig.capture.start())
        rig.capture.stop()
        let ending = try #require(rig.capture.ending)
        #expect(ending.wait(upTo: 3_000 * Self.ms))
        #expect(rig.calls == ["close off the loop"])
    }
}
