// One proper device frame for fusion, derived from whatever mount matrix a source gives
// (docs/sensors.md "Mount matrices and the fusion frame").
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a frame came from, as `status` names it.
public enum FrameSource: String, Sendable, CaseIterable {
    /// udev's ACCEL_MOUNT_MATRIX (systemd hwdb): only its x and y rows are trusted.
    case hwdb
    /// The kernel's `mount_matrix`, `in_accel_mount_matrix`, `in_anglvel_mount_matrix` or
    /// `in_mount_matrix`: a whole rotation in the IIO ABI's convention.
    case kernel
    /// `[Sensor] AccelMountMatrix=` / `GyroMountMatrix=`: used as written.
    case config
    /// No matrix anywhere, on a HID sensor hub: raw axes are device axes, the accelerometer
    /// reporting the direction of gravity (the Windows convention HID hubs follow).
    case identity
    /// No matrix anywhere, on a chip's own driver (not a HID hub): raw axes are device axes and
    /// the accelerometer reports what the chip measures, specific force (face up: +g on z), as
    /// the kernel's matrices describe it. The kernel rule applied to the identity.
    case chip
    /// A known device's axes from the daemon's own table (the Steam Deck's evdev motion device,
    /// docs/frames.md "evdev motion devices"): a rotation, read by the kernel rule.
    case device
}

/// How the raw chip axes of both sensors map into the daemon's device frame (X right, Y top, Z
/// out of the screen):
/// - `accel` · raw accelerometer = the DIRECTION OF GRAVITY (upright ≈ (0, −g, 0));
/// - `gyro` · raw gyroscope = the right-handed rotation rate.
///
/// For a consistent frame `accel` is orthonormal and `gyro` = det(accel) · accel: a rotation rate
/// is a pseudovector, so where `accel` mirrors (det −1, which it must for a chip that reports
/// specific force, since gravity's direction is minus that) the rate does not.
public struct SensorFrame: Sendable, Equatable {
    public var accel: MountMatrix
    public var gyro: MountMatrix
    public var source: FrameSource
    /// The matrix as the source wrote it (for `status` and the logs).
    public var given: MountMatrix
    /// What was changed or doubted, in words ("z row 0, 0, 1 replaced by 0, 0, -1: …").
    public var repairs: [String]

    public init(accel: MountMatrix, gyro: MountMatrix, source: FrameSource, given: MountMatrix, repairs: [String] = []) {
        self.accel = accel
        self.gyro = gyro
        self.source = source
        self.given = given
        self.repairs = repairs
    }

    /// Nothing known on a HID sensor hub: it reports the direction of gravity in device axes and
    /// a right-handed rate in the same axes.
    public static let identity = SensorFrame(accel: .identity, gyro: .identity, source: .identity, given: .identity)

    /// Nothing known on a chip's own driver: specific force and a right-handed rate in the chip's
    /// axes, taken as the device's (accel = −I, gyro = I, as the kernel rule gives for the identity).
    public static let chipAxes = SensorFrame(accel: MountMatrix.identity.scaled(-1), gyro: .identity, source: .chip,
                                             given: .identity)

    /// True when `accel` is orthonormal and `gyro` = det(accel)·accel (within `tolerance`).
    public func isConsistent(tolerance: Double = MountMatrix.defaultOrthonormalTolerance) -> Bool {
        guard accel.isOrthonormal(tolerance: tolerance) else { return false }
        let expected = accel.scaled(accel.determinant < 0 ? -1 : 1)
        return zip(expected.values, gyro.values).allSatisfy { abs($0 - $1) <= tolerance }
    }
}

/// Why a matrix cannot give a frame (the caller falls back to the next source, then identity).
public struct FrameRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The rules of docs/sensors.md "Mount matrices and the fusion frame", one per source.
public enum FrameDerivation {
    /// Smallest sine of the angle between the x and y rows for them to say anything (≈ 17°):
    /// below it the two screen axes are nearly parallel and no repair could know which is wrong.
    public static let minimumRowSine = 0.3
    /// Entries that differ by more than this count as changed (hwdb writes four decimals).
    public static let repairTolerance = 1e-3

    /// udev ACCEL_MOUNT_MATRIX: written and checked for screen rotation, in the direction-of-gravity
    /// convention, on chips that report specific force. The x and y rows are trusted (made
    /// orthonormal); the z row is −(x × y), which makes the matrix −R for the chip's rotation R.
    public static func fromHwdb(_ m: MountMatrix) -> Result<SensorFrame, FrameRefusal> {
        switch screenRows(m) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let (x, y, notes)):
            let accel = MountMatrix(rows: (x, y, -(x.cross(y))))
            var repairs = notes
            repairs += zRowNote(given: m, derived: accel, rule: "−(x × y) (a chip that reports specific force)")
            return .success(SensorFrame(accel: accel, gyro: accel.scaled(-1), source: .hwdb, given: m, repairs: repairs))
        }
    }

    /// Kernel `mount_matrix` (IIO ABI, Documentation/ABI/testing/sysfs-bus-iio): a rotation R with
    /// R · raw in the device frame for the quantity the chip measures: specific force for an
    /// accelerometer (face-up reads +g on z), the rate for a gyroscope. So accel = −R, gyro = R.
    ///
    /// A matrix with det < 0 is no rotation; device trees with one are tuned for screen rotation
    /// the way hwdb entries are, so it is read with the hwdb rule (its x and y rows, direction of
    /// gravity). A near-singular one keeps its x and y rows and gets z = x × y.
    public static func fromKernel(_ m: MountMatrix) -> Result<SensorFrame, FrameRefusal> {
        switch screenRows(m) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let (x, y, notes)):
            if m.determinant < -0.5 {
                guard case .success(var frame) = fromHwdb(m) else { return .failure(FrameRefusal("unreachable")) }
                frame.source = .kernel
                frame.repairs.insert("det \(format(m.determinant)) is no rotation (IIO ABI): read like hwdb, its x and y rows in the direction-of-gravity convention", at: 0)
                return .success(frame)
            }
            let rotation = MountMatrix(rows: (x, y, x.cross(y)))
            let repairs = notes + zRowNote(given: m, derived: rotation, rule: "x × y (a rotation)")
            return .success(SensorFrame(accel: rotation.scaled(-1), gyro: rotation, source: .kernel, given: m, repairs: repairs))
        }
    }

    /// Config overrides are the user's word and are used as written (`parallaxctl frame` prints a
    /// consistent pair). A gyroscope without its own override gets det(accel)·accel.
    public static func fromOverride(accel: MountMatrix?, gyro: MountMatrix?, otherwise: SensorFrame) -> SensorFrame {
        guard accel != nil || gyro != nil else { return otherwise }
        var frame = otherwise
        var notes: [String] = []
        if let accel {
            frame.accel = accel
            frame.given = accel
            frame.gyro = accel.scaled(accel.determinant < 0 ? -1 : 1)
            frame.source = .config
            frame.repairs = []
            if !accel.isOrthonormal() { notes.append("AccelMountMatrix= is not orthonormal; used as written") }
        }
        if let gyro {
            frame.gyro = gyro
            if accel == nil { notes.append("GyroMountMatrix= from the config; accelerometer frame from \(frame.source.rawValue)") }
        }
        if !frame.isConsistent() {
            notes.append("gyroscope matrix is not det(A)·A of the accelerometer's: used as written (the online check will judge)")
        }
        frame.repairs += notes
        return frame
    }

    /// The x and y rows made orthonormal without favouring either (each turns by half the
    /// deviation from a right angle), or a refusal when they cannot be.
    static func screenRows(_ m: MountMatrix) -> Result<(Vector3, Vector3, [String]), FrameRefusal> {
        guard m.isFinite else { return .failure(FrameRefusal("not finite")) }
        guard let u = m.rows.0.normalized() else { return .failure(FrameRefusal("its x row is zero")) }
        guard let v = m.rows.1.normalized() else { return .failure(FrameRefusal("its y row is zero")) }
        guard u.cross(v).length >= minimumRowSine else {
            return .failure(FrameRefusal("its x and y rows are (nearly) parallel: no screen axes to repair from"))
        }
        guard let sum = (u + v).normalized(), let difference = (u - v).normalized() else {
            return .failure(FrameRefusal("its x and y rows are (nearly) parallel: no screen axes to repair from"))
        }
        let x = snapped((sum + difference) / 2.squareRoot())
        let y = snapped((sum - difference) / 2.squareRoot())
        var notes: [String] = []
        if !close(x, m.rows.0) || !close(y, m.rows.1) {
            notes.append("x and y rows \(format(m.rows.0)); \(format(m.rows.1)) made orthonormal: \(format(x)); \(format(y))")
        }
        return .success((x, y, notes))
    }

    /// Entries within rounding of −1, 0 or 1 become exactly that, so axis-aligned mounts stay
    /// exact integers (and print as hwdb writes them).
    private static func snapped(_ v: Vector3) -> Vector3 {
        func snap(_ x: Double) -> Double {
            let r = x.rounded()
            return abs(x - r) < 1e-9 ? r + 0 : x  // + 0 turns −0 into 0
        }
        return Vector3(snap(v.x), snap(v.y), snap(v.z))
    }

    private static func zRowNote(given: MountMatrix, derived: MountMatrix, rule: String) -> [String] {
        let z = derived.rows.2
        guard !close(z, given.rows.2) else { return [] }
        let why: String
        let det = given.determinant
        if abs(det) < 0.5 {
            why = "singular (det \(format(det)))"
        } else if close(z, -given.rows.2) {
            why = "opposite to what its x and y rows imply"
        } else {
            why = "does not fit its x and y rows"
        }
        return ["z row \(format(given.rows.2)) \(why): replaced by \(rule) = \(format(z))"]
    }

    private static func close(_ a: Vector3, _ b: Vector3) -> Bool {
        abs(a.x - b.x) <= repairTolerance && abs(a.y - b.y) <= repairTolerance && abs(a.z - b.z) <= repairTolerance
    }

    /// "a, b, c" with up to four decimals and no "-0".
    public static func format(_ v: Vector3) -> String {
        [v.x, v.y, v.z].map(format).joined(separator: ", ")
    }

    /// A number with up to four decimals, trailing zeros dropped, never "-0".
    public static func format(_ x: Double) -> String {
        // Beyond 1e12 the fixed form would overflow Int: such a "matrix" is garbage anyway.
        guard x.isFinite, abs(x) < 1e12 else { return String(x) }
        let rounded = (x * 10_000).rounded() / 10_000
        return rounded == 0 ? "0" : String(format4: rounded)
    }
}

extension MountMatrix {
    /// s · M.
    public func scaled(_ s: Double) -> MountMatrix {
        MountMatrix(rows: (rows.0 * s, rows.1 * s, rows.2 * s))
    }

    /// The text form "a, b, c; d, e, f; g, h, i" (four decimals at most), as hwdb and the config take it.
    public var text: String {
        [rows.0, rows.1, rows.2].map(FrameDerivation.format).joined(separator: "; ")
    }
}

private extension String {
    /// Fixed four decimals without Foundation, trailing zeros trimmed.
    init(format4 x: Double) {
        let negative = x < 0
        let scaled = Int((abs(x) * 10_000).rounded())
        var fraction = String(scaled % 10_000)
        fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        self = (negative ? "-" : "") + String(scaled / 10_000) + (fraction.isEmpty ? "" : "." + fraction)
    }
}
