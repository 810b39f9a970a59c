/// When a subscription's next frame falls due: a grid of due points in *sample* time (the `t` of
/// the samples, monotonic ns), a pure value tested with made-up sample times (`FramePacingTests`).
///
/// Grid point `k` lies at `k × interval`: every subscriber of the same rate shares the grid, so
/// their points fall due together and one wake-up of the loop serves them all. A frame is due
/// for the first sample at or after the next point not yet served; sending it serves that point,
/// and the next one is the point after it, wherever the sample that served it fell. Why sample
/// time and whole points (issue 31): the old due time was computed from the *send* time and
/// skipped a point whenever a frame went out just after one (a sample period late), so a 60 Hz
/// subscriber of a 100 Hz source got 40 frames a second. On this grid lateness costs nothing:
/// with a source at S Hz and a subscription at R ≤ S, the first sample at or after each point
/// goes out, R frames a second, each at most one source period after its point (spacing error
/// under one source period). With S < R every sample is due (min(R, S)).
///
/// One point may stay owed after a send: a sample gap (or a batch of samples delivered at once)
/// longer than the interval crossed two points, and the next sample serves the second one. More
/// is not owed: a source slower than the subscription, or a pause, never makes a burst later.
/// A due sample that brings nothing to send (the minimum change held it back) gives its points
/// up (`passed`): a still device sends nothing, and the first frame of a new motion waits for
/// the next point instead of going out at once with a second one a sample later.
struct FramePacing: Equatable, Sendable {
    /// Nanoseconds between grid points (1 s / rate, truncated: under 1 ns per point).
    let interval: Int64
    /// Index of the last grid point served; nil until the subscription's first frame, which is
    /// due whenever it comes and does not count against the rate (it only starts the grid).
    private(set) var served: Int64?
    /// Sample time of the last frame sent, so that a second look at the same sample is not taken
    /// for a sample that brought nothing.
    private(set) var lastSent: Int64?

    /// Points that may stay owed after a send (see above).
    static let owedPoints: Int64 = 1

    init(rate: Int) {
        interval = max(1, 1_000_000_000 / Int64(max(1, rate)))
    }

    /// The grid point at or before sample time `t` (floor division: times may be negative in
    /// tests and traces).
    func point(_ t: Int64) -> Int64 {
        t >= 0 ? t / interval : -((-t + interval - 1) / interval)
    }

    /// The first grid point at or after time `t`, in ns.
    func gridPoint(after t: Int64) -> Int64 {
        time(ofPoint: point(t) &+ 1)
    }

    /// Where point `k` lies, saturating (sample times near the clock's end: ExtremeTimesTests).
    private func time(ofPoint k: Int64) -> Int64 {
        let (t, overflow) = k.multipliedReportingOverflow(by: interval)
        return overflow ? (k < 0 ? .min : .max) : t
    }

    /// Sample time of the next point to serve; nil before the first frame (any sample is due).
    var nextDue: Int64? {
        served.map { time(ofPoint: $0 &+ 1) }
    }

    /// A frame of the sample taken at `t` is due.
    func isDue(sampleAt t: Int64) -> Bool {
        guard let served else { return true }
        return point(t) > served
    }

    /// A frame of the sample taken at `t` was sent (due or not: the fallback timer sends a frame
    /// whose sample came before the point when no newer one comes).
    mutating func sent(sampleAt t: Int64) {
        lastSent = t
        let k = point(t)
        guard let served else {
            self.served = k
            return
        }
        self.served = max(served &+ 1, k &- Self.owedPoints)
    }

    /// A sample taken at `t` brought nothing to send (the minimum change, or only the yaw moved
    /// for a subscriber without the heading): a due point it reached is given up.
    mutating func passed(sampleAt t: Int64) {
        guard let served, t > (lastSent ?? .min) else { return }
        self.served = max(served, point(t))
    }

    /// The sample time this subscription next needs a sample at or after, given the newest
    /// sample so far (`latest`) and the monotonic time `now`: the next point; the next sample
    /// when a point is owed already; the next point after `now` when nothing is owed yet
    /// (before the first frame) or the client cannot take a frame (`drained` false: its socket
    /// drains first, and waking per sample would not help it).
    func need(latest: Int64?, now: Int64, drained: Bool = true) -> Int64 {
        guard let due = nextDue, drained else { return gridPoint(after: now) }
        if let latest, latest >= due { return latest == .max ? .max : latest + 1 }
        return due
    }
}
