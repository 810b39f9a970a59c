// iOS's idle detection: the raw offset has hardly moved from frame to frame for a while.

/// Idle = the raw offset moved less than `movement` per iOS motion-effect frame (1/30 s) for
/// `period` seconds (docs/motion.md "Background"). Counted in 30 Hz frames of real time whatever the sample rate,
/// so slow re-centring (≈0.001 per frame) is idle and any deliberate motion is not. Used by the
/// flip rule; exposed for clients of the engine (a hub may slow down when idle).
struct IdleDetector: Sendable {
    /// Offset units per frame; iOS's idle movement limit.
    static let movement = 0.01
    /// s; iOS's idle time.
    static let period = 0.52
    /// s; one iOS motion-effect frame (30 Hz on phones).
    static let frameInterval = 1.0 / 30

    /// The offset at the start of the current frame.
    private var anchor: ViewerOffset?
    /// Time (s) into the current frame.
    private var frameTime = 0.0
    /// How long (s) the offset has moved less than `movement` per frame.
    private(set) var stillFor = 0.0

    var isIdle: Bool { stillFor >= Self.period }

    @inline(__always)
    mutating func update(_ raw: ViewerOffset, dt: Double) {
        guard let a = anchor else {
            anchor = raw
            return
        }
        // Why: a movement past the limit ends idleness at once, without waiting for the frame end.
        if abs(raw.x - a.x) >= Self.movement || abs(raw.y - a.y) >= Self.movement {
            anchor = raw
            frameTime = 0
            stillFor = 0
            return
        }
        frameTime += max(dt, 0)
        if frameTime >= Self.frameInterval {
            stillFor += frameTime
            frameTime = 0
            anchor = raw
        }
    }

    mutating func reset() {
        self = IdleDetector()
    }
}
