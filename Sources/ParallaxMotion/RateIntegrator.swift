// Rate-mode offset: DVParallaxView's idea (threshold × multiplier on rotation rate), fixed.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Integrates rotation rate into an offset. Per axis, rates below the threshold contribute
/// nothing; above it the offset moves by ω·dt·gain (real dt, not per frame). x integrates the
/// rate about device +Y and y the rate about device +X, the same signs as attitude mode.
/// The accumulated value itself is clamped to [−1, 1] (no wind-up: turning back leaves the
/// limit at once), and an optional exponential return pulls it toward 0.
struct RateIntegrator: Sendable {
    private(set) var offset = ViewerOffset.zero

    /// Adds a gyro reading (rad/s) over `interval` s; `gain` in offset per rad (rateGain × sensitivity).
    @inline(__always)
    mutating func integrate(gyro: Vector3, interval: Double, threshold: Double, gain: Double) {
        guard interval > 0 else { return }
        let wx = abs(gyro.y) < threshold ? 0 : gyro.y
        let wy = abs(gyro.x) < threshold ? 0 : gyro.x
        offset = ViewerOffset(
            x: clampUnit(offset.x + wx * interval * gain),
            y: clampUnit(offset.y + wy * interval * gain))
    }

    /// Decays toward 0 at `rate` (1/s) over `interval` s.
    @inline(__always)
    mutating func relax(rate: Double, interval: Double) {
        guard rate > 0, interval > 0 else { return }
        let k = exp(-rate * interval)
        offset = ViewerOffset(x: offset.x * k, y: offset.y * k)
    }

    mutating func recenter() {
        offset = .zero
    }
}
