// Three-component vector for sensor readings and frame axes (device or earth frame).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A 3-D vector of `Double`s. Units depend on use: m/s² (accelerometer), rad/s (gyroscope),
/// rad (rotation vectors) or none (directions).
public struct Vector3: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Vector3(0, 0, 0)
    public static let unitX = Vector3(1, 0, 0)
    public static let unitY = Vector3(0, 1, 0)
    public static let unitZ = Vector3(0, 0, 1)

    /// Below this length a vector has no usable direction (normalising it would amplify noise or
    /// divide by zero).
    public static let directionlessLength = 1e-12

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }

    @inlinable
    public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }

    @inlinable
    public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    @inlinable public var lengthSquared: Double { x * x + y * y + z * z }
    @inlinable public var length: Double { lengthSquared.squareRoot() }

    /// True when every component is a finite number (no NaN, no ±inf).
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The unit vector in this direction, or nil when the vector is (almost) zero or not finite.
    @inlinable
    public func normalized() -> Vector3? {
        let l = length
        guard l.isFinite, l > Vector3.directionlessLength else { return nil }
        return self / l
    }

    /// Angle between two vectors in rad, 0…π; 0 when either has no direction. Uses atan2, which
    /// stays accurate near 0 and π where acos does not.
    @inlinable
    public func angle(to o: Vector3) -> Double {
        let c = cross(o).length
        let d = dot(o)
        guard c.isFinite, d.isFinite else { return 0 }
        return atan2(c, d)
    }
}
