import CLinux
import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import Testing
@testable import ParallaxDaemon

/// A replay read on the event loop itself (LoopCapture.swift), with a real loop and a real
/// trace file: the capture thread's behaviour, carried out by the loop's timers.
@Suite struct LoopCaptureTests {
    static let ms: Int64 = 1_000_000

    /// A trace of a device lying still, `seconds` long at `rate` Hz.
    static func stillTrace(rate: Double, seconds: Double) throws -> String {
        var text = "t_ns,ax,ay,az,gx,gy,gz\n"
        for i in 0..<Int(rate * seconds) { text += "\(Int64(Double(i) * 1e9 / rate)),0,0,9.81,0,0,0\n" }
        var template = Array("/tmp/parallax-loopcapture-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The loop, the capture replaying `path`, and the times it woke the loop.
    final class Rig {
        let loop: EventLoop
        var wakes: [Int64] = []
        var events: [CaptureEvent] = []
        var capture: LoopCapture!
        /// Stops the loop when true, checked at each wake.
        var until: (Rig) -> Bool = { _ in true }

        convenience init(path: String) throws {
            try self.init(open: { () throws(SensorError) -> any SensorDriver in
                try ReplayDriver(path: path, loop: false, logger: Logger(label: "test"))
            })
        }

        init(open: @escaping () throws(SensorError) -> any SensorDriver) throws {
            loop = try EventLoop()
            capture = LoopCapture(loop: loop, open: open, wake: { [unowned self] in
                self.wakes.append(plx_monotonic_ns())
                // As the daemon: the wake is handled on the loop's next turn.
                self.loop.schedule(at: plx_monotonic_ns()) { [unowned self] in
                    self.events += self.capture.events().events
                    if self.until(self) { self.loop.stop() }
                }
            })
        }

        /// Runs the loop until `until` holds at a wake, or `seconds` pass; true if it held.
        func run(seconds: Double, until: @escaping (Rig) -> Bool) -> Bool {
            var held = false
            self.until = { rig in held = until(rig); return held }
            let guardTimer = loop.schedule(at: plx_monotonic_ns() + Int64(seconds * 1e9)) { [loop] in loop.stop() }
            loop.run()
            loop.cancel(guardTimer)
            return held
        }

        var samples: [Sample] { events.compactMap { if case .sample(let s) = $0 { s } else { nil } } }
    }

    @Test func theFirstSampleAtOrAfterTheNeedWakesTheLoopAndNoneBefore() throws {
        let path = try Self.stillTrace(rate: 200, seconds: 3)
        defer { unlink(path) }
        let rig = try Rig(path: path)
        #expect(rig.capture.start())
        defer { rig.capture.stop() }
        #expect(rig.run(seconds: 2) { $0.events.contains { if case .opened = $0 { true } else { false } } })
        guard case .opened(_, let abilities) = rig.events.first else {
            Issue.record("the first event is not .opened")
            return
        }
        #expect(abilities == SourceAbilities(takesQueued: true, rests: true))
        let need = plx_monotonic_ns() + 100 * Self.ms
        rig.capture.wakeForSamples(SampleNeed(need: need))
        rig.events = []
        let wakesBefore = rig.wakes.count
        #expect(rig.run(seconds: 2) { !$0.samples.isEmpty })
        // One wake for the batch, by the sample the need asked for; the ones before it were kept.
        #expect(rig.wakes.count == wakesBefore + 1)
        let newest = try #require(rig.samples.last)
        #expect(newest.t >= need && newest.t < need + 50 * Self.ms)
        #expect(rig.samples.count >= 15, "\(rig.samples.count) samples in 100 ms at 200 Hz")
        #expect(zip(rig.samples, rig.samples.dropFirst()).allSatisfy { $0.t < $1.t })
    }

    @Test func theLoopTakesQueuedSamplesItselfAndTheForecastIsTheNextRow() throws {
        let path = try Self.stillTrace(rate: 100, seconds: 3)
        defer { unlink(path) }
        let rig = try Rig(path: path)
        #expect(rig.capture.start())
        defer { rig.capture.stop() }
        _ = rig.run(seconds: 2) { _ in true }
        // The loop's word: it takes the samples itself; the capture only guards the queue.
        rig.capture.wakeForSamples(SampleNeed(need: .max))
        let wakesBefore = rig.wakes.count
        #expect(!rig.run(seconds: 0.1) { _ in true }, "the capture woke the loop though it takes samples itself")
        #expect(rig.wakes.count == wakesBefore)
        let taken = try #require(rig.capture.takeQueuedEvents())
        let samples = taken.events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
        #expect(samples.count >= 8, "\(samples.count) samples queued in 100 ms at 100 Hz")
        let newest = try #require(samples.last)
        #expect(taken.newestArrival == newest.t)
        let forecast = try #require(rig.capture.expectedArrival(ofSampleAt: newest.t + 7 * Self.ms))
        #expect(forecast >= newest.t + 10 * Self.ms && forecast < newest.t + 10 * Self.ms + Self.ms)
    }

    @Test func atRestStillSamplesAreKeptAndAWithdrawalWakesTheLoop() throws {
        let path = try Self.stillTrace(rate: 100, seconds: 5)
        defer { unlink(path) }
        let rig = try Rig(path: path)
        #expect(rig.capture.start())
        defer { rig.capture.stop() }
        _ = rig.run(seconds: 2) { _ in true }
        var gate = Stillness()
        for i in 0..<200 { gate.observe(Sample(t: Int64(i) * 10 * Self.ms, accel: Vector3(0, 0, 9.81), gyro: Vector3(0, 0, 0))) }
        rig.capture.rest(RestOrder(gate: gate, request: RestRequest(rate: 10), serial: 7))
        rig.events = []
        let wakesBefore = rig.wakes.count
        // Still samples at rest do not wake the loop (the drain is 2 s away); the loop cannot take.
        #expect(!rig.run(seconds: 0.5) { _ in true })
        #expect(rig.wakes.count == wakesBefore)
        #expect(rig.capture.takeQueuedEvents() == nil)
        rig.capture.rest(nil)
        #expect(rig.run(seconds: 2) { $0.events.contains(.awake(moved: false, order: 7)) })
        let resting = rig.events.compactMap { if case .resting(let pace, let order) = $0 { (pace, order) } else { nil } }
        #expect(resting.count == 1 && resting.first?.1 == 7 && resting.first?.0.rate == 100)
        #expect(rig.samples.count >= 30, "\(rig.samples.count) samples kept in 0.5 s at rest")
        // The source's return to full rate runs off the loop (a hub's feature reports): once it
        // is back, the loop may take again.
        #expect(rig.run(seconds: 2) { $0.capture.takeQueuedEvents() != nil }, "back at full rate, the loop may take again")
    }

    @Test func aReplayThatEndsSaysSo() throws {
        let path = try Self.stillTrace(rate: 100, seconds: 0.2)
        defer { unlink(path) }
        let rig = try Rig(path: path)
        #expect(rig.capture.start())
        #expect(rig.run(seconds: 3) { $0.events.last == .ended })
        #expect(rig.samples.count == 20)
        #expect(rig.capture.takeQueuedEvents() == nil)
    }

    @Test func aMissingFileFailsTheOpen() throws {
        let rig = try Rig(path: "/nonexistent/parallax-trace.csv")
        #expect(rig.capture.start())
        #expect(rig.run(seconds: 2) { if case .failed = $0.events.last { true } else { false } })
        #expect(rig.capture.expectedArrival(ofSampleAt: 0) == nil)
    }
}
