// UIKit's model of motion effects, as values: an effect maps a viewer offset to values keyed by
// property name ("x", "position.y", "sublayerTransform", …: the names are the renderer's). The
// values are RELATIVE: a scalar is added to the property's resting value, a transform multiplied
// with it. Effects are stateless, a function of the viewer offset alone, so one effect can serve
// any number of layers and any thread.

/// A value an effect returns for one key.
public enum MotionEffectValue: Sendable, Hashable {
    /// Added to the property (positions, sizes, opacities, angles…).
    case scalar(Double)
    /// Multiplied with the property (a layer's transform or sublayerTransform).
    case transform(Transform3D)

    /// This value followed by `other` on the same key: scalars add up, transforms multiply (`self`
    /// acts first, then `other`). Values of different kinds do not combine: `self` is kept.
    public func combined(with other: MotionEffectValue) -> MotionEffectValue {
        switch (self, other) {
        case (.scalar(let a), .scalar(let b)): return .scalar(a + b)
        case (.transform(let a), .transform(let b)): return .transform(a * b)
        default: return self
        }
    }

    /// The property's resting `value` with this relative value applied: a scalar is added, a
    /// transform acts after the resting one (resting · relative).
    public func applied(to value: MotionEffectValue) -> MotionEffectValue {
        value.combined(with: self)
    }

    /// The scalar, or nil for a transform.
    public var scalar: Double? {
        if case .scalar(let v) = self { return v }
        return nil
    }

    /// The transform, or nil for a scalar.
    public var transform: Transform3D? {
        if case .transform(let t) = self { return t }
        return nil
    }
}

/// Relative values keyed by property name.
public typealias MotionEffectValues = [String: MotionEffectValue]

extension Dictionary where Key == String, Value == MotionEffectValue {
    /// The scalar for `key`; 0 (nothing to add) when the key is absent or holds a transform.
    public func scalar(_ key: String) -> Double { self[key]?.scalar ?? 0 }

    /// The transform for `key`; the identity (nothing to multiply) when absent or a scalar.
    public func transform(_ key: String) -> Transform3D { self[key]?.transform ?? .identity }

    /// Combines `other`'s values into these key by key (see `MotionEffectValue.combined(with:)`).
    public mutating func combine(with other: MotionEffectValues) {
        for (key, value) in other {
            if let existing = self[key] {
                self[key] = existing.combined(with: value)
            } else {
                self[key] = value
            }
        }
    }
}

/// A motion effect: relative values as a function of the viewer offset alone (UIMotionEffect's
/// keyPathsAndRelativeValuesForViewerOffset:). Typical use in a renderer:
/// `effect.values(for: subscriber.offset?.predicted(at: frameShownAt) ?? .zero)`.
public protocol MotionEffect: Sendable {
    /// The effect's values for `offset`. The effects of this module accept any offset and use x
    /// and y clamped to [−1, 1], yaw wrapped to (−π, π], NaN as 0 (`ParallaxOffset.clamped`);
    /// conforming types should too.
    func values(for offset: ParallaxOffset) -> MotionEffectValues
}
