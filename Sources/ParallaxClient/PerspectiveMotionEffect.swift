// The seed's custom motion effect: Apple's MotionEffects sample, PerspectiveMotionEffect, a camera
// orbiting a point of interest. Its maths exactly (Core Animation conventions, see Transform3D):
//
//   M = identity with m34 = −1/eyeDistance                       (perspective, eye 1500 away)
//   M = CATransform3DTranslate(M, 0, 0, −cameraPositionZ)         (scene pushed back 1504)
//   h′ = sign(h)·|h|^(2/3),  v′ = sign(v)·|v|^(2/3)               (stronger near the centre)
//   M = CATransform3DRotate(M, maximumViewingAngleX · v′, 1, 0, 0)
//   M = CATransform3DRotate(M, maximumViewingAngleY · h′, 0, 1, 0)
//
// so a point p (row vector, relative to the point of interest) is drawn at
// p · Ry(maxY·h′) · Rx(maxX·v′) · T(0, 0, −cameraPositionZ) · P: turned about the point of interest,
// pushed back, then seen through the perspective. The sample returns M for the view's
// sublayerTransform; a sublayer at zPosition z is the point (x, y, z).
//
// Directions that follow (checked in PerspectiveMotionEffectTests), in Core Animation's axes
// (x right, y DOWN, z toward the viewer):
// - horizontal h > 0 moves points in front of the point of interest (z > 0) to the right and points
//   behind it to the left, farther ones more: like the floating and recessed layers of
//   UIInterpolatingMotionEffect (the sample's Basic Interpolation screen).
// - vertical v > 0 moves points in front UP (−y) and points behind down. This is the sample's
//   rotation about X as written; it is the opposite of its Basic Interpolation screen, where a
//   floating view moves down (+y) for v > 0. At the sample's 2° it is hard to see. A renderer that
//   wants both axes to agree with flat layers in y-down coordinates gives maximumViewingAngleX a
//   negative value (or draws in y-up coordinates, where the sample's sense is the flat one).

import Glibc

/// A camera orbiting a point of interest as the viewer offset changes; one transform value.
public struct PerspectiveMotionEffect: MotionEffect, Hashable {
    /// The key the sample sets: the container's sublayerTransform.
    public static let defaultKey = "sublayerTransform"
    /// Distance from the eye to the z = 0 plane (points): m34 = −1/eyeDistance. The sample's 1500.
    public static let defaultEyeDistance = 1500.0
    /// How far the scene is pushed back from the eye's plane (points). The sample's 1504
    /// (its cameraPositionZ).
    public static let defaultCameraPositionZ = 1504.0
    /// Rotation about X at full vertical offset (radians): the sample's 2°.
    public static let defaultMaximumViewingAngleX = 2 * Double.pi / 180
    /// Rotation about Y at full horizontal offset (radians): the sample's 18°.
    public static let defaultMaximumViewingAngleY = 18 * Double.pi / 180
    /// The sample's seven layers (Sky, Water, Foreground5 … Foreground1), zPosition in points.
    public static let sampleLayerDepths: [Double] = [0, 5, 40, 66, 82, 97, 104]

    public var key: String
    /// Eye distance (points, > 0; anything else gives no perspective).
    public var eyeDistance: Double
    /// Distance the scene is pushed back along −z (points).
    public var cameraPositionZ: Double
    /// Rotation about X (radians) at vertical offset ±1, before the warp.
    public var maximumViewingAngleX: Double
    /// Rotation about Y (radians) at horizontal offset ±1, before the warp.
    public var maximumViewingAngleY: Double

    public init(
        key: String = PerspectiveMotionEffect.defaultKey,
        eyeDistance: Double = PerspectiveMotionEffect.defaultEyeDistance,
        cameraPositionZ: Double = PerspectiveMotionEffect.defaultCameraPositionZ,
        maximumViewingAngleX: Double = PerspectiveMotionEffect.defaultMaximumViewingAngleX,
        maximumViewingAngleY: Double = PerspectiveMotionEffect.defaultMaximumViewingAngleY
    ) {
        self.key = key
        self.eyeDistance = eyeDistance
        self.cameraPositionZ = cameraPositionZ
        self.maximumViewingAngleX = maximumViewingAngleX
        self.maximumViewingAngleY = maximumViewingAngleY
    }

    public func values(for offset: ParallaxOffset) -> MotionEffectValues {
        [key: .transform(transform(for: offset))]
    }

    /// The sublayer transform for `offset` (x and y clamped to [−1, 1], NaN as 0). Non-finite
    /// settings count as 0 (no push-back, no rotation), so the result is always finite.
    public func transform(for offset: ParallaxOffset) -> Transform3D {
        let clamped = offset.clamped
        let horizontal = Self.warp(clamped.x)
        let vertical = Self.warp(clamped.y)
        return Transform3D.perspective(eyeDistance: eyeDistance)
            .translated(x: 0, y: 0, z: -ParallaxOffset.finite(cameraPositionZ))
            .rotated(angle: ParallaxOffset.finite(maximumViewingAngleX) * vertical, x: 1, y: 0, z: 0)
            .rotated(angle: ParallaxOffset.finite(maximumViewingAngleY) * horizontal, x: 0, y: 1, z: 0)
    }

    /// Where a point of a layer is drawn for `offset` (relative to the point of interest, after
    /// the perspective divide); nil when it would be at or behind the eye.
    public func project(_ point: Point3D, for offset: ParallaxOffset) -> Point3D? {
        transform(for: offset).apply(to: point)
    }

    /// The sample's response curve y = sign(x)·|x|^(2/3): more motion near the centre.
    public static func warp(_ v: Double) -> Double {
        let magnitude = pow(abs(v), 2.0 / 3.0)
        return v < 0 ? -magnitude : magnitude
    }
}
