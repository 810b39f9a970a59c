import CLinux
import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import Testing
@testable import ParallaxDaemon

/// The supervisor across a system sleep as logind tells it (Supervisor+Sleep.swift): the sensors
/// close before it, nothing opens during it, and they open again after it to continue (the
/// attitude restarts, the state never says lost).
@Suite struct SupervisorSleepTests {
    /// A sample every millisecond until stopped.
    final class EndlessDriver: SensorDriver {
        let sensors = [SensorDescription(kind: .accelerometer, device: "endless", location: "test", rate: 1000)]
        private var t: Int64 = 1_000_000

        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
            usleep(1000)
            t += 1_000_000
            return Sample(t: t, accel: Vector3(0, -9.81, 0), gyro: nil)
        }

        func close() {}
    }

    @Test func theSensorsCloseBeforeTheSleepAndOpenAfterItToContinue() throws {
        let opens = SupervisorTests.Counter()
        let (loop, supervisor, events) = try SupervisorTests.make { [opens] () throws(SensorError) -> any SensorDriver in
            opens.increment()
            return EndlessDriver()
        }
        defer { supervisor.closeNow(wait: true) }
        events.stopWhen = { (log: [String]) in log.contains("opened") }
        supervisor.setDemand(true)
        loop.run()

        supervisor.systemGoingToSleep()
        #expect(supervisor.capture == nil)
        #expect(events.log.last == "closed")
        // Nothing opens while the system sleeps, whoever asks.
        supervisor.open()
        #expect(supervisor.capture == nil && opens.count == 1)

        events.stopWhen = { (log: [String]) in log.contains("opened to continue") }
        supervisor.systemBack()
        loop.run()
        #expect(events.log == ["opened", "state ok", "first outcome", "closed", "opened to continue"])
        #expect(supervisor.state == .ok && opens.count == 2)
        #expect(events.openings == [.fresh, .afterSleep])
    }

    @Test func sensorsClosedBeforeTheSleepStayClosedAfterIt() throws {
        let opens = SupervisorTests.Counter()
        let (loop, supervisor, events) = try SupervisorTests.make { [opens] () throws(SensorError) -> any SensorDriver in
            opens.increment()
            return EndlessDriver()
        }
        defer { supervisor.closeNow(wait: true) }
        supervisor.systemGoingToSleep()
        supervisor.systemBack()
        // Past the first retry delay: nothing was opened.
        loop.schedule(at: plx_monotonic_ns() + SensorLifecycle.firstRetryDelay) { loop.stop() }
        loop.run()
        #expect(opens.count == 0 && events.log.isEmpty)
    }
}
