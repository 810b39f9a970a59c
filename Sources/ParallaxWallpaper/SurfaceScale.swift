// How many device pixels a surface draws per logical pixel (surface unit), and the buffer that
// takes. Two ways (docs/wallpaper.md "Outputs, frames and prediction"):
//
// - an integer buffer scale (wl_surface.set_buffer_scale with the output's wl_output scale): the
//   buffer is the surface size times it;
// - the compositor's preferred fractional scale (wp_fractional_scale_v1, in 120ths: 180 = 1.5),
//   drawn at device pixels into a buffer of scale 1 that wp_viewporter shows at the surface size.
//   Without it a 1.5 output gets a scale-2 buffer that the compositor shrinks, or a scale-1 one it
//   stretches: every edge resampled, soft.
//
// A pure value, unit-tested without a compositor (SurfaceScaleTests).

public enum SurfaceScale: Sendable, Equatable {
    case integer(Int32)
    /// The scale in 120ths (fractional-scale-v1's unit).
    case fractional(UInt32)

    /// fractional-scale-v1's denominator.
    public static let fractionalDenominator: UInt32 = 120
    /// Largest scale taken from a compositor (device pixels per logical pixel); beyond it a value
    /// is a bug, and a buffer that large could not be allocated anyway.
    public static let maximumFactor = 16.0

    /// The compositor's preferred scale (120ths); nil for 0, which would make an empty buffer.
    public init?(preferred numerator: UInt32) {
        guard numerator > 0 else { return nil }
        self = .fractional(numerator)
    }

    /// Device pixels per logical pixel, within 1/120…maximumFactor.
    public var factor: Double {
        switch self {
        case .integer(let n): return Double(min(max(n, 1), Int32(Self.maximumFactor)))
        case .fractional(let n): return min(max(Double(n), 1) / Double(Self.fractionalDenominator), Self.maximumFactor)
        }
    }

    /// What wl_surface.set_buffer_scale gets: the integer scale, or 1 under a viewport.
    public var bufferScale: Int32 {
        switch self {
        case .integer: return Int32(factor)
        case .fractional: return 1
        }
    }

    /// Whether the buffer is shown through a wp_viewport at the surface size.
    public var needsViewport: Bool {
        if case .fractional = self { return true }
        return false
    }

    /// The buffer in pixels for a surface of width × height units: size × factor, rounded half
    /// away from zero as fractional-scale-v1 asks (so a 853×480 surface at 1.5 is 1280×720), at
    /// least 1 × 1.
    public func bufferSize(width: Int32, height: Int32) -> (width: Int32, height: Int32) {
        func scaled(_ units: Int32) -> Int32 {
            Int32(clamping: Int64((Double(max(units, 1)) * factor).rounded(.toNearestOrAwayFromZero)))
        }
        return (max(scaled(width), 1), max(scaled(height), 1))
    }
}
