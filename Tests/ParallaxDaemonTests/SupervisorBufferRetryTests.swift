import CLinux
import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import Synchronization
import Testing
@testable import ParallaxDaemon

/// No polled fallback for good (Supervisor+BufferRetry.swift): a capture that polls because its
/// buffer failed in a way that may pass is opened again after a wait that doubles while buffering
/// keeps failing, and once it buffers nothing more is tried. The waits are shortened here (the
/// service's are 5 s doubling to 5 min); the back-off value itself is tested with its defaults.
@Suite struct SupervisorBufferRetryTests {
    /// A sample every millisecond until stopped, described as the IIO drivers describe their
    /// capture; polling "in place of a buffer" when `bufferingFailed` is given.
    final class EndlessDriver: SensorDriver, PollsInPlaceOfBuffer {
        let sensors: [SensorDescription]
        let bufferingFailed: String?
        private var t: Int64 = 1_000_000

        init(bufferingFailed: String?) {
            self.bufferingFailed = bufferingFailed
            let capture = bufferingFailed.map { "polled: \($0)" } ?? "buffered"
            sensors = [SensorDescription(kind: .accelerometer, device: "endless", location: "test", rate: 1000,
                                         capture: capture)]
        }

        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            usleep(1000)
            t += 1_000_000
            return Sample(t: t, accel: Vector3(0, -9.81, 0), gyro: nil)
        }

        func close() {}
    }

    static let why = "no buffered data within 500 ms from iio:device1 (is the trigger running?)"
    /// The shortened first wait (ns).
    static let first: Int64 = 40_000_000

    /// A supervisor whose first `failing` opens poll in place of a buffer, the later ones buffer;
    /// the monotonic times of the opens are recorded.
    static func make(failing: Int, opens: OpenTimes) throws -> (EventLoop, Supervisor, SupervisorTests.RecordingEvents) {
        let (loop, supervisor, events) = try SupervisorTests.make { [opens] () throws(SensorError) -> any SensorDriver in
            let n = opens.record()
            return EndlessDriver(bufferingFailed: n <= failing ? why : nil)
        }
        supervisor.bufferRetry = BufferRetryBackoff(first: first, longest: 4 * first)
        return (loop, supervisor, events)
    }

    /// When the factory ran, in order (on capture threads).
    final class OpenTimes: Sendable {
        private let times = Mutex<[Int64]>([])
        /// Records now; returns the count so far.
        func record() -> Int {
            times.withLock { $0.append(plx_monotonic_ns()); return $0.count }
        }
        var all: [Int64] { times.withLock { $0 } }
    }

    @Test func aPolledFallbackTriesBufferingAgainWithAGrowingWaitUntilItBuffers() throws {
        let opens = OpenTimes()
        let (loop, supervisor, events) = try Self.make(failing: 3, opens: opens)
        defer { supervisor.closeNow(wait: true) }
        // Until the fourth open, the first that buffers.
        events.stopWhen = { (log: [String]) in log.filter { $0.hasPrefix("opened") }.count == 4 }
        supervisor.setDemand(true)
        loop.run()
        #expect(events.log.filter { $0.hasPrefix("opened") } == ["opened", "opened to continue", "opened to continue", "opened to continue"])
        // Each retry keeps the user's reference (a re-centre would jump the picture).
        #expect(events.openings == [.fresh, .toBufferAgain, .toBufferAgain, .toBufferAgain])
        // Each retry is a close and an open to continue: never lost, the state stays ok.
        #expect(!events.log.contains("state lost"))
        #expect(supervisor.state == .ok && supervisor.sensors.first?.capture == "buffered")
        // The waits between opens grew: first, twice, four times (each at least its wait).
        let t = opens.all
        #expect(t.count == 4)
        let gaps = zip(t.dropFirst(), t).map { $0 - $1 }
        #expect(gaps.count == 3 && gaps[0] >= Self.first && gaps[1] >= 2 * Self.first && gaps[2] >= 4 * Self.first, "\(gaps)")
        // Buffered now: no further try, well past the longest wait.
        loop.schedule(at: plx_monotonic_ns() + 8 * Self.first) { loop.stop() }
        loop.run()
        #expect(opens.all.count == 4)
        #expect(supervisor.bufferRetry.next == Self.first)
    }

    @Test func statusSaysWhenBufferingIsTriedAgain() throws {
        let opens = OpenTimes()
        let (loop, supervisor, events) = try Self.make(failing: 1, opens: opens)
        defer { supervisor.closeNow(wait: true) }
        supervisor.bufferRetry = BufferRetryBackoff()    // the service's 5 s: nothing is tried in this test
        events.stopWhen = { (log: [String]) in log.contains("opened") }
        supervisor.setDemand(true)
        loop.run()
        #expect(supervisor.sensors.first?.capture == "polled: \(Self.why); buffered tried again in 5 s")
        #expect(supervisor.bufferRetry.next == 2 * BufferRetryBackoff.defaultFirst)
    }

    @Test func withoutDemandALingeringPolledCaptureIsNotReopened() throws {
        let opens = OpenTimes()
        let (loop, supervisor, events) = try Self.make(failing: .max, opens: opens)
        defer { supervisor.closeNow(wait: true) }
        supervisor.keepOpen(until: plx_monotonic_ns() + 60_000_000_000)   // lingers throughout
        // One retry while wanted...
        events.stopWhen = { (log: [String]) in log.contains("opened to continue") }
        supervisor.setDemand(true)
        loop.run()
        #expect(opens.all.count == 2)
        // ...and none once only the linger keeps it open, past two more waits.
        supervisor.setDemand(false)
        loop.schedule(at: plx_monotonic_ns() + 6 * Self.first) { loop.stop() }
        loop.run()
        #expect(opens.all.count == 2 && supervisor.capture != nil)
    }

    @Test func theBackOffDoublesUpToItsLongestAndStartsOver() {
        var backoff = BufferRetryBackoff()
        let waits = (0..<9).map { _ in backoff.take() / 1_000_000_000 }
        #expect(waits == [5, 10, 20, 40, 80, 160, 300, 300, 300])
        backoff.reset()
        #expect(backoff.take() == BufferRetryBackoff.defaultFirst)
    }
}
