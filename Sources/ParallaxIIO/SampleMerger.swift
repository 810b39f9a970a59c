import ParallaxMotion

/// Merges the sample streams of 1…N kernel buffers (one per device: a HID hub's `accel_3d` and
/// `gyro_3d`) into one stream in time order, the order the motion engine needs.
///
/// Why hold samples at all: each device's scans become readable on their own schedule (their own
/// trigger, rate and interrupt thread), so a gyroscope sample at t = 100 ms can be read before an
/// accelerometer sample at t = 95 ms of the other device. Handing the gyroscope sample over at
/// once would put the accelerometer's behind it, and the engine, which integrates by real time
/// per sensor, would see time run backwards. So a sample waits until no other stream can still
/// deliver an earlier one: that stream has reported past its time, or its next sample cannot be
/// that early (a device never samples faster than twice its rate: its next sample comes at
/// least half a period after its newest, `spacing`), or that stream is too late to wait for
/// (`hold`): a device that went silent (a hub at rest, a stalled trigger) never stalls the others.
///
/// Why the spacing matters: waiting for the other stream to report *past* a sample costs up to
/// one of its periods (10 ms at 100 Hz) on every other sample, and a frame due at that sample
/// then goes out late enough that a 60 Hz subscriber's next due point is skipped (measured
/// under umockdev: 40 frames a second instead of 60). With the spacing a sample waits only when
/// the other stream's next sample may still come before it: at most half its period.
///
/// A sample that still arrives older than one already handed over (its stream was given up on)
/// is handed over at the time of that one (`late` counts them): the engine then integrates its
/// value over a slightly shorter interval instead of seeing time run backwards.
///
/// A pure value: the driver pushes decoded samples and asks for the next one at a time `now`
/// (monotonic ns, the clock of sample times); tests drive it with made-up clocks.
struct SampleMerger {
    /// Longest (ns) a sample waits for another stream to report past it: 40 ms. Two periods of
    /// the slower stream cover its normal spacing and a late interrupt; beyond 40 ms the wait
    /// would eat half the 80 ms onset budget (RestRequest.defaultOnsetBudget) of a motion.
    static let maximumHold: Int64 = 40_000_000
    /// Periods of the waited-for stream a sample waits for it (below `maximumHold`).
    static let holdPeriods: Int64 = 2

    /// How long (ns) others wait for a stream of `period` ns between samples.
    static func hold(forPeriod period: Int64) -> Int64 {
        min(maximumHold, max(0, period).saturatingMultiplied(by: holdPeriods))
    }

    /// The least time (ns) between two samples of a stream of `period` ns: half a period.
    static func spacing(forPeriod period: Int64) -> Int64 { max(0, period) / 2 }

    private struct Lane {
        var queue: [Sample] = []
        var head = 0
        /// Time of the newest sample pushed (ns); 0 before the first.
        var newest: Int64 = 0
        /// How long (ns) samples of other lanes wait for this one past their own time.
        var hold: Int64
        /// This lane's next sample comes at least this long (ns) after its newest.
        var spacing: Int64

        init(period: Int64) {
            hold = SampleMerger.hold(forPeriod: period)
            spacing = SampleMerger.spacing(forPeriod: period)
        }

        /// A lane of `period` with `other`'s queue and newest time.
        init(period: Int64, keeping other: Lane) {
            self.init(period: period)
            queue = other.queue
            head = other.head
            newest = other.newest
        }

        /// Whether this lane, with nothing queued, may still deliver a sample at or before `t`.
        func mayPrecede(_ t: Int64) -> Bool {
            front == nil && newest < t && newest.saturatingAdding(spacing) <= t
        }

        var front: Sample? { head < queue.count ? queue[head] : nil }

        mutating func pop() -> Sample {
            defer {
                head += 1
                if head == queue.count { queue.removeAll(keepingCapacity: true); head = 0 }
            }
            return queue[head]
        }
    }

    private var lanes: [Lane]
    /// Time of the last sample handed over (ns); 0 before the first.
    private(set) var lastReleased: Int64 = 0
    /// Samples handed over at a later time than their own (see the type's comment).
    private(set) var late = 0

    /// One lane per stream, each with its sampling period (ns): the hold others give it and
    /// its spacing follow from it.
    init(periods: [Int64]) {
        lanes = periods.map { Lane(period: $0) }
    }

    var laneCount: Int { lanes.count }

    /// Samples queued in every lane.
    var count: Int { lanes.reduce(0) { $0 + $1.queue.count - $1.head } }

    /// `lane`'s device now samples every `period` ns (slowed down at rest, or back).
    mutating func setPeriod(_ period: Int64, lane: Int) {
        lanes[lane] = Lane(period: period, keeping: lanes[lane])
    }

    /// Nobody waits for `lane` (a hub at rest: silent by design, its first report must go at once).
    mutating func waitForNothing(lane: Int) { lanes[lane].hold = 0 }

    /// Queues a sample of `lane`; each lane's samples come in their own time order.
    mutating func push(_ sample: Sample, lane: Int) {
        lanes[lane].queue.append(sample)
        lanes[lane].newest = max(lanes[lane].newest, sample.t)
    }

    /// The lane holding the earliest queued sample (the lower lane among equal times).
    private var earliestLane: Int? {
        var best: Int?
        for i in lanes.indices {
            guard let t = lanes[i].front?.t else { continue }
            if best == nil || t < lanes[best!].front!.t { best = i }
        }
        return best
    }

    /// When (ns) the earliest queued sample may go whatever the others do: its time plus the
    /// longest hold of the lanes that may still deliver an earlier one; `.min` when it waits for none (it goes at
    /// once, even if its time is a little ahead of `now`). nil when nothing is queued.
    func releaseTime() -> Int64? {
        guard let i = earliestLane, let t = lanes[i].front?.t else { return nil }
        var waits = false
        var wait: Int64 = 0
        for j in lanes.indices where j != i && lanes[j].mayPrecede(t) {
            waits = true
            wait = max(wait, lanes[j].hold)
        }
        return waits ? t.saturatingAdding(wait) : .min
    }

    /// The next sample in time order if it may go at `now`, with its lane; nil otherwise.
    mutating func next(now: Int64) -> (sample: Sample, lane: Int)? {
        guard let i = earliestLane, let release = releaseTime(), release <= now else { return nil }
        var sample = lanes[i].pop()
        if sample.t < lastReleased {
            sample.t = lastReleased
            late += 1
        }
        lastReleased = sample.t
        return (sample, i)
    }

    /// Hands over every queued sample in time order, whatever the holds (the source closes).
    mutating func drain(_ body: (Sample, Int) -> Void) {
        while let sample = next(now: .max) { body(sample.sample, sample.lane) }
    }
}
