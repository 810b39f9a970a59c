// How fast the viewer offset is moving, so a client can draw where it will be when its frame is
// shown (docs/protocol.md, "Offset frames": x + vx·(t′ − t)/10⁹).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Rate of change of the viewer offset, each axis in offset units per second, in the same axes
/// and with the same signs as `ViewerOffset`.
public struct OffsetVelocity: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = OffsetVelocity(x: 0, y: 0)

    /// The same velocity in the axes of an output rotated clockwise by `r` (a velocity turns with
    /// the output exactly as the offset does: `ViewerOffset.rotated(by:)`).
    public func rotated(by r: DisplayRotation) -> OffsetVelocity {
        let o = ViewerOffset(x: x, y: y).rotated(by: r)
        return OffsetVelocity(x: o.x, y: o.y)
    }

    /// Rotation rates under this (rad/s, bias-corrected) count as a device at rest: the velocity
    /// is 0. Why: a still gyroscope reads a few mrad/s of noise, and a client predicting from it
    /// would make a resting picture creep. 0.02 rad/s (1.1°/s) at the default 90° saturation is
    /// 0.013 offset units per second, 0.0002 over a 60 Hz frame: nothing a layer can show.
    public static let stillRate = 0.02

    /// Smallest cos of the tilt used for the asin derivative (dimensionless). Why: at ±90° the
    /// derivative of asin is infinite; there the offset is saturated anyway (default angle).
    static let minimumCosine = 1e-3

    /// Attitude mode: the velocity of `OffsetMapping.offset(reference:current:…)` while the device
    /// turns at `rate` (rad/s, device frame). With Δ = R⁻¹·A and dΔ/dt = Δ·[ω]×, the z components
    /// of the device axes in the reference frame change as d(dX.z)/dt = r32·ωz − r33·ωy and
    /// d(dY.z)/dt = r33·ωx − r31·ωz (r3· the third row of Δ); x = −asin(dX.z)·k and
    /// y = asin(dY.z)·k with k = sensitivity / saturation angle. The slow turn of the reference
    /// (re-centring, ≤ 6°/s) is left out: it is not the device moving.
    /// An axis pinned at ±1 that is pushed further out does not move: its velocity is 0.
    @inline(__always)
    static func attitude(
        reference: Quaternion, current: Quaternion, rate: Vector3, offset: ViewerOffset,
        saturationAngle: Double, sensitivity: Double
    ) -> OffsetVelocity {
        guard rate.x * rate.x + rate.y * rate.y + rate.z * rate.z >= stillRate * stillRate else { return .zero }
        let q = reference.conjugate * current
        let r31 = 2 * (q.x * q.z - q.w * q.y)
        let r32 = 2 * (q.y * q.z + q.w * q.x)
        let r33 = 1 - 2 * (q.x * q.x + q.y * q.y)
        let k = sensitivity / saturationAngle
        let dxz = r32 * rate.z - r33 * rate.y
        let dyz = r33 * rate.x - r31 * rate.z
        let vx = -dxz / max((1 - min(r31 * r31, 1)).squareRoot(), minimumCosine) * k
        let vy = dyz / max((1 - min(r32 * r32, 1)).squareRoot(), minimumCosine) * k
        return OffsetVelocity(x: pinned(vx, at: offset.x), y: pinned(vy, at: offset.y))
    }

    /// Rate mode: what `RateIntegrator` does per second — the thresholded rate times the gain,
    /// minus the return toward 0.
    @inline(__always)
    static func rate(gyro: Vector3, offset: ViewerOffset, threshold: Double, gain: Double, returnRate: Double) -> OffsetVelocity {
        let wx = abs(gyro.y) < threshold ? 0 : gyro.y
        let wy = abs(gyro.x) < threshold ? 0 : gyro.x
        let vx = wx * gain - returnRate * offset.x
        let vy = wy * gain - returnRate * offset.y
        return OffsetVelocity(x: pinned(vx, at: offset.x), y: pinned(vy, at: offset.y))
    }

    /// 0 when the offset sits at a limit and `v` pushes past it; NaN becomes 0.
    @inline(__always)
    static func pinned(_ v: Double, at offset: Double) -> Double {
        guard v.isFinite else { return 0 }
        if offset >= 1 && v > 0 || offset <= -1 && v < 0 { return 0 }
        return v
    }
}
