// One offset frame as a value: where the viewer offset was at `t`, how fast it moved, and the
// prediction a renderer uses to draw it at the moment its frame will be shown (docs/protocol.md,
// "offset"). With a heading subscription it also carries the yaw and its rate.

import ParallaxProtocol

/// A viewer offset frame. x > 0 when the screen turns toward the viewer's right, y > 0 when it
/// tips downward (UIKit's convention), each in [−1, 1], already in the subscribed output's axes.
public struct ParallaxOffset: Sendable, Hashable {
    /// Horizontal viewer offset in [−1, 1].
    public var x: Double
    /// Vertical viewer offset in [−1, 1].
    public var y: Double
    /// Rate of change of `x` at `t` (offset units per second).
    public var vx: Double
    /// Rate of change of `y` at `t` (offset units per second).
    public var vy: Double
    /// CLOCK_MONOTONIC time of the newest sensor sample behind the frame (ns).
    public var t: Int64
    /// The daemon's frame counter; a gap means frames were skipped for this client.
    public var seq: UInt64
    /// Heading (radians, (−π, π]): the screen's turn about the world's vertical since the
    /// reference pose, > 0 toward the viewer's right (docs/frames.md "Heading"). Not rotated with
    /// the output. nil unless the subscriber asked for it (`heading: true`) and the daemon has a
    /// gyroscope.
    public var yaw: Double?
    /// Rate of change of `yaw` at `t` (radians per second); nil whenever `yaw` is.
    public var vyaw: Double?

    public init(x: Double, y: Double, vx: Double = 0, vy: Double = 0, t: Int64 = 0, seq: UInt64 = 0,
                yaw: Double? = nil, vyaw: Double? = nil) {
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self.t = t
        self.seq = seq
        self.yaw = yaw
        self.vyaw = yaw == nil ? nil : (vyaw ?? 0)
    }

    /// The centre: what to draw without a daemon, or in reduce motion.
    public static let zero = ParallaxOffset(x: 0, y: 0)

    private static let nanosecondsPerSecond = 1e9

    /// The offset predicted for `time` (CLOCK_MONOTONIC ns, e.g. when the next frame is shown):
    /// x + vx·(time − t)/10⁹ and the same for y, each clamped to [−1, 1]; yaw + vyaw·(time − t)/10⁹
    /// wrapped to (−π, π] (a heading turns round, it does not saturate). Velocities, `t` and `seq`
    /// are kept. A non-finite offset counts as 0 and a non-finite velocity as 0, so the result is
    /// always finite. Works backwards too (time < t).
    public func predicted(at time: Int64) -> ParallaxOffset {
        // Subtracting in Double: two Int64 times far apart must not trap on overflow.
        let elapsed = (Double(time) - Double(t)) / Self.nanosecondsPerSecond
        var result = self
        result.x = Self.unit(Self.finite(x) + Self.finite(vx) * elapsed)
        result.y = Self.unit(Self.finite(y) + Self.finite(vy) * elapsed)
        if let yaw {
            result.yaw = OffsetHeading.wrapped(Self.finite(yaw) + Self.finite(vyaw ?? 0) * elapsed)
        }
        return result
    }

    /// x and y clamped to [−1, 1], yaw wrapped to (−π, π], NaN and infinities as 0: the offset
    /// every motion effect sees.
    public var clamped: ParallaxOffset {
        var result = self
        result.x = Self.unit(Self.finite(x))
        result.y = Self.unit(Self.finite(y))
        if let yaw { result.yaw = OffsetHeading.wrapped(yaw) }
        return result
    }

    @inline(__always)
    static func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }

    /// Clamps to [−1, 1] (an overflow to ±infinity lands on ±1); NaN becomes 0.
    @inline(__always)
    static func unit(_ v: Double) -> Double {
        guard !v.isNaN else { return 0 }
        return min(max(v, -1), 1)
    }
}
