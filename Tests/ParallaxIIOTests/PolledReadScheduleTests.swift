// What an accelerometer read through sysfs beside iio-sensor-proxy costs the hub (docs/sensors.md
// "Beside iio-sensor-proxy"): readings a second moving and at rest, three GET_REPORTs each.
import ParallaxMotion
import Testing
@testable import ParallaxIIO

@Suite struct PolledReadScheduleTests {
    /// Readings taken over `seconds` when the capture loop asks every millisecond.
    func readings(_ schedule: inout PolledReadSchedule, from start: Int64, seconds: Int) -> Int {
        var taken = 0
        for ms in 0..<Int64(seconds * 1000) where schedule.take(now: start + ms * 1_000_000) { taken += 1 }
        return taken
    }

    @Test func movingItIsRead25TimesASecondAndAtRestHalfATime() {
        var schedule = PolledReadSchedule(rate: IIOSettings().polledAccelerometerRate, now: 0)
        #expect(schedule.rate == 25)
        let moving = readings(&schedule, from: 0, seconds: 10)
        #expect(moving == 250, "\(moving) readings in 10 s while moving")
        #expect(Double(moving * 3) / 10 <= 75)  // GET_REPORTs a second on a HID hub
        schedule.resting = true
        let resting = readings(&schedule, from: 10_000_000_000, seconds: 20)
        #expect(resting == 10, "\(resting) readings in 20 s at rest")
        #expect(Double(resting * 3) / 20 <= 2)
        // Leaving the rest: a reading at once, then the moving beat again.
        schedule.resting = false
        schedule.readAt(30_000_000_000)
        let leaving = readings(&schedule, from: 30_000_000_000, seconds: 2)
        #expect(leaving == 50, "\(leaving) readings in the 2 s after the rest")
    }

    /// The rate asked is kept within the rest rate and the hub's budget; nonsense gets the budget.
    @Test func theRateStaysWithinTheBudget() {
        #expect(PolledReadSchedule(rate: 100, now: 0).rate == 25)
        #expect(PolledReadSchedule(rate: .infinity, now: 0).rate == 25)
        #expect(PolledReadSchedule(rate: .nan, now: 0).rate == 25)
        #expect(PolledReadSchedule(rate: 0.01, now: 0).rate == PolledReadSchedule.restRate)
        #expect(PolledReadSchedule(rate: -5, now: 0).rate == PolledReadSchedule.restRate)
        #expect(abs(PolledReadSchedule(rate: 10, now: 0).rate - 10) < 1e-9)
    }

    /// A stall (a suspended machine, a GET_REPORT the hub answered late) restarts the beat rather
    /// than catching up in a burst of readings.
    @Test func aStallIsNotCaughtUp() {
        var schedule = PolledReadSchedule(rate: 25, now: 0)
        let first = schedule.take(now: 0)
        let late = schedule.take(now: 3_000_000_000)
        let rightAfter = schedule.take(now: 3_001_000_000)
        #expect(first && late && !rightAfter)
        let next = readings(&schedule, from: 3_001_000_000, seconds: 1)
        #expect(next == 25, "\(next) readings in the second after the stall")
    }

    /// The chosen rate is above what the attitude filter needs to correct its drift with the
    /// shipped gain (docs/motion.md "Accelerometer rate"): 25 is for the linear acceleration.
    @Test func theRateIsAboveTheDriftCorrectionsFloor() {
        #expect(IIOSettings.defaultPolledAccelerometerRate >= MotionSettings().gravityReferenceRate)
    }
}
