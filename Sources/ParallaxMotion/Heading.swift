// The heading (yaw): how far the screen has turned about the world's vertical since the reference
// pose (docs/frames.md "Heading"). From the fused attitude alone: the accelerometer's correction
// is a rotation about a horizontal axis, so yaw is the gyroscope's, bias-corrected, and needs no
// magnetometer.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Yaw (rad, (−π, π]) and its rate (rad/s). yaw > 0 when the screen turned toward the viewer's
/// right about the world's vertical (a right-hand turn about earth +Z: for an upright screen the
/// same turn as x > 0); 0 at the reference pose.
public struct Heading: Equatable, Sendable {
    public var yaw: Double
    public var rate: Double

    public init(yaw: Double, rate: Double) {
        self.yaw = yaw
        self.rate = rate
    }

    public static let zero = Heading(yaw: 0, rate: 0)

    /// Smallest change of yaw (rad) since the last frame that emits a frame of its own when
    /// heading frames are wanted: 0.1°, three pixels of a 60° view 1920 pixels wide. Why not
    /// `minimumChange` × saturation angle (1.35°): a panorama would move in 43-pixel steps.
    public static let minimumChange = 0.1 * Double.pi / 180

    /// Below this, e_w² + e_z² of the relative rotation (the cosine² of half the swing) leaves
    /// the twist undefined: the screen is turned over about a horizontal axis, and any yaw is as
    /// good as another. The rate then falls back to the earth-vertical rotation rate.
    static let degenerateTwist = 1e-9

    /// The heading of attitude `current` against `reference` (both device→earth, earth Z up),
    /// the device turning at `rate` (rad/s, device frame, bias-corrected; nil: no gyroscope).
    ///
    /// With E = A·R⁻¹ (the rotation from the reference pose to now, in the earth frame) split into
    /// a turn about earth Z and a swing about a horizontal axis (either order gives the same
    /// turn), yaw = 2·atan2(e_z, e_w). With dE/dt = ½·ω_e⊗E (ω_e = A·ω the rate in the earth
    /// frame), dyaw/dt = (e_w·(ω_e,z·e_w + (ω_e × e_v)_z) + e_z·(ω_e·e_v)) / (e_w² + e_z²). Like vx
    /// and vy, the rate leaves out the reference's re-centring and is 0 below `OffsetVelocity.stillRate`.
    @inline(__always)
    static func of(reference: Quaternion, current: Quaternion, rate: Vector3?) -> Heading {
        var e = current * reference.conjugate
        if e.w < 0 { e = Quaternion(w: -e.w, x: -e.x, y: -e.y, z: -e.z) }
        let twist = e.w * e.w + e.z * e.z
        let yaw = twist > degenerateTwist ? wrapped(2 * atan2(e.z, e.w)) : 0
        guard let rate, rate.lengthSquared >= OffsetVelocity.stillRate * OffsetVelocity.stillRate else {
            return Heading(yaw: yaw, rate: 0)
        }
        let w = current.rotate(rate)
        let v = e.vector
        var dyaw = w.z
        if twist > degenerateTwist {
            dyaw = (e.w * (w.z * e.w + w.cross(v).z) + e.z * w.dot(v)) / twist
        }
        return Heading(yaw: yaw, rate: dyaw.isFinite ? dyaw : 0)
    }

    /// `angle` (rad) wrapped into (−π, π]; a non-finite angle is 0.
    @inline(__always)
    static func wrapped(_ angle: Double) -> Double {
        guard angle.isFinite else { return 0 }
        if angle > -Double.pi && angle <= Double.pi { return angle }
        var a = remainder(angle, 2 * Double.pi)
        if a <= -Double.pi { a += 2 * Double.pi }
        return a
    }
}
