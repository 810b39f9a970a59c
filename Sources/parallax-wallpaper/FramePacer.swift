// When will the frame being drawn be on screen? The offset is predicted for that moment
// (ParallaxOffset.predicted(at:)), now plus a smoothed latency from commit to presentation. Where
// the compositor offers wp_presentation on CLOCK_MONOTONIC, each frame asks for feedback and the
// latency is measured with it. A compositor that binds wp_presentation but never answers
// (headless wlroots 0.15) is asked no more after `unansweredLimit` requests. Until feedback has
// answered, and where it never does, the frame callback's time (when the compositor composited
// the frame, to the millisecond) measures it; before any measurement it is one 60 Hz refresh. Each commit gets a
// number, and `presentedFrame`/`discardedFrame`/`compositedFrame` say what became of it (--stats:
// docs/wallpaper.md "Motion to photon").

import CLinux
import CWayland
import CWaylandProtocols

final class FramePacer {
    /// Assumed commit-to-screen latency (ns) until the compositor has told us: one 60 Hz refresh.
    static let defaultLatency: Int64 = 16_666_667
    /// Latencies above this (ns) are a stall or a hidden output, not a display pipeline: ignored.
    static let maximumLatency: Int64 = 100_000_000
    /// Weight of a new measurement in the smoothed latency (exponential moving average).
    static let latencySmoothing = 0.2
    /// Feedback requests left unanswered, with none ever answered, before the compositor is
    /// taken not to send any (two seconds at 60 Hz; a working one answers within a refresh or two).
    static let unansweredLimit = 120
    /// Feedback requests kept waiting at most; older ones are dropped (their proxies destroyed).
    static let pendingLimit = 16

    private let presentation: OpaquePointer?
    /// The presentation clock (a clockid_t) when it is one we can map onto CLOCK_MONOTONIC.
    private let clock: PresentationClock?
    /// Smoothed commit-to-presentation time (ns).
    private(set) var latency = FramePacer.defaultLatency
    /// The refresh period the compositor reported (ns); nil when unknown or variable.
    private(set) var refreshPeriod: Int64?
    private(set) var presentedFrames = 0
    /// Frames committed so far; the frame being drawn is number `committedFrames`.
    private(set) var committedFrames = 0
    /// Commit times (CLOCK_MONOTONIC ns) and numbers of frames whose feedback is pending, by
    /// feedback object.
    private var pending: [(feedback: OpaquePointer, committedAt: Int64, frame: Int)] = []
    /// Frame number and presentation time (CLOCK_MONOTONIC ns) of each frame shown.
    var presentedFrame: ((_ frame: Int, _ at: Int64) -> Void)?
    /// Frame number of each frame the compositor never showed.
    var discardedFrame: ((_ frame: Int) -> Void)?
    /// Frame number and composition time (CLOCK_MONOTONIC ns, from the frame callback) of each
    /// frame whose frame callback came with a plausible time.
    var compositedFrame: ((_ frame: Int, _ at: Int64) -> Void)?
    /// Frame callbacks whose time was before the commit: not CLOCK_MONOTONIC milliseconds.
    private(set) var implausibleCallbacks = 0
    /// The frame whose frame callback is on its way, and its commit time (ns).
    private var callbackFrame: (frame: Int, committedAt: Int64)?
    /// Frames presented or discarded: the compositor answers feedback requests.
    private var answered = 0
    /// The compositor was asked `unansweredLimit` times and never answered: asked no more.
    private(set) var feedbackNeverCame = false

    /// `clock`: the clockid_t wp_presentation announced (nil: none came).
    init(presentation: OpaquePointer?, clock: UInt32?) {
        self.presentation = presentation
        self.clock = clock.flatMap { PresentationClock(clockID: $0) }
    }

    deinit {
        for entry in pending { wp_presentation_feedback_destroy(entry.feedback) }
    }

    /// The moment the frame drawn now is expected on screen (CLOCK_MONOTONIC ns).
    func expectedPresentationTime() -> Int64 {
        plx_monotonic_ns() + latency
    }

    /// Why frames get no presentation time; nil when they do.
    var feedbackUnavailable: String? {
        if presentation == nil { return "the compositor offers no wp_presentation" }
        if clock == nil { return "the compositor's presentation clock is neither CLOCK_MONOTONIC nor CLOCK_MONOTONIC_RAW" }
        if feedbackNeverCame { return "the compositor answered none of \(Self.unansweredLimit) wp_presentation feedback requests" }
        return nil
    }

    /// Call right before the frame's commit (eglSwapBuffers) to ask for its presentation time.
    /// The frame also asked for a frame callback (`frameCallbackDone` follows).
    func frameWillCommit(surface: OpaquePointer) {
        committedFrames += 1
        let now = plx_monotonic_ns()
        callbackFrame = (committedFrames, now)
        if answered == 0 && pending.count >= Self.unansweredLimit {
            feedbackNeverCame = true
            while !pending.isEmpty { finish(0) }
        }
        guard let presentation, clock != nil, !feedbackNeverCame,
              let feedback = wp_presentation_feedback(presentation, surface) else { return }
        // Once it has answered, a request still waiting behind `pendingLimit` newer ones is lost.
        if answered > 0 && pending.count >= Self.pendingLimit { finish(0) }
        pending.append((feedback, now, committedFrames))
        wp_presentation_feedback_add_listener(feedback, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The frame callback of the last frame came: the compositor composited it at `milliseconds`
    /// (the protocol leaves the base open; wlroots uses CLOCK_MONOTONIC, weston its presentation
    /// clock). The full time is rebuilt from now (the value wraps every 49.7 days) and taken at the
    /// middle of its millisecond; one before the commit is not on our clock and is not reported.
    func frameCallbackDone(milliseconds: UInt32) {
        guard let (frame, committedAt) = callbackFrame else { return }
        callbackFrame = nil
        let now = plx_monotonic_ns()
        let nowMilliseconds = now / 1_000_000
        let ago = Int64(UInt32(truncatingIfNeeded: nowMilliseconds) &- milliseconds)
        // The middle of the millisecond, but never later than now (it may be the current one).
        let at = min((nowMilliseconds - ago) * 1_000_000 + 500_000, now)
        // The millisecond may hold a moment after the commit: [ms, ms + 1) against the commit time.
        guard at + 500_000 > committedAt else {
            implausibleCallbacks += 1
            return
        }
        compositedFrame?(frame, at)
        // Until presentation feedback answers (and where it never will), the frame callbacks are
        // the best measure of the latency.
        if answered == 0 { measured(at - committedAt) }
    }

    fileprivate func presented(_ feedback: OpaquePointer?, seconds: Int64, nanoseconds: UInt32, refresh: UInt32) {
        guard let index = pending.firstIndex(where: { $0.feedback == feedback }) else { return }
        let frame = pending[index].frame
        // A time past Int64's nanoseconds (year 2262) is not a real one: as if discarded.
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, scaled <= Int64.max - Int64(nanoseconds) else {
            finish(index)
            discardedFrame?(frame)
            return
        }
        let time = clock?.monotonic(scaled + Int64(nanoseconds)) ?? scaled + Int64(nanoseconds)
        let (measured, wrapped) = time.subtractingReportingOverflow(pending[index].committedAt)
        finish(index)
        answered += 1
        presentedFrames += 1
        presentedFrame?(frame, time)
        if refresh > 0 { refreshPeriod = Int64(refresh) }
        guard !wrapped else { return }
        self.measured(measured)
    }

    /// A commit-to-presentation time (ns) into the smoothed latency, unless it is a stall.
    private func measured(_ commitToPresentation: Int64) {
        guard commitToPresentation >= 0, commitToPresentation <= Self.maximumLatency else { return }
        latency += Int64(Self.latencySmoothing * Double(commitToPresentation - latency))
    }

    fileprivate func discarded(_ feedback: OpaquePointer?) {
        guard let index = pending.firstIndex(where: { $0.feedback == feedback }) else { return }
        let frame = pending[index].frame
        finish(index)
        answered += 1
        discardedFrame?(frame)
    }

    private func finish(_ index: Int) {
        wp_presentation_feedback_destroy(pending[index].feedback)
        pending.remove(at: index)
    }

    private static func of(_ data: UnsafeMutableRawPointer?) -> FramePacer? {
        data.map { Unmanaged<FramePacer>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wp_presentation_feedback_listener> = {
        let listener = UnsafeMutablePointer<wp_presentation_feedback_listener>.allocate(capacity: 1)
        listener.initialize(to: wp_presentation_feedback_listener(
            sync_output: { _, _, _ in },
            presented: { data, feedback, secondsHigh, secondsLow, nanoseconds, refresh, _, _, _ in
                let seconds = Int64(secondsHigh) << 32 | Int64(secondsLow)
                of(data)?.presented(feedback, seconds: seconds, nanoseconds: nanoseconds, refresh: refresh)
            },
            discarded: { data, feedback in of(data)?.discarded(feedback) }))
        return listener
    }()
}
