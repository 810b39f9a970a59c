import ParallaxMotion
import SystemPackage
import Testing
@testable import ParallaxIIO

/// Rest's decisions with made-up clocks (ns): when the loop orders a rest, which answers count,
/// when it withdraws, and the capture thread's watch over a resting source.
@Suite struct RestCycleTests {
    static let now: Int64 = 10_000_000_000
    static let ms: Int64 = 1_000_000
    static let gravity = Vector3(0, 0, 9.81)
    static let pace = RestPace(rate: 6.25, samplesPerWake: 1, wakesThroughDescriptor: false)

    static func conditions(after: Double = 2, canRest: Bool = true, stillFor: Double? = 3,
                           quiet: Bool = true, asked: Asked? = nil) -> RestCycle.Conditions {
        RestCycle.Conditions(after: after, canRest: canRest, stillFor: stillFor) {
            asked?.count += 1
            return quiet
        }
    }

    final class Asked { var count = 0 }

    @Test func aDeviceStillLongEnoughWithNothingToSendIsOrderedToRest() {
        var cycle = RestCycle()
        let got1 = cycle.afterBatch(now: Self.now, Self.conditions())
        #expect(got1 == .order(1))
        #expect(cycle.phase == .ordered(1))
        #expect(cycle.order == 1 && cycle.pace == nil)
    }

    @Test(arguments: [
        // (RestAfter=, can rest, still for, quiet)
        (0.0, true, 3.0 as Double?, true),      // RestAfter=0: never
        (2.0, false, 3.0, true),                // the source cannot slow down (an iiod context)
        (2.0, true, nil, true),                 // no sample yet
        (2.0, true, 1.9, true),                 // not still long enough
        (2.0, true, 3.0, false),                // a frame went out lately, or a calibration runs
    ] as [(Double, Bool, Double?, Bool)])
    func otherwiseTheLoopPlansTheNextBatch(after: Double, canRest: Bool, stillFor: Double?, quiet: Bool) {
        var cycle = RestCycle()
        let got1 = cycle.afterBatch(now: Self.now, Self.conditions(after: after, canRest: canRest, stillFor: stillFor, quiet: quiet))
        #expect(got1 == .planNext)
        #expect(cycle.phase == .running && cycle.orders == 0)
    }

    @Test func whetherItIsQuietIsAskedOnlyWhenTheRestHangsOnIt() {
        let asked = Asked()
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions(stillFor: 1, asked: asked))
        #expect(asked.count == 0)
        _ = cycle.afterBatch(now: Self.now, Self.conditions(asked: asked))
        #expect(asked.count == 1)
    }

    @Test func anAnswerCountsOnlyForTheCurrentOrder() {
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions())
        // Withdrawn and ordered again before the capture thread answered the first.
        let got1 = cycle.withdraw(now: Self.now, holding: 0)
        #expect(got1)
        _ = cycle.afterBatch(now: Self.now, Self.conditions())
        #expect(cycle.phase == .ordered(2))
        let got2 = cycle.began(Self.pace, order: 1)
        #expect(!got2)
        let got3 = cycle.ended(order: 1)
        #expect(!got3)
        #expect(cycle.phase == .ordered(2))
        let got4 = cycle.began(Self.pace, order: 2)
        #expect(got4)
        #expect(cycle.phase == .resting(Self.pace, 2) && cycle.pace == Self.pace)
        let got5 = cycle.ended(order: 2)
        #expect(got5)
        #expect(cycle.phase == .running)
    }

    @Test func anAwakeAnswerEndsAnOrderNotYetAnsweredToo() {
        // The capture thread may move on (the first slow sample moved) before the loop read
        // its `.resting`: both come in one batch, in order; and an order it never rested for
        // (withdrawn at once) is answered by `.awake` alone.
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions())
        let got1 = cycle.ended(order: 1)
        #expect(got1)
        #expect(cycle.phase == .running)
    }

    @Test func whileRestingAFrameThatWentOutWithdrawsAndHoldsTheNextRestOff() {
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions())
        _ = cycle.began(Self.pace, order: 1)
        let got1 = cycle.afterBatch(now: Self.now, Self.conditions())
        #expect(got1 == .keep)
        let got2 = cycle.afterBatch(now: Self.now, Self.conditions(quiet: false))
        #expect(got2 == .withdraw)
        #expect(cycle.phase == .running)
        #expect(cycle.heldUntil == Self.now + 2_000 * Self.ms)
        // Still and quiet again at once: held off for RestAfter=.
        let got3 = cycle.afterBatch(now: Self.now + 1_999 * Self.ms, Self.conditions())
        #expect(got3 == .planNext)
        let got4 = cycle.afterBatch(now: Self.now + 2_000 * Self.ms, Self.conditions())
        #expect(got4 == .order(2))
    }

    @Test func aWithdrawalWhileRunningOnlyHoldsTheNextRestOff() {
        // A recenter with the capture running: nothing to tell it, but the recenter's frame must
        // show before the sensors slow down.
        var cycle = RestCycle()
        let got1 = cycle.withdraw(now: Self.now, holding: 500 * Self.ms)
        #expect(!got1)
        let got2 = cycle.afterBatch(now: Self.now + 499 * Self.ms, Self.conditions())
        #expect(got2 == .planNext)
        let got3 = cycle.afterBatch(now: Self.now + 500 * Self.ms, Self.conditions())
        #expect(got3 == .order(1))
    }

    @Test func aHugeRestAfterHoldsForeverWithoutTrapping() {
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions(after: 1e300))
        let got1 = cycle.withdraw(now: Self.now, holding: Self.conditions(after: 1e300).hold)
        #expect(got1 == false)
        #expect(cycle.heldUntil == .max)
    }

    @Test func aCaptureThatClosesForgetsItsOrderButNotTheSerials() {
        var cycle = RestCycle()
        _ = cycle.afterBatch(now: Self.now, Self.conditions())
        _ = cycle.began(Self.pace, order: 1)
        cycle.reset()
        #expect(cycle.phase == .running)
        // A late answer from the closed capture counts for nothing.
        let got1 = cycle.began(Self.pace, order: 1)
        #expect(!got1)
        let got2 = cycle.afterBatch(now: Self.now, Self.conditions())
        #expect(got2 == .order(2))
    }

    // MARK: the capture thread's watch

    static func stillGate() -> Stillness {
        var gate = Stillness()
        for i in 0..<200 { gate.observe(Sample(t: Int64(i) * 10 * ms, accel: gravity, gyro: Vector3(0, 0, 0))) }
        return gate
    }

    static func order(serial: UInt64 = 1) -> RestOrder {
        RestOrder(gate: stillGate(), drainInterval: 2_000 * ms, serial: serial)
    }

    static func still(_ t: Int64) -> Sample { Sample(t: t, accel: gravity, gyro: Vector3(0, 0, 0)) }

    @Test func stillSamplesStayAndDrainToTheLoopEveryInterval() {
        let order = Self.order()
        var watch = RestCycle.Watch(order: order, now: Self.now)
        var t = Self.now
        var drains: [Int64] = []
        for _ in 0..<40 {
            t += 160 * Self.ms
            watch.observe(Self.still(t), sourceReportedMotion: false)
            switch watch.look(now: t, order: order, stopping: false) {
            case .stay(let renewed, let drain):
                #expect(!renewed)
                if drain { drains.append(t) }
            case .leave:
                Issue.record("a still sample ended the rest")
            }
        }
        // 40 × 160 ms = 6.4 s: drained at 2.08, 4.16 and 6.24 s (the first look past each interval).
        #expect(drains.map { ($0 - Self.now) / Self.ms } == [2_080, 4_160, 6_240])
    }

    @Test func theFirstSampleThatMovedEndsTheRest() {
        let order = Self.order()
        var watch = RestCycle.Watch(order: order, now: Self.now)
        watch.observe(Self.still(Self.now + 160 * Self.ms), sourceReportedMotion: false)
        let got1 = watch.look(now: Self.now + 160 * Self.ms, order: order, stopping: false)
        #expect(got1 == .stay(renewed: false, drain: false))
        watch.observe(Sample(t: Self.now + 320 * Self.ms, accel: Self.gravity, gyro: Vector3(0.5, 0, 0)), sourceReportedMotion: false)
        let got2 = watch.look(now: Self.now + 320 * Self.ms, order: order, stopping: false)
        #expect(got2 == .leave(moved: true, serial: 1))
    }

    @Test func aHubThatReportsMotionEndsTheRestWhateverTheGateSays() {
        let order = Self.order()
        var watch = RestCycle.Watch(order: order, now: Self.now)
        watch.observe(Self.still(Self.now + 160 * Self.ms), sourceReportedMotion: true)
        let got1 = watch.look(now: Self.now + 160 * Self.ms, order: order, stopping: false)
        #expect(got1 == .leave(moved: true, serial: 1))
    }

    @Test func aWithdrawnOrderOrAStopLeavesWithoutMotion() {
        var watch = RestCycle.Watch(order: Self.order(), now: Self.now)
        let got1 = watch.look(now: Self.now, order: nil, stopping: false)
        #expect(got1 == .leave(moved: false, serial: 1))
        watch = RestCycle.Watch(order: Self.order(), now: Self.now)
        let got2 = watch.look(now: Self.now, order: Self.order(), stopping: true)
        #expect(got2 == .leave(moved: false, serial: 1))
    }

    @Test func anOrderGivenAgainIsAnsweredForItsNewSerial() {
        var watch = RestCycle.Watch(order: Self.order(serial: 1), now: Self.now)
        let got1 = watch.look(now: Self.now, order: Self.order(serial: 3), stopping: false)
        #expect(got1 == .stay(renewed: true, drain: false))
        #expect(watch.serial == 3)
        let got2 = watch.look(now: Self.now, order: nil, stopping: false)
        #expect(got2 == .leave(moved: false, serial: 3))
    }

    @Test func theNextLookWaitsForTheSourceButNotPastADrain() {
        let order = Self.order()
        var watch = RestCycle.Watch(order: order, now: Self.now)
        // Nothing kept: a paced source is looked at a look interval after the last look
        // (160 ms at 6.25 Hz), or at its next row if later; a descriptor waits for its due time.
        #expect(watch.deadline(pace: Self.pace, wakeup: RestWakeup()) == Self.now + 160 * Self.ms)
        #expect(watch.deadline(pace: Self.pace, wakeup: RestWakeup(due: Self.now + 300 * Self.ms)) == Self.now + 300 * Self.ms)
        #expect(watch.deadline(pace: Self.pace, wakeup: RestWakeup(descriptor: FileDescriptor(rawValue: 5))) == .max)
        // A kept sample bounds a hub's wait by the drain.
        watch.observe(Self.still(Self.now + 10 * Self.ms), sourceReportedMotion: false)
        _ = watch.look(now: Self.now + 10 * Self.ms, order: order, stopping: false)
        #expect(watch.deadline(pace: Self.pace, wakeup: RestWakeup(descriptor: FileDescriptor(rawValue: 5))) == Self.now + 2_000 * Self.ms)
    }

    @Test func farTimesSaturateInsteadOfTrapping() {
        var watch = RestCycle.Watch(order: Self.order(), now: .max - 1)
        _ = watch.look(now: .max - 1, order: Self.order(), stopping: false)
        #expect(watch.deadline(pace: Self.pace, wakeup: RestWakeup()) == .max)
    }
}

