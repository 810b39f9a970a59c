// Mount matrix: v_device = M · v_sensor, and the checks that reject unusable matrices.
import Testing
import ParallaxMotion

@Suite struct MountMatrixTests {
    @Test func appliesRowMajor() {
        // A sensor mounted with its X along the device's −Y and its Y along the device's X.
        let m = MountMatrix([0, 1, 0, -1, 0, 0, 0, 0, 1])
        #expect(m.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(MountMatrix.identity.apply(Vector3(1, 2, 3)) == Vector3(1, 2, 3))
        #expect(m.values == [0, 1, 0, -1, 0, 0, 0, 0, 1])
        #expect(m.transposed.apply(m.apply(Vector3(0.5, -7, 2))) == Vector3(0.5, -7, 2))
        #expect(m == MountMatrix(m.values) && m != .identity)
    }

    @Test func orthonormalWithinTolerance() {
        #expect(MountMatrix.identity.isOrthonormal())
        // hwdb writes 45° mounts with four decimals.
        let r45 = MountMatrix([0.7071, -0.7071, 0, 0.7071, 0.7071, 0, 0, 0, 1])
        #expect(r45.isOrthonormal())
        #expect(!r45.isOrthonormal(tolerance: 1e-6))
        #expect(!MountMatrix([2, 0, 0, 0, 1, 0, 0, 0, 1]).isOrthonormal())
        #expect(!MountMatrix([1, 0, 0, 1, 0, 0, 0, 0, 1]).isOrthonormal())
        let mirror = MountMatrix([-1, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(mirror.isOrthonormal() && mirror.determinant == -1)
    }

    @Test func zeroRowsAndNonFiniteAreUnusable() {
        #expect(MountMatrix([0, 0, 0, 0, 0, 0, 0, 0, 0]).isZeroRow)
        #expect(MountMatrix([1, 0, 0, 0, 0, 0, 0, 0, 1]).isZeroRow)
        #expect(!MountMatrix.identity.isZeroRow)
        let nan = MountMatrix([1, 0, 0, 0, .nan, 0, 0, 0, 1])
        #expect(!nan.isFinite && !nan.isOrthonormal())
        #expect(MountMatrix.identity.isFinite)
    }
}
