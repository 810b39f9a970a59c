// Sensor → device frame mapping (docs/frames.md "Mount matrix": v_device = M · v_sensor).

/// A 3×3 mount matrix, row-major, applied as `v_device = M · v_sensor`. Text form
/// "a, b, c; d, e, f; g, h, i" (parsing lives with the sysfs/udev readers, not here).
public struct MountMatrix: Equatable, Sendable {
    /// The three rows; row i gives component i of the device-frame vector.
    public var rows: (Vector3, Vector3, Vector3)

    public init(rows: (Vector3, Vector3, Vector3)) {
        self.rows = rows
    }

    /// Nine values, row-major. Precondition: exactly nine.
    public init(_ m: [Double]) {
        precondition(m.count == 9, "a mount matrix has 9 values, got \(m.count)")
        rows = (Vector3(m[0], m[1], m[2]), Vector3(m[3], m[4], m[5]), Vector3(m[6], m[7], m[8]))
    }

    public static let identity = MountMatrix([1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// Default tolerance for `isOrthonormal`: hwdb matrices are written with a few decimals
    /// (e.g. 0.7071), which are orthonormal to about 1e-4.
    public static let defaultOrthonormalTolerance = 1e-3

    /// The nine values, row-major.
    public var values: [Double] {
        [rows.0.x, rows.0.y, rows.0.z, rows.1.x, rows.1.y, rows.1.z, rows.2.x, rows.2.y, rows.2.z]
    }

    public static func == (a: MountMatrix, b: MountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    /// M · v.
    @inlinable
    public func apply(_ v: Vector3) -> Vector3 {
        Vector3(rows.0.dot(v), rows.1.dot(v), rows.2.dot(v))
    }

    /// True when some row is all zeros: that device axis would never move, so the matrix is
    /// unusable (a common firmware placeholder is all zeros).
    public var isZeroRow: Bool {
        rows.0 == .zero || rows.1 == .zero || rows.2 == .zero
    }

    public var isFinite: Bool { rows.0.isFinite && rows.1.isFinite && rows.2.isFinite }

    /// Determinant; −1 for a mirroring (left-handed) mount.
    public var determinant: Double { rows.0.dot(rows.1.cross(rows.2)) }

    public var transposed: MountMatrix {
        MountMatrix(rows: (
            Vector3(rows.0.x, rows.1.x, rows.2.x),
            Vector3(rows.0.y, rows.1.y, rows.2.y),
            Vector3(rows.0.z, rows.1.z, rows.2.z)))
    }

    /// True when the rows are unit length and mutually perpendicular within `tolerance`, i.e. the
    /// matrix is a pure rotation or reflection and keeps lengths (|g| stays 9.81 m/s²).
    public func isOrthonormal(tolerance: Double = MountMatrix.defaultOrthonormalTolerance) -> Bool {
        guard isFinite else { return false }
        let r = rows
        let checks = [
            r.0.dot(r.0) - 1, r.1.dot(r.1) - 1, r.2.dot(r.2) - 1,
            r.0.dot(r.1), r.0.dot(r.2), r.1.dot(r.2),
        ]
        return checks.allSatisfy { abs($0) <= tolerance }
    }
}
