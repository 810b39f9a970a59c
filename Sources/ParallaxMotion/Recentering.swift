// iOS-style re-centring: the reference attitude slowly follows the current pose (docs/motion.md "Background").
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reference turns toward the current attitude at rate = base·(1 + growth·θ/π) rad/s, θ the
/// angle between the two screen normals, along the shortest rotation and never past it.
/// Held tilts re-centre fully / by half in: 10° 5.1 s / 2.4 s, 30° 12.7 s / 5.4 s, 45° 17 s / 6.8 s.
/// When idle with the normals more than 135° apart (the device was flipped), the reference jumps
/// by 2(θ − 90°) toward the current pose, to the mirror angle 180° − θ.
public enum Recentering {
    /// rad/s (≈1.7°/s): iOS's re-centring rate with the screen normals aligned.
    public static let baseRate = 0.03
    /// Dimensionless: the rate grows by this factor per π of normal angle (6°/s at 90°).
    public static let growth = 5.0
    /// rad; iOS's flip rule applies beyond 135° between the normals.
    public static let flipAngle = 135 * Double.pi / 180

    /// The reference after `dt` seconds of re-centring toward `current`.
    @inline(__always)
    static func step(reference: Quaternion, toward current: Quaternion, dt: Double) -> Quaternion {
        guard dt > 0 else { return reference }
        // Screen normals (device Z) in the earth frame: third columns of the rotation matrices.
        let nr = normal(reference)
        let nc = normal(current)
        let theta = approximateArcCosine(nr.dot(nc))
        let rate = baseRate * (1 + growth * theta / Double.pi)
        return reference.step(toward: current, maxAngle: rate * dt)
    }

    /// acos(c) within 6.8e-5 rad (Abramowitz & Stegun 4.4.45: √(1 − x)·(a₀ + a₁x + a₂x² + a₃x³)
    /// for x ≥ 0, and π minus it for −x). Only the re-centring *rate* depends on θ, where 6.8e-5 rad
    /// is 3e-6 rad/s; the exact acos cost a tenth of the engine's time per sample.
    @inline(__always)
    static func approximateArcCosine(_ c: Double) -> Double {
        let x = abs(clampUnit(c))
        let a0 = 1.5707288, a1 = -0.2121144, a2 = 0.0742610, a3 = -0.0187293
        let r = (1 - x).squareRoot() * (a0 + x * (a1 + x * (a2 + x * a3)))
        return c >= 0 ? r : Double.pi - r
    }

    /// cos(flipAngle), for the per-sample test.
    static let flipCosine = cos(flipAngle)

    /// The flipped reference if the normals are more than `flipAngle` apart, else nil. The jump
    /// turns the reference's normal about the earth-frame axis n_ref × n_current.
    static func flipped(reference: Quaternion, toward current: Quaternion) -> Quaternion? {
        let nr = normal(reference)
        let nc = normal(current)
        let c = nr.dot(nc)
        guard c < flipCosine else { return nil }
        let theta = acos(clampUnit(c))
        // Why: fully upside down the normals give no axis; the reference's own X axis (earth
        // frame) is perpendicular to its normal and turns it over the way a hand would.
        let axis = nr.cross(nc).normalized() ?? reference.rotate(.unitX)
        let jump = 2 * (theta - Double.pi / 2)
        return (Quaternion(axis: axis, angle: jump) * reference).normalized()
    }

    @inline(__always)
    static func normal(_ q: Quaternion) -> Vector3 {
        Vector3(
            2 * (q.x * q.z + q.w * q.y),
            2 * (q.y * q.z - q.w * q.x),
            1 - 2 * (q.x * q.x + q.y * q.y))
    }
}
