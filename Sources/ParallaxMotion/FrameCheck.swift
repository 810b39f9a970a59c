// Online check of the fusion frame: does the gyroscope turn the way the accelerometer sees
// gravity turn? (docs/sensors.md "The online check")

/// Compares, while the device moves, the change of the gravity direction u the accelerometer
/// sees with the change the gyroscope predicts. For a vector fixed in the world, seen from the
/// device, du/dt = −ω × u = Σᵢ ωᵢ (u × eᵢ). Over short windows with significant motion the
/// measured Δu is fitted as Σᵢ cᵢ Pᵢ with Pᵢ = ∫ ωᵢ (u × eᵢ) dt (least squares over all windows):
/// cᵢ ≈ +1 where axis i agrees, ≈ −1 where it is mirrored or sign-flipped, anything else where
/// the sizes disagree. Rotation about gravity changes nothing the accelerometer sees, so an axis
/// is judged only once enough of the motion turned gravity about it (`minimumEvidence`).
///
/// A clear disagreement is a verdict once; where every axis is judged and each is ±1 within
/// `agreement`, the flipped axes are corrected (`corrected(_:)`). The check sees the samples before
/// its own correction, so its estimate stays in the driver's frame.
public struct FrameCheck: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Shortest window (s): long enough for a turn to move gravity beyond the noise.
        public var window = 0.1
        /// Longest window (s): a gap in the samples ends a window without using it.
        public var maximumWindow = 0.3
        /// Rotation a window needs to count (rad, ≈ 3°): at rest only noise and bias turn.
        public var minimumTurn = 0.05
        /// Rotation beyond which a window is not used (rad, ≈ 34°): the fit is first-order.
        public var maximumTurn = 0.6
        /// How far |a| may stray from 1 g at a window's ends (fraction): shaking is not gravity.
        public var gravityTolerance = 0.2
        /// Σ|Pᵢ|² an axis needs before it is judged (rad²): about a second of swinging at
        /// 1.5 rad/s peak about it, with gravity square to it.
        public var minimumEvidence = 0.05
        /// |cᵢ ∓ 1| within which an axis counts as agreeing or flipped.
        public var agreement = 0.4

        public init() {}
    }

    /// What the check concluded so far.
    public enum State: String, Sendable, Equatable {
        /// The source has no gyroscope: nothing to compare.
        case noGyroscope = "no gyroscope"
        /// Not enough motion yet.
        case pending
        /// Every judged axis agrees (two axes at least).
        case consistent
        /// Some axis is flipped or its size disagrees, and no correction is safe (yet).
        case disagrees
        /// Flipped axes found on all three axes unambiguously: the gyroscope is corrected.
        case corrected
    }

    public let settings: Settings
    public private(set) var state: State = .pending
    /// The fitted cᵢ per axis, nil until the axis has `minimumEvidence`.
    public private(set) var ratios: [Double?] = [nil, nil, nil]
    /// Sign applied to each gyroscope axis (±1).
    public private(set) var correction = Vector3(1, 1, 1)
    /// Windows used so far.
    public private(set) var windows = 0

    private var normal = [Double](repeating: 0, count: 9)
    private var projection = [Double](repeating: 0, count: 3)
    private var start: (t: Int64, u: Vector3)?
    private var contributions = [Vector3](repeating: .zero, count: 3)
    private var turn = 0.0
    private var latest: Vector3?
    private var lastGyroTime: Int64?

    public init(settings: Settings = Settings(), hasGyroscope: Bool = true) {
        self.settings = settings
        if !hasGyroscope { state = .noGyroscope }
    }

    /// Takes one device-frame sample (before this check's correction). Returns the new state when
    /// it changed, for a caller that reports each change once.
    public mutating func observe(_ sample: Sample) -> State? {
        guard state != .noGyroscope else { return nil }
        if let gyro = sample.gyro, gyro.isFinite {
            if let last = lastGyroTime, let u = latest {
                let dt = Double(sample.t - last) / 1e9
                if dt > 0 && dt <= settings.maximumWindow {
                    contributions[0] += u.cross(.unitX) * (gyro.x * dt)
                    contributions[1] += u.cross(.unitY) * (gyro.y * dt)
                    contributions[2] += u.cross(.unitZ) * (gyro.z * dt)
                    turn += gyro.length * dt
                }
            }
            lastGyroTime = sample.t
        }
        guard let accel = sample.accel, accel.isFinite else { return nil }
        let plausible = abs(accel.length / SensorLimits.standardGravity - 1) <= settings.gravityTolerance
        let u = accel.normalized()
        latest = u
        guard let u, plausible else {
            restart(nil)
            return nil
        }
        guard let begun = start else {
            restart((sample.t, u))
            return nil
        }
        let elapsed = Double(sample.t - begun.t) / 1e9
        if elapsed < settings.window { return nil }
        if elapsed <= settings.maximumWindow, turn >= settings.minimumTurn, turn <= settings.maximumTurn {
            accumulate(change: u - begun.u)
        }
        restart((sample.t, u))
        return judge()
    }

    /// The sample with the correction applied to its gyroscope rate.
    public func corrected(_ sample: Sample) -> Sample {
        guard state == .corrected, let gyro = sample.gyro else { return sample }
        var out = sample
        out.gyro = Vector3(gyro.x * correction.x, gyro.y * correction.y, gyro.z * correction.z)
        return out
    }

    /// One line for logs and `status`: "consistent (x +1.01, y +0.98, z not judged)".
    public var summary: String {
        guard state != .noGyroscope else { return state.rawValue }
        let axes = ["x", "y", "z"].enumerated().map { i, name in
            ratios[i].map { "\(name) \($0 >= 0 ? "+" : "")\(FrameDerivation.format(($0 * 100).rounded() / 100))" } ?? "\(name) not judged"
        }
        var text = "\(state.rawValue) (\(axes.joined(separator: ", ")); \(windows) windows)"
        if state == .corrected {
            let flipped = ["x", "y", "z"].enumerated().filter { [correction.x, correction.y, correction.z][$0.offset] < 0 }.map(\.element)
            text += ": gyroscope \(flipped.joined(separator: ", ")) negated"
        }
        return text
    }

    private mutating func restart(_ at: (t: Int64, u: Vector3)?) {
        start = at
        contributions = [.zero, .zero, .zero]
        turn = 0
    }

    private mutating func accumulate(change: Vector3) {
        for i in 0..<3 {
            for j in 0..<3 { normal[i * 3 + j] += contributions[i].dot(contributions[j]) }
            projection[i] += contributions[i].dot(change)
        }
        windows += 1
    }

    /// Fits cᵢ on the judged axes together (their contributions overlap when gravity is oblique)
    /// and updates the state; returns it when it changed.
    private mutating func judge() -> State? {
        let judged = (0..<3).filter { normal[$0 * 3 + $0] >= settings.minimumEvidence }
        guard !judged.isEmpty else { return nil }
        let fit = Self.solve(normal: normal, projection: projection, axes: judged)
        ratios = (0..<3).map { i in judged.firstIndex(of: i).map { fit[$0] } }
        let agreement = settings.agreement
        let near = { (c: Double, target: Double) in abs(c - target) <= agreement }
        let values = judged.map { ratios[$0]! }
        let new: State
        if values.allSatisfy({ near($0, 1) }) {
            new = judged.count >= 2 ? .consistent : .pending
        } else if judged.count == 3 && values.allSatisfy({ near($0, 1) || near($0, -1) }) {
            new = .corrected
        } else {
            new = .disagrees
        }
        // A correction, once made, stays: later windows are still measured in the driver's frame.
        if state == .corrected { return nil }
        if new == .corrected {
            correction = Vector3(values[0] < 0 ? -1 : 1, values[1] < 0 ? -1 : 1, values[2] < 0 ? -1 : 1)
        }
        guard new != state else { return nil }
        state = new
        return new
    }

    /// Least squares on the chosen axes (Gaussian elimination with partial pivoting); an axis
    /// whose equations are degenerate falls back to its own ratio.
    static func solve(normal: [Double], projection: [Double], axes: [Int]) -> [Double] {
        let n = axes.count
        var a = axes.map { i in axes.map { j in normal[i * 3 + j] } + [projection[i]] }
        var degenerate = false
        for col in 0..<n {
            let pivot = (col..<n).max { abs(a[$0][col]) < abs(a[$1][col]) }!
            guard abs(a[pivot][col]) > 1e-12 else { degenerate = true; break }
            a.swapAt(col, pivot)
            for row in 0..<n where row != col {
                let f = a[row][col] / a[col][col]
                for k in col...n { a[row][k] -= f * a[col][k] }
            }
        }
        let joint = degenerate ? nil : (0..<n).map { a[$0][n] / a[$0][$0] }
        if let joint, joint.allSatisfy(\.isFinite) { return joint }
        return axes.map { projection[$0] / normal[$0 * 3 + $0] }
    }
}
