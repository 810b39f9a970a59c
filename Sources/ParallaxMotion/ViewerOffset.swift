// The product's output: how the screen is turned relative to the user's resting pose.

/// Viewer offset, each axis in [−1, 1] (UIKit convention, docs/frames.md "Viewer offset"):
/// x > 0 when the screen turns toward the viewer's right, y > 0 when it tips downward.
public struct ViewerOffset: Equatable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = ViewerOffset(x: 0, y: 0)

    /// The same offset in the axes of an output rotated clockwise by `r`. For 90° the output's
    /// right axis is the panel's down axis and its down axis the panel's left, hence (y, −x).
    public func rotated(by r: DisplayRotation) -> ViewerOffset {
        switch r {
        case .none: return self
        case .clockwise90: return ViewerOffset(x: y, y: -x)
        case .clockwise180: return ViewerOffset(x: -x, y: -y)
        case .clockwise270: return ViewerOffset(x: -y, y: x)
        }
    }

    /// Both axes clamped to [−1, 1]; NaN becomes 0 so an offset is always publishable.
    public func clamped() -> ViewerOffset {
        ViewerOffset(x: clampUnit(x), y: clampUnit(y))
    }
}

/// Clamps to [−1, 1], mapping NaN to 0.
@inline(__always)
func clampUnit(_ v: Double) -> Double {
    guard v == v else { return 0 }
    return min(max(v, -1), 1)
}
