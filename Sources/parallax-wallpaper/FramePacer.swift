// When will the frame being drawn be on screen? The offset is predicted for that moment
// (ParallaxOffset.predicted(at:)). Where the compositor offers wp_presentation on
// CLOCK_MONOTONIC, each frame asks for feedback and the pacer keeps a smoothed latency from
// commit to presentation; without it the latency is taken as one 60 Hz refresh.

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

    private let presentation: OpaquePointer?
    private let clockIsMonotonic: Bool
    /// Smoothed commit-to-presentation time (ns).
    private(set) var latency = FramePacer.defaultLatency
    /// The refresh period the compositor reported (ns); nil when unknown or variable.
    private(set) var refreshPeriod: Int64?
    private(set) var presentedFrames = 0
    /// Commit times (CLOCK_MONOTONIC ns) of frames whose feedback is pending, by feedback object.
    private var pending: [(feedback: OpaquePointer, committedAt: Int64)] = []

    init(presentation: OpaquePointer?, clockIsMonotonic: Bool) {
        self.presentation = presentation
        self.clockIsMonotonic = clockIsMonotonic
    }

    deinit {
        for entry in pending { wp_presentation_feedback_destroy(entry.feedback) }
    }

    /// The moment the frame drawn now is expected on screen (CLOCK_MONOTONIC ns).
    func expectedPresentationTime() -> Int64 {
        plx_monotonic_ns() + latency
    }

    /// Call right before the frame's commit (eglSwapBuffers) to ask for its presentation time.
    func frameWillCommit(surface: OpaquePointer) {
        guard let presentation, clockIsMonotonic, let feedback = wp_presentation_feedback(presentation, surface) else { return }
        pending.append((feedback, plx_monotonic_ns()))
        wp_presentation_feedback_add_listener(feedback, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func presented(_ feedback: OpaquePointer?, at time: Int64, refresh: UInt32) {
        guard let index = pending.firstIndex(where: { $0.feedback == feedback }) else { return }
        let measured = time - pending[index].committedAt
        finish(index)
        presentedFrames += 1
        if refresh > 0 { refreshPeriod = Int64(refresh) }
        guard measured >= 0, measured <= Self.maximumLatency else { return }
        latency += Int64(Self.latencySmoothing * Double(measured - latency))
    }

    fileprivate func discarded(_ feedback: OpaquePointer?) {
        guard let index = pending.firstIndex(where: { $0.feedback == feedback }) else { return }
        finish(index)
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
                of(data)?.presented(feedback, at: seconds * 1_000_000_000 + Int64(nanoseconds), refresh: refresh)
            },
            discarded: { data, feedback in of(data)?.discarded(feedback) }))
        return listener
    }()
}
