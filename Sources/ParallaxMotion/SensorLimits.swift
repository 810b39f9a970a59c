// What counts as a usable reading; shared by the filter and the engine so both judge alike.

/// Limits on sensor readings.
public enum SensorLimits {
    /// Standard gravity, m/s².
    public static let standardGravity = 9.80665
    /// Accelerometer readings whose magnitude lies within [low, high] × g are taken as gravity on
    /// their own: they may initialise the attitude and drive it when there is no gyroscope. (With a
    /// gyroscope every reading above free fall corrects, at the filter's gain, as in Fusion.)
    public static let plausibleGravityLow = 0.5
    public static let plausibleGravityHigh = 1.5
    /// Below this fraction of g the accelerometer is not measuring gravity at all (free fall, a
    /// dead sensor): its direction is noise and it corrects nothing (Android's fusion: 0.1 g).
    public static let freeFallLimit = 0.1
    /// Still re-anchoring trusts only readings within this fraction of g (±10 %): the device is
    /// then feeling gravity and little else.
    public static let steadyGravityTolerance = 0.1
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

    /// True when an accelerometer reading is strong enough to have a direction worth following.
    @inline(__always)
    static func isAboveFreeFall(_ a: Vector3) -> Bool {
        let lo = freeFallLimit * standardGravity
        return a.lengthSquared >= lo * lo
    }

    /// True when a reading is within ±`steadyGravityTolerance` of g (`magnitude` in m/s²).
    @inline(__always)
    static func isSteadyGravity(magnitude m: Double) -> Bool {
        abs(m - standardGravity) <= steadyGravityTolerance * standardGravity
    }

    /// True when an accelerometer reading's magnitude is close enough to g to measure tilt on its
    /// own (initialisation, accelerometer-only fallback).
    @inline(__always)
    static func isPlausibleGravity(_ a: Vector3) -> Bool {
        let m2 = a.lengthSquared
        let lo = plausibleGravityLow * standardGravity
        let hi = plausibleGravityHigh * standardGravity
        return m2.isFinite && m2 >= lo * lo && m2 <= hi * hi
    }
}
