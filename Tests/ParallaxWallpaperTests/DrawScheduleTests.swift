import Testing
@testable import ParallaxWallpaper

/// When a due frame is drawn: as late as still makes the next composition, else at once.
@Suite struct DrawScheduleTests {
    static let ms: Int64 = 1_000_000

    @Test func withoutACompositionSeenTheFrameIsDrawnAtOnce() {
        var schedule = DrawSchedule()
        schedule.drew(duration: 4 * Self.ms)
        #expect(schedule.drawAt(now: 100 * Self.ms) == nil)
    }

    @Test func aFrameDueRightAfterACompositionWaitsUntilItsBudgetBeforeTheNext() {
        var schedule = DrawSchedule()
        schedule.drew(duration: 4 * Self.ms)
        schedule.composited(at: 1_000 * Self.ms)
        // Budget: 1.5 × 4 ms + 2 ms = 8 ms before the next composition at 1016.67 ms.
        #expect(schedule.budget == 8 * Self.ms)
        let at = schedule.drawAt(now: 1_001 * Self.ms)
        #expect(at == 1_000 * Self.ms + DrawSchedule.defaultPeriod - 8 * Self.ms)
    }

    @Test func aFrameDueTooLateForTheNextCompositionWaitsForTheOneAfter() {
        var schedule = DrawSchedule()
        schedule.drew(duration: 4 * Self.ms)
        schedule.composited(at: 1_000 * Self.ms)
        // 10 ms after: 6.67 ms to the next composition, less than the 8 ms budget.
        let at = schedule.drawAt(now: 1_010 * Self.ms)
        #expect(at == 1_000 * Self.ms + 2 * DrawSchedule.defaultPeriod - 8 * Self.ms)
    }

    @Test func theRefreshIsALowPercentileOfTheCallbackIntervals() {
        var schedule = DrawSchedule()
        var time: Int64 = 0
        for n in 0..<40 {
            schedule.composited(at: time)
            // A 50 Hz compositor whose callbacks we mostly read late or after a skipped refresh
            // (40, 45 ms), once early: lateness must not lengthen the period.
            time += [20, 40, 45, 20, 45][n % 5] * Self.ms
        }
        #expect(schedule.period == 20 * Self.ms)
        // Pauses do not count.
        schedule.composited(at: time + 5_000 * Self.ms)
        #expect(schedule.period == 20 * Self.ms)
    }

    @Test func fewIntervalsLeaveTheDefault() {
        var schedule = DrawSchedule()
        for n in 0..<DrawSchedule.intervalsNeeded { schedule.composited(at: Int64(n) * 8 * Self.ms) }
        #expect(schedule.period == DrawSchedule.defaultPeriod)
        schedule.composited(at: Int64(DrawSchedule.intervalsNeeded) * 8 * Self.ms)
        #expect(schedule.period == 8 * Self.ms)          // 120 Hz
    }

    @Test func afterAPauseOrWithASlowDrawTheFrameIsDrawnAtOnce() {
        var schedule = DrawSchedule()
        schedule.drew(duration: 2 * Self.ms)
        schedule.composited(at: 1_000 * Self.ms)
        // Four periods later the last composition says nothing about the next one.
        #expect(schedule.drawAt(now: 1_000 * Self.ms + 4 * DrawSchedule.defaultPeriod) == nil)
        // A draw slower than a refresh cannot be placed before a composition.
        var slow = DrawSchedule()
        slow.drew(duration: 20 * Self.ms)
        slow.composited(at: 1_000 * Self.ms)
        #expect(slow.drawAt(now: 1_001 * Self.ms) == nil)
    }

    @Test func badMeasurementsAreIgnored() {
        var schedule = DrawSchedule()
        schedule.drew(duration: -5)
        schedule.drew(duration: .max)
        #expect(schedule.drawTime == 0)
        schedule.composited(at: 10 * Self.ms)
        schedule.composited(at: 5 * Self.ms)          // earlier than the last: the anchor moves, the period not
        #expect(schedule.period == DrawSchedule.defaultPeriod)
        #expect(schedule.drawAt(now: 0) == nil)      // before the last composition
        #expect(schedule.drawAt(now: .max) == nil)
    }
}

/// The output's own refresh (its wl_output mode) as the period's floor and first guess.
@Suite struct DrawScheduleOutputRefreshTests {
    static let ms: Int64 = 1_000_000

    /// Callbacks of a compositor that composites some commits at once, off its refresh (headless
    /// wlroots 0.15 with late drawing): many short intervals between the 16 ms ones.
    static func offRefreshCallbacks(_ schedule: inout DrawSchedule) {
        var time: Int64 = 0
        for n in 0..<40 {
            schedule.composited(at: time)
            time += [16, 7, 9, 16, 8][n % 5] * ms
        }
    }

    @Test func offRefreshCompositionsDoNotShortenThePeriodBelowTheOutputsRefresh() {
        var free = DrawSchedule()
        Self.offRefreshCallbacks(&free)
        #expect(free.period == 7 * Self.ms)     // what the low percentile alone makes of them
        var bounded = DrawSchedule()
        bounded.outputRefresh(millihertz: 60_000)
        Self.offRefreshCallbacks(&bounded)
        #expect(bounded.period == Int64(DrawSchedule.outputRefreshShare * Double(1_000_000_000_000 / 60_000)))
    }

    @Test func aCompositorSlowerThanItsModeKeepsItsMeasuredPeriod() {
        var schedule = DrawSchedule()
        schedule.outputRefresh(millihertz: 60_000)
        var time: Int64 = 0
        for _ in 0..<20 {
            schedule.composited(at: time)
            time += 33 * Self.ms
        }
        #expect(schedule.period == 33 * Self.ms)
    }

    @Test func theModesPeriodIsTheFirstGuess() {
        var schedule = DrawSchedule()
        schedule.outputRefresh(millihertz: 144_000)
        #expect(schedule.period == 6_944_444)
        schedule.outputRefresh(millihertz: 0)
        #expect(schedule.period == DrawSchedule.defaultPeriod && schedule.outputPeriod == nil)
    }

    @Test func refreshesOutsideTheRangeOfADisplayAreIgnored() {
        var schedule = DrawSchedule()
        for bad: Int32 in [-60_000, 1, 1_000, Int32.max] {
            schedule.outputRefresh(millihertz: bad)
            #expect(schedule.outputPeriod == nil && schedule.period == DrawSchedule.defaultPeriod)
        }
    }
}
