// A UIMotionEffect subclass as a value: any function from the viewer offset to named values, for
// what linear interpolation cannot express (a curve, a colour, several keys from one formula).

/// A motion effect defined by a function. It must be stateless: the same offset gives the same
/// values, whatever was asked before (UIKit's rule), so it may be shared and called from any thread.
public struct CustomMotionEffect: MotionEffect {
    private let body: @Sendable (ParallaxOffset) -> MotionEffectValues

    /// - Parameter body: the values for an offset; it receives x and y already clamped to
    ///   [−1, 1] (NaN as 0), so its formula never sees a value outside the protocol's range.
    public init(_ body: @escaping @Sendable (ParallaxOffset) -> MotionEffectValues) {
        self.body = body
    }

    public func values(for offset: ParallaxOffset) -> MotionEffectValues {
        body(offset.clamped)
    }
}
