// Deriving one proper fusion frame from hwdb, kernel and config matrices (docs/sensors.md
// "Mount matrices and the fusion frame"), checked against physically modelled chips.
import Testing
import Glibc
import ParallaxMotion

/// The 24 proper rotations that map axes onto axes (how chips are soldered).
let axisRotations: [MountMatrix] = {
    var out: [MountMatrix] = []
    let axes = [Vector3.unitX, .unitY, .unitZ]
    for i in 0..<3 { for j in 0..<3 where j != i { for si in [1.0, -1.0] { for sj in [1.0, -1.0] {
        let x = axes[i] * si, y = axes[j] * sj
        out.append(MountMatrix(rows: (x, y, x.cross(y))))
    } } } }
    return out
}()

func closeMatrix(_ a: MountMatrix, _ b: MountMatrix, _ tol: Double = 1e-9) -> Bool {
    zip(a.values, b.values).allSatisfy { abs($0 - $1) <= tol }
}

/// A chip rotated by R (chip → device, proper) that reports specific force, as MEMS chips and the
/// IIO ABI do: raw accelerometer = Rᵀ·(−direction of gravity), raw gyroscope = Rᵀ·ω.
struct Chip {
    var rotation: MountMatrix
    func rawAccel(gravityDirection d: Vector3) -> Vector3 { rotation.transposed.apply(-d) }
    func rawGyro(_ w: Vector3) -> Vector3 { rotation.transposed.apply(w) }
}

@Suite struct SensorFrameTests {
    @Test func hwdbRowsGiveTheChipsFrameWhateverTheZRowSays() throws {
        for r in axisRotations {
            let chip = Chip(rotation: r)
            // hwdb is checked on x and y only: −R there; its z row may be right, negated or junk.
            let x = -r.rows.0, y = -r.rows.1
            for z in [-r.rows.2, r.rows.2, x] {
                let given = MountMatrix(rows: (x, y, z))
                let frame = try FrameDerivation.fromHwdb(given).get()
                #expect(frame.source == .hwdb)
                #expect(closeMatrix(frame.accel, r.scaled(-1)), "accel for \(given.text)")
                #expect(closeMatrix(frame.gyro, r), "gyro for \(given.text)")
                #expect(frame.isConsistent())
                #expect(frame.repairs.isEmpty == (z == -r.rows.2), "repairs \(frame.repairs) for \(given.text)")
                // Physics: the frame turns the chip's readings into the device's truth.
                let d = Vector3(0.3, -9.7, 1.2), w = Vector3(0.4, -1.1, 0.25)
                #expect(close(frame.accel.apply(chip.rawAccel(gravityDirection: d)), d, 1e-9))
                #expect(close(frame.gyro.apply(chip.rawGyro(w)), w, 1e-9))
            }
        }
    }

    @Test func theIssuesThreeHwdbFormsAreRepairedTheSameWay() throws {
        let mirror = try FrameDerivation.fromHwdb(MountMatrix([0, -1, 0, -1, 0, 0, 0, 0, 1])).get()
        #expect(mirror.accel == MountMatrix([0, -1, 0, -1, 0, 0, 0, 0, 1]) && mirror.repairs.isEmpty)
        #expect(mirror.gyro == MountMatrix([0, 1, 0, 1, 0, 0, 0, 0, -1]))
        let flippedZ = try FrameDerivation.fromHwdb(MountMatrix([0, 1, 0, -1, 0, 0, 0, 0, 1])).get()
        #expect(flippedZ.accel == MountMatrix([0, 1, 0, -1, 0, 0, 0, 0, -1]))
        #expect(flippedZ.repairs.count == 1 && flippedZ.repairs[0].contains("opposite"))
        let singular = try FrameDerivation.fromHwdb(MountMatrix([1, 0, 0, 0, -1, 0, 1, 0, 0])).get()
        #expect(singular.accel == MountMatrix([1, 0, 0, 0, -1, 0, 0, 0, 1]))
        #expect(singular.repairs.count == 1 && singular.repairs[0].contains("singular"))
        #expect(singular.accel.determinant == -1 && singular.gyro.determinant == 1)
    }

    @Test func kernelMatricesAreRotationsInTheIIOConvention() throws {
        for r in axisRotations {
            let frame = try FrameDerivation.fromKernel(r).get()
            #expect(frame.source == .kernel && frame.repairs.isEmpty)
            #expect(closeMatrix(frame.accel, r.scaled(-1)) && closeMatrix(frame.gyro, r))
            // A reflection cannot be an ABI rotation: it is read like hwdb (−R, as for screen rotation).
            let tuned = r.scaled(-1)
            let read = try FrameDerivation.fromKernel(tuned).get()
            #expect(closeMatrix(read.gyro, r) && read.repairs.first?.contains("no rotation") == true)
        }
        // A 30° mount written with three decimals is made exact, not refused.
        let tilted = try FrameDerivation.fromKernel(MountMatrix([1, 0, 0, 0, 0.866, 0.5, 0, -0.5, 0.866])).get()
        #expect(tilted.accel.isOrthonormal(tolerance: 1e-12) && tilted.isConsistent(tolerance: 1e-12))
    }

    @Test func skewedRowsAreMadeOrthonormalSymmetrically() throws {
        // x and y rows 80° apart: each turns 5° away from the other.
        let c = cos(80 * degree), s = sin(80 * degree)
        let frame = try FrameDerivation.fromHwdb(MountMatrix([1, 0, 0, c, s, 0, 0, 0, -1])).get()
        #expect(frame.accel.isOrthonormal(tolerance: 1e-12))
        #expect(abs(frame.accel.rows.0.angle(to: .unitX) - 5 * degree) < 1e-9)
        #expect(abs(frame.accel.rows.1.angle(to: Vector3(c, s, 0)) - 5 * degree) < 1e-9)
        #expect(frame.repairs.contains { $0.contains("orthonormal") })
        // Scaled rows are directions: normalised.
        let scaled = try FrameDerivation.fromHwdb(MountMatrix([2, 0, 0, 0, -2, 0, 0, 0, 2])).get()
        #expect(scaled.accel == MountMatrix([1, 0, 0, 0, -1, 0, 0, 0, 1]))
    }

    @Test func unrepairableMatricesAreRefusedWithAReason() {
        let cases: [([Double], String)] = [
            ([0, 0, 0, 0, 1, 0, 0, 0, 1], "x row is zero"),
            ([1, 0, 0, 0, 0, 0, 0, 0, 1], "y row is zero"),
            ([1, 0, 0, 1, 0.1, 0, 0, 0, 1], "parallel"),
            ([1, 0, 0, -1, 0, 0, 0, 0, 1], "parallel"),
            ([.nan, 0, 0, 0, 1, 0, 0, 0, 1], "not finite"),
            ([.infinity, 0, 0, 0, 1, 0, 0, 0, 1], "not finite"),
        ]
        for (values, reason) in cases {
            for derive in [FrameDerivation.fromHwdb, FrameDerivation.fromKernel] {
                guard case .failure(let refusal) = derive(MountMatrix(values)) else {
                    Issue.record("\(values) was not refused"); continue
                }
                #expect(refusal.message.contains(reason), "\(values): \(refusal.message)")
            }
        }
    }

    @Test func overridesAreUsedAsWritten() {
        let hwdb = try! FrameDerivation.fromHwdb(MountMatrix([0, -1, 0, -1, 0, 0, 0, 0, 1])).get()
        // Accelerometer only: the gyroscope follows with det(A)·A.
        let mirrored = MountMatrix([1, 0, 0, 0, 1, 0, 0, 0, -1])
        let a = FrameDerivation.fromOverride(accel: mirrored, gyro: nil, otherwise: hwdb)
        #expect(a.source == .config && a.accel == mirrored && a.gyro == mirrored.scaled(-1) && a.isConsistent())
        #expect(a.repairs.isEmpty)
        // A gyroscope override is kept even when it contradicts the accelerometer; it is flagged.
        let g = FrameDerivation.fromOverride(accel: nil, gyro: hwdb.accel, otherwise: hwdb)
        #expect(g.accel == hwdb.accel && g.gyro == hwdb.accel && !g.isConsistent())
        #expect(g.repairs.contains { $0.contains("online check") })
        // A non-orthonormal accelerometer override is not repaired, only noted.
        let skew = MountMatrix([1, 0.2, 0, 0, 1, 0, 0, 0, 1])
        let s = FrameDerivation.fromOverride(accel: skew, gyro: nil, otherwise: .identity)
        #expect(s.accel == skew && s.repairs.contains { $0.contains("not orthonormal") })
        // No override: the other frame unchanged.
        #expect(FrameDerivation.fromOverride(accel: nil, gyro: nil, otherwise: hwdb) == hwdb)
    }

    @Test func textFormRoundsAndNeverWritesMinusZero() {
        #expect(MountMatrix([0, -1, 0, -0.0, 0, 1, 0.70710678, -0.70710678, 1e-9]).text
                == "0, -1, 0; 0, 0, 1; 0.7071, -0.7071, 0")
        #expect(FrameDerivation.format(1e300) == "1e+300")
    }
}
