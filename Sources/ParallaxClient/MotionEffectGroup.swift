// UIMotionEffectGroup as a value: several effects applied together. Their values for the same key
// combine as UIKit's do on a view: scalars add up, transforms multiply (in the group's order).

/// Effects applied together; itself an effect, so groups nest.
public struct MotionEffectGroup: MotionEffect {
    /// The effects, in order: for a key two of them share, the earlier one's transform acts first.
    public var effects: [any MotionEffect]

    public init(_ effects: [any MotionEffect]) {
        self.effects = effects
    }

    /// Every effect's values, combined per key (see `MotionEffectValue.combined(with:)`; a key
    /// given a scalar by one effect and a transform by another keeps the first one's value).
    public func values(for offset: ParallaxOffset) -> MotionEffectValues {
        var result: MotionEffectValues = [:]
        for effect in effects {
            result.combine(with: effect.values(for: offset))
        }
        return result
    }
}
