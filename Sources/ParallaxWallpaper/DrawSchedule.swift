// When to draw a frame that is due (docs/wallpaper.md "Outputs, frames and prediction"): as late
// as still makes the compositor's next composition, so the offset drawn comes from the newest
// daemon frame and is predicted over the shortest horizon. Drawing right after the frame callback
// instead leaves the finished frame waiting most of a refresh for the composition, and the sample
// behind it ages with it (BENCHMARKS.md "Motion to photon"). The compositions are where the frame
// callbacks came (the compositor sends them right after compositing), every `period` after the
// last one; a frame takes the draw time seen lately, with room to spare. The period is a low
// percentile of the intervals between callbacks: a compositor cannot composite faster than it
// refreshes, while drawing late or missing a composition only lengthens an interval — an average
// would follow our own lateness and drift (measured: 60 Hz read as 20). Where the output's mode
// says its refresh, the period is never taken much shorter than that: headless wlroots 0.15
// composites a commit at once when no frame is pending, off its refresh, and the short intervals
// this made pulled the low percentile down until the schedule aimed at compositions that never
// came (57.5 frames a second where the compositor gives 61.9; 61.7 with the floor, BENCHMARKS.md
// "On Debian 12's sway 1.7"). A pure value: the surface tells it when callbacks came, how long
// frames took and the output's refresh, and asks it when to draw.

public struct DrawSchedule: Sendable {
    /// The refresh period assumed until callbacks in a row measure it (ns): 60 Hz.
    public static let defaultPeriod: Int64 = 16_666_667
    /// Periods outside this (ns) are not a refresh: 240 Hz to 20 Hz.
    public static let periods: ClosedRange<Int64> = 4_000_000...50_000_000
    /// Kept between the end of drawing and the composition (ns): the commit's trip to the
    /// compositor (a Unix socket: well under 1 ms), and a draw a little slower than the estimate
    /// beyond what `drawTimeFactor` allows. 2 ms: under headless sway 1.10 it took the sample →
    /// presented p99 from 25.5 to 23.8 ms against 3 ms, with the same 0.99 of the compositor's
    /// frames presented (BENCHMARKS.md "On sway 1.10").
    public static let margin: Int64 = 2_000_000
    /// The draw time is budgeted at this multiple of its smoothed value.
    public static let drawTimeFactor = 1.5
    /// Weight of a new measurement in the smoothed draw time.
    public static let smoothing = 0.2
    /// Callback intervals kept, and how many before they set the period.
    public static let intervalsKept = 32
    public static let intervalsNeeded = 8
    /// The percentile of the kept intervals taken as the period (low: our own delays in reading a
    /// callback make some intervals short, lateness makes many long).
    public static let periodPercentile = 0.1
    /// The shortest period taken, as a share of the output's refresh period (its current
    /// wl_output mode). Compositions do not come faster than the output refreshes, but a
    /// compositor's clock may run a little fast against its mode: wlroots 0.15's headless output
    /// ticks every 16 ms (plus its own work) for its 60 Hz mode, 0.96 of 16.67 ms.
    public static let outputRefreshShare = 0.95
    /// A last composition more than this many periods ago says nothing about the next one: the
    /// frame is drawn at once (the first frame after a pause).
    public static let maximumPeriodsAhead: Int64 = 4

    /// When the last frame callback came (ns), nil before the first.
    public private(set) var lastComposition: Int64?
    /// The refresh period (ns): `periodPercentile` of the kept callback intervals, at least
    /// `outputRefreshShare` of the output's own.
    public private(set) var period = DrawSchedule.defaultPeriod
    /// The output's refresh period from its current mode (ns); nil where none is known (a
    /// window, a compositor that says 0, a value outside `periods`).
    public private(set) var outputPeriod: Int64?
    private var intervals: [Int64] = []
    /// Smoothed draw time (ns), from the start of drawing to the end of the buffer swap.
    public private(set) var drawTime: Int64 = 0

    public init() {}

    /// A frame callback came at `time` (ns): the compositor has just composited.
    public mutating func composited(at time: Int64) {
        if let last = lastComposition, time > last, Self.periods.contains(time - last) {
            intervals.append(time - last)
            if intervals.count > Self.intervalsKept { intervals.removeFirst() }
            updatePeriod()
        }
        lastComposition = time
    }

    /// The output's current mode refreshes `millihertz` times a thousand seconds (wl_output's
    /// unit); 0 or less where the compositor does not say.
    public mutating func outputRefresh(millihertz: Int32) {
        let given = millihertz > 0 ? 1_000_000_000_000 / Int64(millihertz) : 0
        outputPeriod = Self.periods.contains(given) ? given : nil
        updatePeriod()
    }

    /// The measured period (a low percentile of the kept intervals), not shorter than the
    /// output's share; the output's own period, else 60 Hz, until enough intervals are kept.
    private mutating func updatePeriod() {
        let floor = outputPeriod.map { Int64(Self.outputRefreshShare * Double($0)) }
        guard intervals.count >= Self.intervalsNeeded else {
            period = outputPeriod ?? Self.defaultPeriod
            return
        }
        let measured = intervals.sorted()[Int(Self.periodPercentile * Double(intervals.count))]
        period = max(measured, floor ?? 0)
    }

    /// A frame took `duration` (ns) to draw and swap.
    public mutating func drew(duration: Int64) {
        guard duration >= 0, duration <= Self.periods.upperBound else { return }
        drawTime = drawTime == 0 ? duration : drawTime + Int64(Self.smoothing * Double(duration - drawTime))
    }

    /// How long before a composition drawing has to start (ns).
    public var budget: Int64 { Int64(Self.drawTimeFactor * Double(drawTime)) + Self.margin }

    /// When to draw a frame that is due at `now` (ns): a later moment that still makes the next
    /// composition, or nil to draw now (no composition seen lately, or none can be made later).
    public func drawAt(now: Int64) -> Int64? {
        guard let last = lastComposition, now >= last, budget < period else { return nil }
        let elapsed = now - last
        guard elapsed < Self.maximumPeriodsAhead * period else { return nil }
        // The first composition at least a budget away, and when drawing for it must start.
        let periodsAhead = (elapsed + budget) / period + 1
        let start = last + periodsAhead * period - budget
        // Waiting a whole period for the one after a just-missed composition gains nothing.
        let slack = start - now
        return slack > 0 && slack < period ? start : nil
    }
}
