// How the offset is derived (docs/motion.md).

public enum MotionMode: String, Sendable, CaseIterable {
    /// Fused attitude against a slowly re-centring reference (iOS-like, the default).
    case attitude
    /// Integrated rotation rate with threshold, no wind-up and optional return (DVParallaxView-like).
    case rate
}
