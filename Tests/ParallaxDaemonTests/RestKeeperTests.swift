@testable import ParallaxDaemon
import ParallaxIIO
import ParallaxMotion
import Testing

/// The loop's rest state as one value (RestKeeper): what an order carries, the stillness it is
/// built from, the hold after a withdrawal, a reload's new settings. The cycle's own transitions
/// are RestCycleTests'.
struct RestKeeperTests {
    static let second: Int64 = 1_000_000_000
    static let gravity = Vector3(0, 9.81, 0)

    /// `seconds` of still samples at 100 Hz from `start` (ns); returns the time after the last.
    static func still(_ keeper: inout RestKeeper, from start: Int64, seconds: Double) -> Int64 {
        var t = start
        for _ in 0..<Int(seconds * 100) {
            keeper.observe(Sample(t: t, accel: gravity, gyro: Vector3(0, 0, 0)))
            t += second / 100
        }
        return t
    }

    @Test func aStillQuietDeviceIsOrderedToRestWithTheStillnessSoFar() throws {
        var keeper = RestKeeper(settings: RestSettings(after: 2, request: RestRequest(rate: 10)))
        keeper.opened([SensorDescription(kind: .accelerometer, device: "a", location: "a", rate: 100),
                       SensorDescription(kind: .gyroscope, device: "g", location: "g", rate: 100)])
        var end = Self.still(&keeper, from: Self.second, seconds: 1)
        // Still for 1 s of the 2: the next batch is planned.
        let answer1 = keeper.afterBatch(now: end, canRest: true, quiet: { _ in true })
        #expect(answer1 == .planNext)
        end = Self.still(&keeper, from: end, seconds: 1.5)
        // Still long enough, but something was published: no rest; the quiet asked is RestAfter=.
        var askedFor: Int64 = 0
        let answer2 = keeper.afterBatch(now: end, canRest: true, quiet: { askedFor = $0; return false })
        #expect(answer2 == .planNext)
        #expect(askedFor == 2 * Self.second)
        // A source that cannot slow down is never ordered.
        let answer3 = keeper.afterBatch(now: end, canRest: false, quiet: { _ in true })
        #expect(answer3 == .planNext)
        let ordered = keeper.afterBatch(now: end, canRest: true, quiet: { _ in true })
        guard case .order(let order) = ordered else {
            Issue.record("no order after 2.5 s still and quiet")
            return
        }
        #expect(order.serial == 1 && order.request == RestRequest(rate: 10))
        #expect(order.gate.stillFor(at: end - Self.second / 100) >= 2)
        #expect(keeper.newestSample == end - Self.second / 100)
        #expect(!keeper.isRunning && keeper.pace == nil)
        let pace = RestPace(rate: 10, samplesPerWake: 1, wakesThroughDescriptor: false)
        let answer4 = keeper.began(pace, order: 1)
        #expect(answer4)
        #expect(keeper.pace == pace)
    }

    @Test func aWithdrawalHoldsOffTheNextRestForRestAfter() {
        var keeper = RestKeeper(settings: RestSettings(after: 1))
        let end = Self.still(&keeper, from: Self.second, seconds: 3)
        let ordered = keeper.afterBatch(now: end, canRest: true, quiet: { _ in true })
        guard case .order = ordered else {
            Issue.record("no order")
            return
        }
        let answer5 = keeper.withdraw(now: end)
        #expect(answer5)
        #expect(keeper.isRunning)
        // Still and quiet, but within RestAfter= of the withdrawal.
        let answer6 = keeper.afterBatch(now: end + Self.second / 2, canRest: true, quiet: { _ in true })
        #expect(answer6 == .planNext)
        let afterHold = keeper.afterBatch(now: end + Self.second, canRest: true, quiet: { _ in true })
        if case .order(let order) = afterHold {
            #expect(order.serial == 2)
        } else {
            Issue.record("no order once the hold is over")
        }
        // Nothing to withdraw at full rate: the capture is not told.
        keeper.captureEnded()
        let answer7 = keeper.withdraw(now: end + 2 * Self.second)
        #expect(!answer7)
    }

    @Test func newSettingsWithdrawAStandingOrderAndTheSameDoNot() {
        var keeper = RestKeeper(settings: RestSettings(after: 1))
        let end = Self.still(&keeper, from: Self.second, seconds: 2)
        let ordered = keeper.afterBatch(now: end, canRest: true, quiet: { _ in true })
        guard case .order = ordered else {
            Issue.record("no order")
            return
        }
        let answer8 = keeper.reconfigure(RestSettings(after: 1), now: end)
        #expect(!answer8)
        #expect(!keeper.isRunning)
        let answer9 = keeper.reconfigure(RestSettings(after: 1, request: RestRequest(rate: 5)), now: end)
        #expect(answer9)
        #expect(keeper.isRunning && keeper.settings.request == RestRequest(rate: 5))
        // RestAfter=0: never.
        _ = keeper.reconfigure(RestSettings(after: 0), now: end)
        let answer10 = keeper.afterBatch(now: end + 10 * Self.second, canRest: true, quiet: { _ in true })
        #expect(answer10 == .planNext)
    }

    @Test func aCoarseDeviceGetsAGateAboveItsQuantum() {
        var keeper = RestKeeper(settings: RestSettings(after: 1))
        let quantum = 0.1  // m/s² per step: under 4 steps is noise
        keeper.opened([SensorDescription(kind: .accelerometer, device: "deck", location: "event7", rate: 250, quantum: quantum)])
        #expect(keeper.stillness.settings.accelerometerTolerance >= Stillness.Settings.quantaPerTolerance * quantum)
        #expect(keeper.stillness.settings.gyroscopeTolerance == Stillness.Settings.defaultGyroscopeTolerance)
        keeper.opened([SensorDescription(kind: .accelerometer, device: "bmi160", location: "iio:device0", rate: 100)])
        #expect(keeper.stillness.settings == Stillness.Settings())
    }
}
