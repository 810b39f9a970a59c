// The heading an offset frame carries for subscribers that asked for it (`"heading":true`,
// docs/protocol.md "offset"): the screen's turn about the world's vertical since the reference
// pose, and how fast it turns.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Yaw and its rate, as on the wire: `yaw` in radians within (−π, π], > 0 when the screen turned
/// toward the viewer's right about the world's vertical (docs/frames.md "Heading"), `vyaw` in
/// radians per second.
public struct OffsetHeading: Sendable, Hashable {
    public var yaw: Double
    public var vyaw: Double

    public init(yaw: Double, vyaw: Double) {
        self.yaw = yaw
        self.vyaw = vyaw
    }

    /// Yaw 0, not turning: the reference pose, and reduce motion.
    public static let zero = OffsetHeading(yaw: 0, vyaw: 0)

    /// `angle` (rad) wrapped into (−π, π]; a non-finite angle is 0.
    public static func wrapped(_ angle: Double) -> Double {
        guard angle.isFinite else { return 0 }
        if angle > -Double.pi && angle <= Double.pi { return angle }
        var a = remainder(angle, 2 * Double.pi)  // in [−π, π]
        if a <= -Double.pi { a += 2 * Double.pi }
        return a
    }
}
