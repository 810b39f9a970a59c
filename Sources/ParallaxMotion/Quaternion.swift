// Unit quaternion for attitudes and rotations (Hamilton convention, w first).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A quaternion w + xi + yj + zk. Attitudes are unit quaternions; `q.rotate(v)` applies the
/// rotation q·v·q*, so an attitude A maps device-frame vectors to the earth frame.
public struct Quaternion: Equatable, Sendable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Rotation by `angle` (rad, right-hand) about `axis` (any length); identity when the axis has
    /// no direction or the angle is not finite.
    public init(axis: Vector3, angle: Double) {
        guard let a = axis.normalized(), angle.isFinite else {
            self = .identity
            return
        }
        let half = angle * 0.5
        let s = sin(half)
        self.init(w: cos(half), x: a.x * s, y: a.y * s, z: a.z * s)
    }

    /// Rotation whose axis is the direction of `r` and whose angle is |r| (rad): the exponential
    /// map used to integrate an angular velocity over a time step (r = ω·dt).
    public init(rotationVector r: Vector3) {
        let h2 = r.lengthSquared * 0.25  // (θ/2)²
        guard h2.isFinite else {
            self = .identity
            return
        }
        let (sinOverH, c) = halfAngleScaleAndCosine(squared: h2)
        let s = sinOverH * 0.5  // sin(θ/2)/θ
        self.init(w: c, x: r.x * s, y: r.y * s, z: r.z * s)
    }

    /// This attitude turned by the body-frame rotation vector `r` (rad) with x-io Fusion's
    /// first-order step: q + ½·q⊗(0, r), normalised. Equal to `self * Quaternion(rotationVector: r)`
    /// up to |r|³/12 (under 1e-7 rad for the 0.02 rad of a typical sample); Fusion integrates this
    /// way, and using the same step keeps parallaxd next to it at low rates and fast turns.
    @inlinable
    public func integrated(by r: Vector3) -> Quaternion {
        let hx = r.x * 0.5, hy = r.y * 0.5, hz = r.z * 0.5
        return Quaternion(
            w: w - x * hx - y * hy - z * hz,
            x: x + w * hx + y * hz - z * hy,
            y: y + w * hy - x * hz + z * hx,
            z: z + w * hz + x * hy - y * hx
        ).normalized()
    }

    /// The shortest rotation taking direction `from` onto direction `to` (both any length).
    /// For opposite directions the axis is an arbitrary one perpendicular to `from`; identity when
    /// either vector has no direction.
    public init(from: Vector3, to: Vector3) {
        guard let f = from.normalized(), let t = to.normalized() else {
            self = .identity
            return
        }
        let d = f.dot(t)
        // Why: near-antiparallel vectors give a vanishing cross product; pick any perpendicular axis.
        if d < -1 + Vector3.directionlessLength {
            // Any reference axis not nearly parallel to f (|f.x| < 0.9) gives a usable perpendicular.
            let helper = abs(f.x) < 0.9 ? Vector3.unitX : Vector3.unitY
            self.init(axis: f.cross(helper), angle: Double.pi)
            return
        }
        // Half-angle construction: q = (1 + d, f × t) normalised, valid for every d > −1.
        let c = f.cross(t)
        self = Quaternion(w: 1 + d, x: c.x, y: c.y, z: c.z).normalized()
    }

    /// Hamilton product: (a * b).rotate(v) == a.rotate(b.rotate(v)).
    @inlinable
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// The conjugate, which is the inverse rotation for a unit quaternion.
    @inlinable
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    @inlinable public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

    /// Vector part (x, y, z).
    @inlinable public var vector: Vector3 { Vector3(x, y, z) }

    /// Unit quaternion in the same direction; identity when the norm is zero or not finite, so an
    /// attitude can never turn into NaN.
    @inlinable
    public func normalized() -> Quaternion {
        let n2 = w * w + x * x + y * y + z * z
        // Why: products of unit quaternions drift from 1 only by rounding; one Newton step for
        // 1/√n² ((3 − n²)/2, error ∝ (n² − 1)²) is exact enough and avoids sqrt and division.
        let s: Double
        if abs(n2 - 1) < 1e-6 {
            s = (3 - n2) * 0.5
        } else {
            let minimum = Vector3.directionlessLength * Vector3.directionlessLength
            guard n2.isFinite, n2 > minimum else { return .identity }
            s = 1 / n2.squareRoot()
        }
        return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// Rotates `v` by this (unit) quaternion: q·v·q*.
    @inlinable
    public func rotate(_ v: Vector3) -> Vector3 {
        // t = 2·(q_vec × v); v' = v + w·t + q_vec × t  (the usual cheap form of q·v·q*)
        let q = Vector3(x, y, z)
        let t = q.cross(v) * 2
        return v + t * w + q.cross(t)
    }

    /// The rotation angle (rad, 0…π) of the shortest rotation taking this attitude to `other`.
    public func angle(to other: Quaternion) -> Double {
        let d = conjugate * other
        // Why: q and −q are the same rotation; |w| picks the shorter way round.
        return 2 * atan2(d.vector.length, abs(d.w))
    }

    /// Turns this attitude toward `target` by at most `maxAngle` (rad) along the shortest rotation,
    /// in the body frame. Returns `target` itself once it is within reach (no overshoot).
    public func step(toward target: Quaternion, maxAngle: Double) -> Quaternion {
        // Why: a zero, negative or NaN step leaves the attitude where it is.
        guard maxAngle > 0 else { return self }
        var d = conjugate * target
        if d.w < 0 { d = Quaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
        let s = d.vector.length  // sin(remaining/2)
        // Half-angles lie in [0, π/2], where cos falls: maxAngle ≥ remaining ⇔ cos(max/2) ≤ d.w.
        let half = min(maxAngle, Double.pi) * 0.5
        let (sinOverH, c) = halfAngleScaleAndCosine(squared: half * half)
        guard c > d.w, s > 0 else { return target }
        let k = sinOverH * half / s
        return (self * Quaternion(w: c, x: d.x * k, y: d.y * k, z: d.z * k)).normalized()
    }

    /// Spherical linear interpolation along the shortest path; t in [0, 1] (0 → self, 1 → other).
    public func slerp(to other: Quaternion, t: Double) -> Quaternion {
        let total = angle(to: other)
        guard total > 0, t.isFinite else { return self }
        return step(toward: other, maxAngle: total * min(max(t, 0), 1))
    }
}
