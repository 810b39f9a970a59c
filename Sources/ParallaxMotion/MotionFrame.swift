// What the engine emits when the offset moved enough to be worth sending.

public struct MotionFrame: Sendable, Equatable {
    /// Count of frames emitted by the engine so far, this one included (first frame: 1).
    public var seq: UInt64
    /// CLOCK_MONOTONIC ns of the newest sample behind this frame.
    public var t: Int64
    /// Offset in the panel's natural axes, unrounded, each axis in [−1, 1].
    public var offset: ViewerOffset
    /// Rate of change of `offset` at `t` (offset units per second), panel axes.
    public var velocity: OffsetVelocity
    /// Device→earth attitude (earth Z up) at this frame.
    public var attitude: Quaternion
    /// Yaw and its rate at `t` (not turned with any display rotation).
    public var heading: Heading
    /// The offset moved by the minimum change (or this is the first frame): false for a frame
    /// that only the yaw's change brought (`MotionEngine.headingWanted`).
    public var offsetMoved: Bool

    public init(seq: UInt64, t: Int64, offset: ViewerOffset, velocity: OffsetVelocity = .zero, attitude: Quaternion,
                heading: Heading = .zero, offsetMoved: Bool = true) {
        self.seq = seq
        self.t = t
        self.offset = offset
        self.velocity = velocity
        self.attitude = attitude
        self.heading = heading
        self.offsetMoved = offsetMoved
    }
}
