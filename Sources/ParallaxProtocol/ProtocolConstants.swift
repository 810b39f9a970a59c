// Fixed facts of protocol v1 (docs/protocol.md), in one place for server and clients.

public enum ProtocolConstants {
    /// Protocol version announced in `hello`.
    public static let version = 1
    /// Server name announced in `hello`.
    public static let serverName = "parallaxd"
    /// Server version announced in `hello` and `status`.
    public static let serverVersion = "0.1.0"
    /// Longest client line accepted (bytes, without the "\n" or "\r\n" that ends it).
    public static let maxLineLength = 1024
    /// Display rotations a subscriber may ask for (degrees clockwise).
    public static let rotations: Set<Int> = [0, 90, 180, 270]
    /// Calibration durations a client may ask for (seconds).
    public static let calibrationSeconds: ClosedRange<Double> = 1...120
    /// Decimals of x and y in offset lines (1e-4 of full scale is far below what a layer can show).
    public static let offsetDecimals = 4
    /// Largest |vx| or |vy| written (offset units per second). Real motion stays far below it (a
    /// fast flick of 10 rad/s at the default 90° saturation is 6.4 per second); it bounds the line.
    public static let maxOffsetVelocity = 9_999.0
    /// Decimals of yaw (rad) and vyaw (rad/s) in offset lines: 1e-4 rad is 0.006°, a 3-pixel
    /// step of a 360° panorama 100 000 pixels wide.
    public static let headingDecimals = 4
}
