// Attitude-mode mapping from (reference, current attitude) to the viewer offset (docs/frames.md "Viewer offset").
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum OffsetMapping {
    /// Offset of attitude `current` against `reference` (both device→earth). With Δ = R⁻¹·A the
    /// device axes in the reference frame are dX = Δ·(1,0,0), dY = Δ·(0,1,0), and
    /// x = −asin(dX.z)/S, y = asin(dY.z)/S, times `sensitivity`, clamped to [−1, 1].
    /// Rotation about the screen normal leaves both z components at 0 and contributes nothing.
    @inline(__always)
    static func offset(reference: Quaternion, current: Quaternion, saturationAngle: Double, sensitivity: Double) -> ViewerOffset {
        let q = reference.conjugate * current
        // z components of Δ·X and Δ·Y: elements (3,1) and (3,2) of Δ's rotation matrix.
        let xz = 2 * (q.x * q.z - q.w * q.y)
        let yz = 2 * (q.y * q.z + q.w * q.x)
        let scale = sensitivity / saturationAngle
        return ViewerOffset(
            x: clampUnit(-asin(clampUnit(xz)) * scale),
            y: clampUnit(asin(clampUnit(yz)) * scale))
    }
}
