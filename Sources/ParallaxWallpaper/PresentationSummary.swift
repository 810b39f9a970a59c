// What `parallax-wallpaper --stats` says on exit about motion to photon (docs/wallpaper.md
// "Motion to photon"): how many frames were drawn, presented, discarded and resolved, the
// presented rate, and p50/p95/p99 of the sample → presented latency and of the prediction error.
// The counts add up: drawn = presented + discarded + unanswered, presented = unsampled + resolved
// + unresolved.

import ParallaxProtocol

public struct PresentationSummary: Sendable, Equatable {
    /// Frames committed with a presentation-feedback request.
    public var drawn = 0
    /// Frames the compositor says it showed.
    public var presented = 0
    /// Frames the compositor says it never showed (replaced before a refresh, surface gone).
    public var discarded = 0
    /// Frames drawn whose feedback never came (still on its way at exit, or dropped after
    /// `PresentationStats.waitingLimit` newer ones).
    public var unanswered = 0
    /// Frames presented that showed the centre, with no daemon frame behind them (no daemon,
    /// reduce motion): no latency, no error.
    public var unsampled = 0
    /// Frames presented whose true offset never became known: no daemon frame at or after their
    /// presentation time (the device went still, the run ended) within the waiting limit.
    public var unresolved = 0
    /// Sample → presented latency of each resolved frame (ns), in the order resolved.
    public private(set) var latencies: [Int64] = []
    /// Prediction error of each resolved frame (offset units), against the true offset.
    public private(set) var errors: [Double] = []
    /// Error of each resolved frame against the nearest received frame alone (offset units).
    public private(set) var nearestErrors: [Double] = []
    /// The first and last presentation times (ns), for the presented rate.
    public private(set) var firstPresented: Int64?
    public private(set) var lastPresented: Int64?

    public init() {}

    /// Frames presented and resolved: each has a latency and an error.
    public var resolved: Int { latencies.count }

    mutating func presented(at time: Int64) {
        presented += 1
        firstPresented = min(firstPresented ?? time, time)
        lastPresented = max(lastPresented ?? time, time)
    }

    mutating func add(_ frame: PresentedFrame) {
        latencies.append(frame.latency)
        errors.append(frame.error)
        nearestErrors.append(frame.nearestError)
    }

    /// Adds another surface's summary (all outputs together, closed ones included).
    public mutating func merge(_ other: PresentationSummary) {
        drawn += other.drawn
        presented += other.presented
        discarded += other.discarded
        unanswered += other.unanswered
        unsampled += other.unsampled
        unresolved += other.unresolved
        latencies += other.latencies
        errors += other.errors
        nearestErrors += other.nearestErrors
        if let first = other.firstPresented { firstPresented = min(firstPresented ?? first, first) }
        if let last = other.lastPresented { lastPresented = max(lastPresented ?? last, last) }
    }

    /// Frames presented per second between the first and the last presentation; nil before two.
    public var presentedRate: Double? {
        guard presented >= 2, let first = firstPresented, let last = lastPresented, last > first else { return nil }
        return Double(presented - 1) / ((Double(last) - Double(first)) / 1e9)
    }

    /// The nearest-rank percentile `p` (0 < p ≤ 1) of `values`: the smallest value with at least
    /// p of them at or below it; nil when there are none.
    public static func percentile<Value: Comparable>(_ p: Double, of values: [Value]) -> Value? {
        guard !values.isEmpty, p.isFinite else { return nil }
        let sorted = values.sorted()
        let rank = Int((min(max(p, 0), 1) * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The percentiles reported: p50, p95, p99 and the largest.
    public static let reported: [(name: String, p: Double)] = [("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1)]

    /// The summary as lines for stderr; `source`: where the presentation times came from
    /// (wp_presentation, frame-callback); `refresh`: the compositor's refresh period (ns), if known.
    public func lines(source: String, refresh: Int64?) -> [String] {
        var lines = ["presentation: by=\(source) drawn=\(drawn) presented=\(presented) discarded=\(discarded) unanswered=\(unanswered)"
            + " unsampled=\(unsampled) resolved=\(resolved) unresolved=\(unresolved)"]
        var rate = "presented-rate: " + (presentedRate.map { FixedDecimal.text($0, decimals: 1) + "/s" } ?? "unknown")
        rate += " refresh=" + (refresh.map { FixedDecimal.text(Double($0) / 1e6, decimals: 3) + " ms" } ?? "unknown")
        lines.append(rate)
        guard resolved > 0 else {
            lines.append("sample-to-presented: no frame resolved (none presented with a daemon frame and a later one after it)")
            return lines
        }
        lines.append("sample-to-presented ms:" + Self.describe(latencies.map { Double($0) / 1e6 }, decimals: 3))
        lines.append("prediction-error:" + Self.describe(errors, decimals: 5))
        lines.append("nearest-sample-error:" + Self.describe(nearestErrors, decimals: 5))
        return lines
    }

    private static func describe(_ values: [Double], decimals: Int) -> String {
        reported.map { " \($0.name)=" + FixedDecimal.text(percentile($0.p, of: values) ?? 0, decimals: decimals) }.joined()
    }
}
