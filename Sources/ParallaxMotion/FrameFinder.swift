// The guided frame check behind `parallaxctl frame`: three still poses give the accelerometer's
// matrix, the moves between them check the gyroscope (docs/sensors.md "Finding a device's frame").

/// Learns a chip's frame from raw samples (chip axes, SI units, no matrix applied) while the
/// user holds the device still in three known poses, in any order of arrival but prompted in
/// `Pose.allCases` order. A pose counts when the device has been still for `stillSeconds` with
/// gravity at least `minimumSeparation` away from every pose taken so far.
///
/// In a pose the direction of gravity in the device frame is known (upright: −Y; right edge down:
/// +X; face up: −Z), so each pose gives one row of the accelerometer matrix A (raw → direction of
/// gravity): row = ± the raw gravity direction. The rows are made orthonormal like an hwdb entry's
/// (x and y symmetrically), z keeps the measured sign, and the gyroscope gets det(A)·A, which the
/// online check (`FrameCheck`) then tests against the moves between the poses.
public struct FrameFinder: Sendable {
    public enum Pose: Int, Sendable, CaseIterable {
        case upright, rightEdgeDown, faceUp

        /// What the user is asked to do.
        public var instruction: String {
            switch self {
            case .upright: "Hold the device upright in front of you, screen facing you, and keep it still."
            case .rightEdgeDown: "Tilt it to the right until it stands on its right edge (landscape), and keep it still."
            case .faceUp: "Lay it flat on a table, screen up, and leave it still."
            }
        }

        /// Device-frame direction of gravity in this pose, and the row of A it gives.
        var gravity: Vector3 {
            switch self {
            case .upright: Vector3(0, -1, 0)
            case .rightEdgeDown: Vector3(1, 0, 0)
            case .faceUp: Vector3(0, 0, -1)
            }
        }
    }

    public struct Settings: Sendable, Equatable {
        /// How long the device must be still for a pose to count (s).
        public var stillSeconds = 1.0
        /// Largest spread of the accelerometer while still (m/s²): hand tremor is ≈ 0.1.
        public var stillSpread = 0.4
        /// Largest rotation rate while still (rad/s).
        public var stillRate = 0.1
        /// How far gravity must be from earlier poses (rad, 45°): the same pose twice teaches nothing.
        public var minimumSeparation = Double.pi / 4
        public init() {}
    }

    /// The outcome: matrices for the config and, where it can say it, for hwdb.
    public struct Result: Sendable, Equatable {
        /// raw accelerometer → direction of gravity.
        public var accel: MountMatrix
        /// raw gyroscope → rate (det(A)·A, or what the online check corrected it to).
        public var gyro: MountMatrix
        /// The online check over the moves between the poses ("no gyroscope" without one).
        public var check: String
        /// The hwdb line, nil when hwdb's rule (z = −x × y, a specific-force chip) would not read
        /// this frame back (the chip reports the direction of gravity): then only the config can say it.
        public var hwdb: String? {
            accel.determinant < 0 ? "ACCEL_MOUNT_MATRIX=\(accel.text)" : nil
        }
    }

    public let settings: Settings
    /// The pose being waited for; nil once all are taken.
    public private(set) var waitingFor: Pose? = .upright
    /// Raw gravity directions of the poses taken so far.
    public private(set) var taken: [Pose: Vector3] = [:]
    public private(set) var result: Result?

    private var window: [(t: Int64, accel: Vector3)] = []
    private var lastRate = 0.0
    private var session: [Sample] = []
    private var sawGyroscope = false

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Takes one raw sample; returns the pose it completed, if any.
    public mutating func observe(_ sample: Sample) -> Pose? {
        guard let pose = waitingFor else { return nil }
        if let gyro = sample.gyro, gyro.isFinite {
            sawGyroscope = true
            lastRate = gyro.length
        }
        if session.count < Self.sessionLimit { session.append(sample) }
        guard let accel = sample.accel, accel.isFinite, accel.length > 1 else { return nil }
        window.append((sample.t, accel))
        let horizon = sample.t - Int64(settings.stillSeconds * 1e9)
        guard let first = window.first, first.t <= horizon else { return nil }
        window.removeAll { $0.t < horizon }
        guard !sawGyroscope || lastRate <= settings.stillRate else { return nil }
        let mean = window.reduce(Vector3.zero) { $0 + $1.accel } / Double(window.count)
        guard window.allSatisfy({ ($0.accel - mean).length <= settings.stillSpread }), let u = mean.normalized() else { return nil }
        guard taken.values.allSatisfy({ $0.angle(to: u) >= settings.minimumSeparation }) else { return nil }
        taken[pose] = u
        window.removeAll()
        waitingFor = Pose(rawValue: pose.rawValue + 1)
        if waitingFor == nil { result = finish() }
        return pose
    }

    /// A measured row this close to an axis (cos 15°) is taken as that axis.
    static let axisSnap = 0.9659

    static func snappedToAxis(_ v: Vector3) -> Vector3 {
        let components = [v.x, v.y, v.z]
        let i = (0..<3).max { abs(components[$0]) < abs(components[$1]) }!
        guard abs(components[i]) >= axisSnap else { return v }
        return [Vector3.unitX, .unitY, .unitZ][i] * (components[i] < 0 ? -1 : 1)
    }

    /// Samples kept for the gyroscope check (10 minutes at 100 Hz).
    static let sessionLimit = 60_000

    private func finish() -> Result? {
        guard let up = taken[.upright], let right = taken[.rightEdgeDown], let face = taken[.faceUp] else { return nil }
        // A·u = gravity direction of the pose, A orthogonal: the row for that axis is ±u.
        let measured = MountMatrix(rows: (right * Pose.rightEdgeDown.gravity.x, up * Pose.upright.gravity.y,
                                          face * Pose.faceUp.gravity.z))
        guard case .success(let (measuredX, measuredY, _)) = FrameDerivation.screenRows(measured) else { return nil }
        // Chips sit square to the board: a row within `axisSnap` of an axis is that axis, so hand
        // tremor and a table's slope do not end up in the printed matrix.
        let snappedX = Self.snappedToAxis(measuredX), snappedY = Self.snappedToAxis(measuredY)
        let square = abs(snappedX.dot(snappedY)) < 1e-9
        let x = square ? snappedX : measuredX, y = square ? snappedY : measuredY
        let normal = x.cross(y)
        let accel = MountMatrix(rows: (x, y, measured.rows.2.dot(normal) < 0 ? -normal : normal))
        var gyro = accel.scaled(accel.determinant < 0 ? -1 : 1)
        guard sawGyroscope else { return Result(accel: accel, gyro: gyro, check: FrameCheck.State.noGyroscope.rawValue) }
        var check = FrameCheck()
        for raw in session {
            _ = check.observe(Sample(t: raw.t, accel: raw.accel.map(accel.apply), gyro: raw.gyro.map(gyro.apply)))
        }
        if check.state == .corrected {
            let c = check.correction
            gyro = MountMatrix(rows: (gyro.rows.0 * c.x, gyro.rows.1 * c.y, gyro.rows.2 * c.z))
        }
        return Result(accel: accel, gyro: gyro, check: check.summary)
    }
}
