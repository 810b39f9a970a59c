// Fast sine/cosine of the small half-angles that dominate per-sample rotation updates.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Below this half-angle (rad) the Taylor series to the h⁶ term is exact to double precision
/// (next term h⁸/8! < 1e-15); per-sample rotations (≤ 0.1 rad) stay under it.
let seriesHalfAngleLimit = 0.05

/// (sin h / h, cos h) from h² (no square root needed for small h): the scale for a quaternion's
/// vector part and its w. Multiplications by constant reciprocals keep the chain short.
@inline(__always)
func halfAngleScaleAndCosine(squared h2: Double) -> (sinOverH: Double, cos: Double) {
    if h2 <= seriesHalfAngleLimit * seriesHalfAngleLimit {
        let sinOverH = 1 - h2 * (1.0 / 6) * (1 - h2 * (1.0 / 20) * (1 - h2 * (1.0 / 42)))
        let cosine = 1 - h2 * 0.5 * (1 - h2 * (1.0 / 12) * (1 - h2 * (1.0 / 30)))
        return (sinOverH, cosine)
    }
    let h = h2.squareRoot()
    return (sin(h) / h, cos(h))
}
