// Rotation of a client's output picture, used to turn offsets into that output's axes.

/// Clockwise rotation (degrees) of the client's output picture relative to the panel's natural
/// orientation (the device frame of docs/frames.md).
public enum DisplayRotation: Int, Sendable, CaseIterable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// Only 0, 90, 180 and 270 are rotations; anything else is nil.
    public init?(degrees: Int) {
        self.init(rawValue: degrees)
    }

    public var degrees: Int { rawValue }
}
