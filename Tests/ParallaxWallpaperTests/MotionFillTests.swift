import ParallaxClient
import Testing
@testable import ParallaxWallpaper

@Suite struct MotionFillTests {
    static let millisecond: Int64 = 1_000_000
    static let refresh60: Int64 = 16_666_667

    static func offset(t: Int64, vx: Double = 0.5, vy: Double = 0, vyaw: Double? = nil) -> ParallaxOffset {
        var o = ParallaxOffset.zero
        o.t = t
        o.x = 0.1
        o.vx = vx
        o.vy = vy
        if let vyaw {
            o.yaw = 0
            o.vyaw = vyaw
        }
        return o
    }

    static func times(through end: Int64, step: Int64) -> [Int64] {
        var result: [Int64] = []
        var t: Int64 = 0
        while t <= end {
            result.append(t)
            t += step
        }
        return result
    }

    /// Frames drawn over `duration` at a display of `refresh`, with daemon frames at `sampleTimes`
    /// (each moving, read 5 ms after its sample), as OutputView asks: a new daemon frame always
    /// draws at the next refresh, otherwise the fill decides. The refresh times that got a frame.
    static func simulate(rate: Int, refresh: Int64, duration: Int64, sampleTimes: [Int64], fills: Bool = true) -> [Int64] {
        let fill = MotionFill(rate: rate)
        var shown: [Int64] = []
        var drawnSample: Int64?
        var tick: Int64 = refresh
        while tick <= duration {
            let newest = sampleTimes.last(where: { $0 <= tick - Int64(5) * millisecond }).map { offset(t: $0) }
            let isNew = newest != nil && newest?.t != drawnSample
            if isNew || (fills && fill.wantsFrame(newest: newest, shownAt: tick, refresh: refresh)) {
                shown.append(tick)
                drawnSample = newest?.t
            }
            tick += refresh
        }
        return shown
    }

    /// The daemon's frames at `rate` from samples every `samplePeriod`: the first sample at or after
    /// each point of a grid `1/rate` apart (the daemon's pacing, docs/protocol.md).
    static func daemonFrames(rate: Int, samplePeriod: Int64, through end: Int64) -> [Int64] {
        var frames: [Int64] = []
        var due: Int64 = 0
        for sample in times(through: end, step: samplePeriod) where sample >= due {
            frames.append(sample)
            due += 1_000_000_000 / Int64(rate)
        }
        return frames
    }

    @Test func aStillOffsetGetsNoFill() {
        let fill = MotionFill(rate: 60)
        #expect(!fill.wantsFrame(newest: Self.offset(t: 0, vx: 0), shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
        #expect(!fill.wantsFrame(newest: nil, shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
        // A non-finite velocity is none, as in prediction.
        #expect(!fill.wantsFrame(newest: Self.offset(t: 0, vx: .nan), shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
        #expect(fill.wantsFrame(newest: Self.offset(t: 0, vy: -0.2), shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
    }

    @Test func aTurningHeadingAloneIsMotion() {
        let fill = MotionFill(rate: 60)
        #expect(fill.wantsFrame(newest: Self.offset(t: 0, vx: 0, vyaw: 1.2), shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
    }

    @Test func predictionStopsAtTheHorizon() {
        // 2 periods of 60 Hz: 33.3 ms past the sample.
        let fill = MotionFill(rate: 60)
        let sample = Self.offset(t: 0)
        #expect(fill.wantsFrame(newest: sample, shownAt: Int64(33) * Self.millisecond, refresh: Self.refresh60))
        #expect(!fill.wantsFrame(newest: sample, shownAt: Int64(34) * Self.millisecond, refresh: Self.refresh60))
        // A frame from the future (clocks apart) is not extrapolated backwards into a fill.
        #expect(!fill.wantsFrame(newest: Self.offset(t: Int64(50) * Self.millisecond), shownAt: Int64(10) * Self.millisecond, refresh: Self.refresh60))
        // Rate=100 on a 60 Hz display: two refreshes, not two 10 ms periods.
        #expect(MotionFill(rate: 100).wantsFrame(newest: sample, shownAt: Int64(33) * Self.millisecond, refresh: Self.refresh60))
    }

    @Test func onlyARateAskingForEveryRefreshIsFilled() {
        let sample = Self.offset(t: 0)
        let at = Int64(10) * Self.millisecond
        // Headless wlroots refreshes at ≈ 61.5 Hz: Rate=60 is 97.6 % of it.
        #expect(MotionFill(rate: 60).wantsFrame(newest: sample, shownAt: at, refresh: 16_260_000))
        #expect(MotionFill(rate: 120).wantsFrame(newest: sample, shownAt: at, refresh: 6_944_444) == false)
        #expect(MotionFill(rate: 144).wantsFrame(newest: sample, shownAt: at, refresh: 6_944_444))
        #expect(!MotionFill(rate: 30).wantsFrame(newest: sample, shownAt: at, refresh: Self.refresh60))
        #expect(!MotionFill(rate: 60).wantsFrame(newest: sample, shownAt: at, refresh: 0))
    }

    @Test func a100HzSensorAt60HzFillsTheRefreshesTheDaemonSkips() {
        // The daemon's 60 Hz frames follow 100 Hz samples, 10 and 20 ms apart; a 61.5 Hz
        // compositor (headless wlroots) sees no new one at some refreshes. Filled, every refresh
        // gets a frame.
        let end = Int64(2_000) * Self.millisecond
        let refresh: Int64 = 16_260_000
        let daemon = Self.daemonFrames(rate: 60, samplePeriod: Int64(10) * Self.millisecond, through: end)
        let filled = Self.simulate(rate: 60, refresh: refresh, duration: end, sampleTimes: daemon)
        let unfilled = Self.simulate(rate: 60, refresh: refresh, duration: end, sampleTimes: daemon, fills: false)
        let refreshes = Int(end / refresh)
        #expect(filled.count == refreshes, "\(filled.count) of \(refreshes) refreshes")
        #expect(unfilled.count < refreshes - 10, "without the fill \(unfilled.count) of \(refreshes)")
    }

    @Test func aFastDisplayUnderALowRateFollowsTheDaemonFrames() {
        // 144 Hz display, Rate=60: one frame per daemon frame, no fills between them.
        let refresh144: Int64 = 6_944_444
        let end = Int64(2_000) * Self.millisecond
        let daemon = Self.daemonFrames(rate: 60, samplePeriod: Int64(5) * Self.millisecond, through: end)
        let shown = Self.simulate(rate: 60, refresh: refresh144, duration: end, sampleTimes: daemon)
        #expect(shown.count == Self.simulate(rate: 60, refresh: refresh144, duration: end, sampleTimes: daemon, fills: false).count)
    }

    @Test func aSlowTurnIsFilledWithinTheHorizonOnly() {
        // Rate=60 on a 60 Hz display, daemon frames every 40 ms (a slow turn: the minimum change
        // holds them back): the refreshes within 33 ms of a sample are filled, the rest wait.
        let end = Int64(1_000) * Self.millisecond
        let daemon = Self.times(through: end, step: Int64(40) * Self.millisecond)
        let shown = Self.simulate(rate: 60, refresh: Self.refresh60, duration: end, sampleTimes: daemon)
        #expect(shown.count > daemon.count && shown.count < 60, "\(shown.count) frames for \(daemon.count) daemon frames")
        for tick in shown {
            let newest = daemon.last(where: { $0 <= tick - Int64(5) * Self.millisecond })!
            let age: Int64 = tick - newest
            #expect(age <= Int64(34) * Self.millisecond)
        }
    }
}
