// What counts as a usable reading; shared by the filter and the engine so both judge alike.

/// Limits on sensor readings.
public enum SensorLimits {
    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665
    /// Accelerometer readings whose magnitude lies within [low, high] × g are taken as gravity
    /// (tilt) measurements; outside, linear acceleration dominates and they are ignored.
    public static let plausibleGravityLow = 0.5
    public static let plausibleGravityHigh = 1.5
    /// m/s² (≈100 g): beyond any phone or tablet sensor range; such a reading is garbage.
    public static let absurdAcceleration = 1000.0
    /// rad/s (≈5700°/s): beyond any consumer gyroscope's range (typically ≤ 2000°/s ≈ 35 rad/s).
    public static let absurdRotationRate = 100.0

    /// The accelerometer reading if it is finite and not absurd, else nil.
    @inline(__always)
    static func usableAccel(_ a: Vector3?) -> Vector3? {
        guard let a, a.isFinite, a.lengthSquared <= absurdAcceleration * absurdAcceleration else { return nil }
        return a
    }

    /// The gyroscope reading if it is finite and not absurd, else nil.
    @inline(__always)
    static func usableGyro(_ g: Vector3?) -> Vector3? {
        guard let g, g.isFinite, g.lengthSquared <= absurdRotationRate * absurdRotationRate else { return nil }
        return g
    }

    /// True when an accelerometer reading's magnitude is close enough to g to measure tilt.
    @inline(__always)
    static func isPlausibleGravity(_ a: Vector3) -> Bool {
        let m2 = a.lengthSquared
        let lo = plausibleGravityLow * standardGravity
        let hi = plausibleGravityHigh * standardGravity
        return m2.isFinite && m2 >= lo * lo && m2 <= hi * hi
    }
}
