// Motion to photon, per frame (`parallax-wallpaper --stats`, docs/wallpaper.md "Motion to
// photon"): which daemon frame a drawn frame showed, when wp_presentation says it reached the
// screen, and how far the offset it drew was from where the device really was at that moment.
// "Really was" is only known later, from the frames that arrive after the presentation time, so
// the stats keep a short history of received frames and resolve each presented frame once a frame
// with t ≥ its presentation time has arrived. A pure value: the executable feeds it frames drawn,
// presentation events and received daemon frames; it hands back the frames it could resolve.

import ParallaxClient

/// A frame drawn and presented, resolved against the daemon frames around its presentation time.
public struct PresentedFrame: Sendable, Equatable {
    /// The surface's frame number (the frame pacer's count of commits).
    public var frame: Int
    /// `t` of the daemon frame behind the offset drawn (CLOCK_MONOTONIC ns).
    public var sampleTime: Int64
    /// When the frame was drawn (ns): the sample waited until then for its frame, the rest of
    /// the latency is the compositor's.
    public var drawnAt: Int64
    /// When the frame was expected on screen, the moment its offset was predicted for (ns).
    public var expectedAt: Int64
    /// When wp_presentation says it was shown (ns).
    public var presentedAt: Int64
    /// Offset units between the offset drawn and the true offset at `presentedAt`: the straight
    /// line between the two received frames around it (one of them when it falls on it).
    public var error: Double
    /// Offset units between the offset drawn and the received frame nearest to `presentedAt`
    /// (includes how far that frame is from the moment: |v|·`nearestGap`).
    public var nearestError: Double
    /// |`presentedAt` − the nearest received frame's t| (ns).
    public var nearestGap: Int64

    /// Sample to photon: from the sample behind the offset drawn to the frame on screen (ns).
    public var latency: Int64 { PresentationStats.difference(presentedAt, sampleTime) }
}

public struct PresentationStats: Sendable {
    /// Received frames kept (at 240 Hz, two seconds): presentation times older than the oldest
    /// are resolved against it alone. Bounds the memory whatever the rate.
    public static let historyLimit = 480
    /// Frames drawn whose feedback has not come yet, and frames presented whose later daemon
    /// frame has not come yet (a still device sends none): beyond this the oldest are dropped
    /// and counted as unanswered or unresolved.
    public static let waitingLimit = 240

    /// A frame drawn, waiting for its presentation feedback.
    private struct Drawn: Sendable {
        var frame: Int
        var sample: (t: Int64, x: Double, y: Double)?
        var x: Double
        var y: Double
        var drawnAt: Int64
        var expectedAt: Int64
    }

    private var history: [(t: Int64, x: Double, y: Double)] = []
    private var drawn: [Drawn] = []
    private var presented: [(frame: Drawn, at: Int64)] = []
    /// Everything resolved and counted so far.
    public private(set) var summary = PresentationSummary()

    public init() {}

    /// The summary as it stands if nothing more comes: frames still waiting for their feedback
    /// count as unanswered, frames still waiting for a later daemon frame as unresolved.
    public var finalSummary: PresentationSummary {
        var result = summary
        result.unanswered += drawn.count
        result.unresolved += presented.count
        return result
    }

    /// A frame drawn at `drawnAt` was committed showing (`x`, `y`), predicted for `expectedAt` from
    /// `sample` (nil: the centre, no daemon frame behind it).
    public mutating func drew(frame: Int, sample: ParallaxOffset?, x: Double, y: Double, drawnAt: Int64, expectedAt: Int64) {
        summary.drawn += 1
        if drawn.count >= Self.waitingLimit {
            drawn.removeFirst()
            summary.unanswered += 1
        }
        // What is drawn is finite (ParallaxOffset.predicted); a NaN here would poison every percentile.
        drawn.append(Drawn(frame: frame, sample: sample.map { ($0.t, $0.x, $0.y) },
                           x: x.isFinite ? x : 0, y: y.isFinite ? y : 0, drawnAt: drawnAt, expectedAt: expectedAt))
        if let sample { _ = received(sample) }
    }

    /// The compositor showed `frame` at `time` (ns); returns the frames this resolved.
    public mutating func presented(frame: Int, at time: Int64) -> [PresentedFrame] {
        guard let index = drawn.firstIndex(where: { $0.frame == frame }) else { return [] }
        let entry = drawn.remove(at: index)
        summary.presented(at: time)
        guard entry.sample != nil else {
            summary.unsampled += 1
            return []
        }
        if presented.count >= Self.waitingLimit {
            presented.removeFirst()
            summary.unresolved += 1
        }
        presented.append((entry, time))
        return resolve()
    }

    /// The compositor never showed `frame` (a newer commit replaced it, or the surface went).
    public mutating func discarded(frame: Int) {
        guard let index = drawn.firstIndex(where: { $0.frame == frame }) else { return }
        drawn.remove(at: index)
        summary.discarded += 1
    }

    /// A daemon frame arrived (the same one again, or an older one, is ignored); returns the
    /// presented frames it resolved, oldest first.
    public mutating func received(_ offset: ParallaxOffset) -> [PresentedFrame] {
        guard offset.x.isFinite, offset.y.isFinite, history.last.map({ offset.t > $0.t }) ?? true else { return [] }
        history.append((offset.t, offset.x, offset.y))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        return resolve()
    }

    /// Resolves every presented frame whose presentation time the history now reaches.
    private mutating func resolve() -> [PresentedFrame] {
        guard let newest = history.last?.t else { return [] }
        var resolved: [PresentedFrame] = []
        presented.removeAll { entry in
            guard entry.at <= newest, let sample = entry.frame.sample,
                  let result = Self.match(entry.frame, sample: sample, at: entry.at, in: history) else { return false }
            resolved.append(result)
            return true
        }
        for frame in resolved { summary.add(frame) }
        return resolved
    }

    /// The drawn frame against the history around `time` (which reaches it: its last t ≥ time).
    private static func match(_ frame: Drawn, sample: (t: Int64, x: Double, y: Double), at time: Int64,
                              in history: [(t: Int64, x: Double, y: Double)]) -> PresentedFrame? {
        guard let after = history.firstIndex(where: { $0.t >= time }) else { return nil }
        let later = history[after]
        var truth = (x: later.x, y: later.y)
        var nearest = later
        if after > 0 {
            let earlier = history[after - 1]
            // In Double: times off the wire may be far apart enough to overflow Int64.
            let weight = (Double(time) - Double(earlier.t)) / (Double(later.t) - Double(earlier.t))
            truth = (earlier.x + (later.x - earlier.x) * weight, earlier.y + (later.y - earlier.y) * weight)
            if difference(time, earlier.t) < difference(later.t, time) { nearest = earlier }
        }
        return PresentedFrame(
            frame: frame.frame, sampleTime: sample.t, drawnAt: frame.drawnAt, expectedAt: frame.expectedAt, presentedAt: time,
            error: distance(frame.x - truth.x, frame.y - truth.y),
            nearestError: distance(frame.x - nearest.x, frame.y - nearest.y),
            nearestGap: Int64(clamping: difference(time, nearest.t).magnitude))
    }

    /// a − b, saturated at the ends of Int64 (times come from the daemon and the compositor).
    static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (result, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return result }
        return a > b ? .max : .min
    }

    private static func distance(_ dx: Double, _ dy: Double) -> Double {
        (dx * dx + dy * dy).squareRoot()
    }
}
