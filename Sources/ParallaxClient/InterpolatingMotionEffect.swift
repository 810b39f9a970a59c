// UIInterpolatingMotionEffect as a value: one key, one axis, a linear map of that axis's offset
// from [−1, 1] onto [minimum, maximum]. A floating layer uses minimum < maximum (it follows the
// tilt), a recessed one minimum > maximum (Apple's sample: foreground −15…15, background 25…−25).
// The heading is a third axis: yaw over the whole turn, −π…π, onto minimum…maximum.

/// Interpolates one axis of the viewer offset linearly onto [minimum, maximum] for one key.
public struct InterpolatingMotionEffect: MotionEffect, Hashable {
    /// Which offset axis drives the effect (UIKit's tiltAlongHorizontalAxis / tiltAlongVerticalAxis).
    public enum Axis: Sendable, Hashable {
        /// The offset's x: the screen turning toward the viewer's right gives +1.
        case horizontal
        /// The offset's y: the screen tipping downward gives +1.
        case vertical
        /// The heading: yaw / π, so −1 at yaw −π, 0 at the reference pose, +1 at yaw π (the screen
        /// turned toward the viewer's right gives more). 0 while the offset has no yaw (a
        /// subscriber without `heading: true`, a daemon without gyroscope). A 360° panorama W
        /// pixels wide that scrolls left as the screen turns right: minimum W/2, maximum −W/2.
        case heading
    }

    /// The property the value is for (the renderer's name, e.g. "x" or "center.y").
    public var key: String
    public var axis: Axis
    /// Value at offset −1 (relative: added to the property).
    public var minimum: Double
    /// Value at offset +1.
    public var maximum: Double

    public init(key: String, axis: Axis, minimum: Double, maximum: Double) {
        self.key = key
        self.axis = axis
        self.minimum = minimum
        self.maximum = maximum
    }

    public func values(for offset: ParallaxOffset) -> MotionEffectValues {
        let clamped = offset.clamped
        let position: Double
        switch axis {
        case .horizontal: position = clamped.x
        case .vertical: position = clamped.y
        case .heading: position = (clamped.yaw ?? 0) / Double.pi
        }
        return [key: .scalar(Self.interpolate(position, minimum: minimum, maximum: maximum))]
    }

    /// UIKit's interpolation: minimum + (maximum − minimum)·(offset/2 + 1/2). The offset is clamped
    /// to [−1, 1] first and a non-finite one counts as 0 (libparallax's px_interpolate does the same).
    public static func interpolate(_ offset: Double, minimum: Double, maximum: Double) -> Double {
        let position = ParallaxOffset.unit(ParallaxOffset.finite(offset))
        return minimum + (maximum - minimum) * (position * 0.5 + 0.5)
    }
}
