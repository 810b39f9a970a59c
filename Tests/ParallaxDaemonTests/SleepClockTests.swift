@testable import ParallaxDaemon
import Testing

/// A sleep from the two clocks (SleepClock): BOOTTIME counts it, MONOTONIC does not.
struct SleepClockTests {
    static let second: Int64 = 1_000_000_000

    @Test func awakeTheClocksMoveTogetherAndNothingIsTold() {
        var clock = SleepClock(boottime: 100 * Self.second, monotonic: 90 * Self.second)
        // Read back to back, the two differ by a few µs more or less each time.
        #expect(clock.slept(boottime: 101 * Self.second + 3_000, monotonic: 91 * Self.second) == nil)
        #expect(clock.slept(boottime: 200 * Self.second, monotonic: 190 * Self.second + 5_000) == nil)
    }

    @Test func aSleepIsToldOnceWithItsLength() {
        var clock = SleepClock(boottime: 100 * Self.second, monotonic: 90 * Self.second)
        // 30 s asleep: BOOTTIME ran on, MONOTONIC stood still.
        #expect(clock.slept(boottime: 131 * Self.second, monotonic: 91 * Self.second) == 30 * Self.second)
        #expect(clock.slept(boottime: 132 * Self.second, monotonic: 92 * Self.second) == nil)
    }

    @Test func aSleepToldByLogindIsNotToldAgain() {
        var clock = SleepClock(boottime: 100 * Self.second, monotonic: 90 * Self.second)
        clock.rebase(boottime: 131 * Self.second, monotonic: 91 * Self.second)
        #expect(clock.slept(boottime: 131 * Self.second + 1, monotonic: 91 * Self.second) == nil)
    }

    @Test func aShortSleepBelowTheThresholdIsJitter() {
        var clock = SleepClock(boottime: 0, monotonic: 0)
        #expect(clock.slept(boottime: SleepClock.threshold, monotonic: 0) == nil)
        #expect(clock.slept(boottime: SleepClock.threshold + 1, monotonic: 0) == SleepClock.threshold + 1)
    }
}
