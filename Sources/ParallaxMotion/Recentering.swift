// iOS-style re-centring: the reference attitude slowly follows the current pose (MOTION.md).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reference turns toward the current attitude at rate = base·(1 + growth·θ/π) rad/s, θ the
/// angle between the two screen normals, along the shortest rotation and never past it.
/// Held tilts re-centre fully / by half in: 10° 5.1 s / 2.4 s, 30° 12.7 s / 5.4 s, 45° 17 s / 6.8 s.
public enum Recentering {
    /// rad/s (≈1.7°/s): iOS's re-centring rate with the screen normals aligned.
    public static let baseRate = 0.03
    /// Dimensionless: the rate grows by this factor per π of normal angle (6°/s at 90°).
    public static let growth = 5.0

    /// The reference after `dt` seconds of re-centring toward `current`.
    @inline(__always)
    static func step(reference: Quaternion, toward current: Quaternion, dt: Double) -> Quaternion {
        guard dt > 0 else { return reference }
        // Screen normals (device Z) in the earth frame: third columns of the rotation matrices.
        let nr = normal(reference)
        let nc = normal(current)
        let theta = acos(clampUnit(nr.dot(nc)))
        let rate = baseRate * (1 + growth * theta / Double.pi)
        return reference.step(toward: current, maxAngle: rate * dt)
    }

    @inline(__always)
    static func normal(_ q: Quaternion) -> Vector3 {
        Vector3(
            2 * (q.x * q.z + q.w * q.y),
            2 * (q.y * q.z - q.w * q.x),
            1 - 2 * (q.x * q.x + q.y * q.y))
    }
}
