// iOS's directional lock: a mostly horizontal motion holds the vertical offset, and vice versa.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock of UIKit's motion effects (docs/motion.md "Background"), with real dt instead of iOS's 30 Hz frames.
///
/// A leaky sum L = |Δh| − |Δv| + leak·L of the offset's per-update changes measures which way the
/// device is moving; beyond ±0.3 the other axis is held with strength clamp((|L| − 0.3)/0.27, 0, 1):
/// that fraction of its changes is held back. What is held back drains away at `releaseRate`
/// (offset units per second) while that axis is not held, so the offset returns to the truth as
/// slowly as iOS re-centres (docs/motion.md, "Directional lock").
struct DirectionalLock: Sendable {
    /// iOS's leak per motion-effect frame.
    static let leakPerFrame = 0.975
    /// iOS's motion-effect update rate on phones (Hz): the frame the leak is counted in.
    static let frameRate = 30.0
    /// |L| beyond which an axis is held.
    static let threshold = 0.3
    /// |L| − threshold at which the hold is complete.
    static let strengthRange = 0.27
    /// Held offsets never exceed this (offset units): the whole [−1, 1] span.
    static let maximumHeld = 2.0

    /// The leaky balance L (offset units): > 0 mostly horizontal, < 0 mostly vertical.
    private(set) var balance = 0.0
    /// Offset held back on each axis (subtracted from the raw offset).
    private(set) var held = ViewerOffset.zero
    /// Fraction (0…1) of each axis's motion the lock held back at the latest update: the share of
    /// that axis's velocity the published offset does not follow.
    private(set) var holding = ViewerOffset.zero
    /// Leak factor for `leakInterval`, cached: intervals repeat at a steady sample rate.
    private var leakInterval = 0.0
    private var leakFactor = 1.0

    /// The locked offset for the raw offset `raw` that was `previous` one update (`dt` s) ago.
    /// `releaseRate`: offset units per second at which a no-longer-held axis catches up.
    @inline(__always)
    mutating func apply(raw: ViewerOffset, previous: ViewerOffset, dt: Double, releaseRate: Double) -> ViewerOffset {
        let dh = raw.x - previous.x
        let dv = raw.y - previous.y
        if dt != leakInterval {
            // leak^(frames) with frames = dt·30: the same decay per second at any sample rate.
            leakFactor = dt > 0 ? exp(log(Self.leakPerFrame) * Self.frameRate * dt) : 1
            leakInterval = dt
        }
        balance = balance * leakFactor + abs(dh) - abs(dv)
        let strength = min(max((abs(balance) - Self.threshold) / Self.strengthRange, 0), 1)
        let release = releaseRate * max(dt, 0)
        var hx = held.x
        var hy = held.y
        if balance > Self.threshold { hy += strength * dv } else { hy = Self.drained(hy, by: release) }
        if balance < -Self.threshold { hx += strength * dh } else { hx = Self.drained(hx, by: release) }
        holding = ViewerOffset(x: balance < -Self.threshold ? strength : 0, y: balance > Self.threshold ? strength : 0)
        held = ViewerOffset(
            x: min(max(hx, -Self.maximumHeld), Self.maximumHeld),
            y: min(max(hy, -Self.maximumHeld), Self.maximumHeld))
        return ViewerOffset(x: clampUnit(raw.x - held.x), y: clampUnit(raw.y - held.y))
    }

    /// `v` moved toward 0 by `amount` without crossing it.
    @inline(__always)
    static func drained(_ v: Double, by amount: Double) -> Double {
        v > 0 ? max(v - amount, 0) : min(v + amount, 0)
    }

    mutating func reset() {
        self = DirectionalLock()
    }
}
