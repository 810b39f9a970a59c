// When to draw a frame that is due (docs/wallpaper.md "Outputs, frames and prediction"): as late
// as still makes the compositor's next composition, so the offset drawn comes from the newest
// daemon frame and is predicted over the shortest horizon. Drawing right after the frame callback
// instead leaves the finished frame waiting most of a refresh for the composition, and the sample
// behind it ages with it (BENCHMARKS.md "Motion to photon"). The compositions are where the frame
// callbacks came (the compositor sends them right after compositing), every `period` after the
// last one; a frame takes the draw time seen lately, with room to spare. The period is a low
// percentile of the intervals between callbacks: a compositor cannot composite faster than it
// refreshes, while drawing late or missing a composition only lengthens an interval — an average
// would follow our own lateness and drift (measured: 60 Hz read as 20). A pure value: the surface
// tells it when callbacks came and how long frames took, and asks it when to draw.

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
    /// A last composition more than this many periods ago says nothing about the next one: the
    /// frame is drawn at once (the first frame after a pause).
    public static let maximumPeriodsAhead: Int64 = 4

    /// When the last frame callback came (ns), nil before the first.
    public private(set) var lastComposition: Int64?
    /// The refresh period (ns): `periodPercentile` of the kept callback intervals.
    public private(set) var period = DrawSchedule.defaultPeriod
    private var intervals: [Int64] = []
    /// Smoothed draw time (ns), from the start of drawing to the end of the buffer swap.
    public private(set) var drawTime: Int64 = 0

    public init() {}

    /// A frame callback came at `time` (ns): the compositor has just composited.
    public mutating func composited(at time: Int64) {
        if let last = lastComposition, time > last, Self.periods.contains(time - last) {
            intervals.append(time - last)
            if intervals.count > Self.intervalsKept { intervals.removeFirst() }
            if intervals.count >= Self.intervalsNeeded {
                let sorted = intervals.sorted()
                period = sorted[Int(Self.periodPercentile * Double(sorted.count))]
            }
        }
        lastComposition = time
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
