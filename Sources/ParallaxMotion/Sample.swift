// One sensor reading handed from a source to the engine (architecture.md "Seams").

/// One reading. Either sensor may be missing ("no new value from that sensor in this sample").
public struct Sample: Sendable, Equatable {
    /// CLOCK_MONOTONIC time of the reading, ns.
    public var t: Int64
    /// Accelerometer, m/s², device frame, pointing in the DIRECTION OF GRAVITY
    /// (upright ≈ (0, −9.81, 0), face-up ≈ (0, 0, −9.81)).
    public var accel: Vector3?
    /// Gyroscope, rad/s, device frame, right-hand rotation rates about X, Y, Z.
    public var gyro: Vector3?

    public init(t: Int64, accel: Vector3? = nil, gyro: Vector3? = nil) {
        self.t = t
        self.accel = accel
        self.gyro = gyro
    }
}
