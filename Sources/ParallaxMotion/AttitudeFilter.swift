// Attitude fusion at the level of x-io Fusion (revised Madgwick AHRS, no magnetometer) with real dt.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Estimates the device→earth attitude A (v_earth = A·v_device, earth Z up) from gyroscope and
/// accelerometer. Yaw is free (no magnetometer); the accelerometer corrects tilt only.
///
/// As Fusion (docs/motion.md, "Attitude filter"):
/// - Each update turns the attitude by (ω − bias + gain·feedback)·dt with Fusion's first-order
///   quaternion step, the feedback being the cross product of the measured and the estimated
///   "up" (its unit vector beyond 90°), measured against the attitude before the update.
/// - The gain ramps from `startupGain` to `filterGain` over `startupPeriod`; a gyroscope reading
///   beyond 98 % of `gyroscopeRange` restarts the ramp (angular-rate recovery).
/// - Acceleration rejection with recovery (`accelerationRejection`, `rejectionTimeout`; off by
///   default, as in Fusion), disabled during start-up.
/// - Gyroscope bias learned while stationary (`GyroBias`, Fusion's FusionBias).
///
/// Beyond Fusion:
/// - Real dt per sensor from the timestamps: accelerometer and gyroscope may arrive together or
///   in separate updates at different rates; gaps longer than `maxGap` are not integrated.
/// - The attitude starts from the first plausible accelerometer reading (yaw 0), so there is no
///   start-up swing from identity, and after an accelerometer gap the gyroscope did not cover
///   either it snaps to gravity again (the pose is unknown after such a gap).
/// - A sparse accelerometer (read a few times a second beside a full-rate gyroscope,
///   `MotionSettings.gravityReferenceRate`): a reading after an interval the gyroscope followed
///   corrects over its whole interval when the gyroscope saw the device stationary, over `maxGap`
///   at most while it moves.
/// - Readings under 0.1 g (free fall, a dead sensor) are skipped instead of normalised noise.
/// - **Still re-anchoring**: stationary for `stillTime` with a steady 1 g reading disagreeing by
///   more than `stillAngle`, the gyroscope must have missed a rotation (an emulated device, a
///   stalled sensor, a slow polled read); `stillGain` then applies until under `stillSettleAngle`.
/// - **Accelerometer-only fallback**: with no gyroscope reading for longer than `maxGap` (or none
///   at all), plausible gravity readings are followed at `accelerometerOnlyGain`.
/// - The correction turned per update never exceeds the error itself, so a large gain × interval
///   (long intervals, start-up gain) cannot overshoot.
public struct AttitudeFilter: Sendable {
    private var _settings: MotionSettings

    /// Device→earth attitude, earth Z up. Identity until initialised.
    public private(set) var attitude: Quaternion = .identity
    /// True once a plausible accelerometer reading has set the attitude.
    public private(set) var isInitialized = false
    /// True when the latest correction used the still re-anchoring gain (diagnostic).
    public private(set) var isStillReanchoring = false
    /// True when acceleration rejection ignored the latest accelerometer reading (diagnostic).
    public private(set) var isAccelerometerIgnored = false
    /// True while no gyroscope reading has arrived for longer than `maxGap` (or ever).
    public private(set) var isAccelerometerOnly = true
    /// Latest bias-corrected rotation rate (rad/s, device frame); nil while the gyroscope is silent.
    public private(set) var rotationRate: Vector3?

    /// Accelerometer time (s) since initialisation or the last restart; drives the start-up ramp.
    private var sinceStart: Double = 0
    /// Time (s) since the latest gyroscope reading; infinite before the first one.
    private var sinceGyro: Double = .infinity
    /// How long (s) the gyroscope has followed the motion without a gap (0 after one).
    private var trackedFor: Double = 0
    private var bias = GyroBias()
    private var rejection = AccelerationRejection()
    /// Per-sample comparisons in cosines/sines of the angle settings (no trigonometry per sample).
    private var limits: Limits

    private struct Limits: Sendable {
        var stillCosine: Double
        var settleCosine: Double
        /// sin²(accelerationRejection); meaningless when rejection is off.
        var rejectionSine2: Double
        var rejects: Bool
        init(_ s: MotionSettings) {
            stillCosine = cos(s.stillAngle)
            settleCosine = cos(s.stillSettleAngle)
            let sine = sin(s.accelerationRejection)
            rejectionSine2 = sine * sine
            // Why: as Fusion, a zero threshold, timeout or gain turns rejection off.
            rejects = s.accelerationRejection > 0 && s.rejectionTimeout > 0 && s.filterGain > 0
        }
    }

    public init(settings: MotionSettings = MotionSettings()) {
        _settings = settings.validated()
        limits = Limits(_settings)
    }

    /// Settings (validated on assignment). Changing them keeps the attitude and the learned bias.
    public var settings: MotionSettings {
        get { _settings }
        set {
            _settings = newValue.validated()
            limits = Limits(_settings)
        }
    }

    /// Learned gyroscope bias (rad/s, device frame), subtracted from every reading.
    public var gyroscopeBias: Vector3 { bias.offset }
    /// How long (s) the gyroscope has shown the device stationary (0 while it moves).
    public var stationaryTime: Double { bias.stationaryTime }
    /// True during the start-up gain ramp.
    public var isStartingUp: Bool { isInitialized && sinceStart < _settings.startupPeriod }
    /// True while acceleration rejection is recovering (every reading used).
    public var isRecovering: Bool { rejection.isRecovering }

    /// Forgets the attitude; the next plausible accelerometer reading initialises it again. The
    /// learned gyroscope bias is kept: it belongs to the sensor, which is most likely the same.
    public mutating func reset() {
        var kept = bias
        kept.interrupt()
        self = AttitudeFilter(settings: _settings)
        bias = kept
    }

    /// The accelerometer gain (1/s) now, before the fallback and re-anchoring gains: the start-up
    /// ramp, then `filterGain`.
    public var rampedGain: Double {
        let s = _settings
        guard s.startupPeriod > 0, sinceStart < s.startupPeriod else { return s.filterGain }
        return s.startupGain + (s.filterGain - s.startupGain) * (sinceStart / s.startupPeriod)
    }

    /// One update where both readings (either may be nil) cover the same interval `dt` (s).
    public mutating func update(accel: Vector3?, gyro: Vector3?, dt: Double) {
        update(accel: accel, accelInterval: dt, gyro: gyro, gyroInterval: dt, elapsed: dt)
    }

    /// One update with separate intervals (s, 0 for a first reading): `gyroInterval` since the
    /// previous gyroscope reading, `accelInterval` since the previous accelerometer reading,
    /// `elapsed` since the previous update of any kind (default: the larger interval). Intervals
    /// longer than `maxGap` are gaps. Non-finite or absurd readings are ignored.
    /// - accel: m/s², device frame, direction of gravity. gyro: rad/s, device frame.
    public mutating func update(accel: Vector3?, accelInterval: Double, gyro: Vector3?, gyroInterval: Double, elapsed: Double? = nil) {
        let s = _settings
        let reading = SensorLimits.usableAccel(accel)
        let rate = SensorLimits.usableGyro(gyro)
        let passed = Self.interval(elapsed ?? max(accelInterval, gyroInterval))

        // Gyroscope: overrange, bias, stationarity; the turn it measured over its interval.
        var turn = Vector3.zero
        if let rate {
            if s.gyroscopeRange > 0, isInitialized, Self.exceeds(rate, Self.overrangeFraction * s.gyroscopeRange) {
                restartStartup()
            }
            let gyroInterval = Self.interval(gyroInterval)
            let corrected = bias.correct(rate, interval: gyroInterval, settings: s)
            rotationRate = corrected
            if gyroInterval > 0, gyroInterval <= s.maxGap {
                turn = corrected * gyroInterval
                trackedFor += gyroInterval
            } else {
                trackedFor = 0
            }
            sinceGyro = 0
        } else {
            sinceGyro += passed
            if sinceGyro > s.maxGap {
                rotationRate = nil
                trackedFor = 0
                bias.interrupt()
            }
        }
        isAccelerometerOnly = sinceGyro > s.maxGap

        // Why: before the first plausible gravity reading there is no tilt to start from.
        guard isInitialized else {
            if let reading, SensorLimits.isPlausibleGravity(reading) { initialize(gravity: reading) }
            return
        }

        if let reading {
            let interval = Self.interval(accelInterval)
            if interval > 0 { turn += correction(gravity: reading, interval: interval) }
        }
        if turn != .zero { attitude = attitude.integrated(by: turn) }
    }

    /// Fusion: angular-rate recovery restarts at 98 % of the gyroscope's range.
    static let overrangeFraction = 0.98

    /// Rotation vector (rad, device frame) that turns the estimated up toward the measured one over
    /// `interval` s, measured against the attitude before this update (Fusion's order). May also
    /// snap the attitude after a gap neither sensor covered (and then return zero).
    private mutating func correction(gravity: Vector3, interval: Double) -> Vector3 {
        let s = _settings
        isAccelerometerIgnored = false
        let m2 = gravity.lengthSquared
        let plausible = SensorLimits.isPlausibleGravity(gravity)
        // Why: only near-1 g readings stand for gravity when nothing else tracks the motion.
        guard SensorLimits.isAboveFreeFall(gravity), plausible || !isAccelerometerOnly else {
            isStillReanchoring = false
            return .zero
        }
        let magnitude = m2.squareRoot()
        let measured = gravity * (-1 / magnitude)

        // Why: after a gap neither sensor covered, the pose is unknown; gravity is the best guess.
        // Only a part the gyroscope missed longer than `maxGap` is such a gap: a sparse
        // accelerometer (docs/motion.md "Accelerometer rate") has intervals over `maxGap` that the
        // gyroscope followed all but its last few milliseconds of, e.g. the first one after the
        // gyroscope (re)started, which would otherwise snap the attitude to one reading.
        let uncovered = interval - trackedFor
        if uncovered > s.maxGap, plausible {
            snap(toUp: measured)
            return .zero
        }
        // How long (s) this reading stands for. Why not always its interval: a reading that came
        // after a longer interval during motion is one instant of the linear acceleration, and
        // weighting it by the whole interval would turn the attitude by that much more (so at most
        // `maxGap`, as before). Why the whole interval when the gyroscope followed it and saw the
        // device stationary throughout: a sparse accelerometer at rest (well under a reading a
        // second) then keeps the filter's gain; clamped it would correct at a fraction of it, and
        // a gyroscope bias would leave a tilt error that many times b/gain (docs/motion.md).
        let followedStill = !isAccelerometerOnly && uncovered <= s.maxGap && bias.stationaryTime + sinceGyro >= interval
        let step = interval <= s.maxGap || followedStill ? interval : s.maxGap
        let startingUp = sinceStart < s.startupPeriod
        sinceStart += step

        let estimated = Self.estimatedUp(attitude)
        let c = measured.cross(estimated)
        let d = measured.dot(estimated)
        let sine2 = c.lengthSquared

        var gain = rampedGain
        if isAccelerometerOnly {
            gain = max(gain, s.accelerometerOnlyGain)
            isStillReanchoring = false
        } else {
            // Still re-anchoring, with hysteresis: engage beyond stillAngle, release under settle.
            if bias.stationaryTime >= s.stillTime, SensorLimits.isSteadyGravity(magnitude: magnitude), s.stillGain > 0 {
                isStillReanchoring = isStillReanchoring ? d < limits.settleCosine : d < limits.stillCosine
            } else {
                isStillReanchoring = false
            }
            if isStillReanchoring {
                gain = max(gain, s.stillGain)
            } else if limits.rejects, !startingUp {
                let exceeds = d <= 0 || sine2 > limits.rejectionSine2
                isAccelerometerIgnored = rejection.ignores(exceeds: exceeds, interval: step, timeout: s.rejectionTimeout)
            }
        }
        guard !isAccelerometerIgnored, gain > 0 else { return .zero }

        // Fusion's feedback: the cross product below 90° (|c| = sin error), its unit vector beyond.
        var feedback = c
        var size = 0.0  // |feedback| when known (needed only for the cap)
        if d <= 0 {
            let sine = sine2.squareRoot()
            if sine > Vector3.directionlessLength {
                feedback = c * (1 / sine)
            } else {
                // Why: exactly upside down the cross product vanishes; any horizontal axis works
                // (a reference axis not nearly parallel to "up", |x| < 0.9, gives one).
                let helper = abs(measured.x) < 0.9 ? Vector3.unitX : Vector3.unitY
                feedback = measured.cross(helper).normalized() ?? .unitX
            }
            size = 1
        }
        var k = gain * step
        // Why: the turn k·|feedback| must not pass the error e = atan2(|c|, d). Below 90°,
        // |feedback| = sin e ≤ e, so only k > 1 can overshoot; beyond, |feedback| = 1 ≤ e needs k > π/2.
        if k > (d > 0 ? 1 : Double.pi / 2) {
            let sine = sine2.squareRoot()
            if d > 0 { size = sine }
            let error = atan2(sine, d)
            if size > 0, k * size > error { k = error / size }
        }
        return feedback * k
    }

    /// Sets the attitude from a gravity reading with yaw 0: A = Ry(pitch)·Rx(roll), the
    /// roll/pitch that turn the measured up onto earth Z.
    private mutating func initialize(gravity: Vector3) {
        let up = Self.up(fromGravity: gravity)
        let roll = atan2(up.y, up.z)
        let pitch = atan2(-up.x, (up.y * up.y + up.z * up.z).squareRoot())
        attitude = (Quaternion(axis: .unitY, angle: pitch) * Quaternion(axis: .unitX, angle: roll)).normalized()
        isInitialized = true
        restartStartup()
    }

    /// Turns the attitude by the smallest rotation that makes its up the measured one (yaw kept).
    private mutating func snap(toUp measured: Vector3) {
        // A' = A·Q with Q·measured = estimated, so that A'⁻¹·Z = Q⁻¹·(A⁻¹·Z) = measured.
        attitude = (attitude * Quaternion(from: measured, to: Self.estimatedUp(attitude))).normalized()
        isStillReanchoring = false
    }

    /// Start-up again: gain ramp from `startupGain`, rejection state cleared (Fusion's soft restart).
    private mutating func restartStartup() {
        sinceStart = 0
        rejection.reset()
        isStillReanchoring = false
        isAccelerometerIgnored = false
    }

    /// THE one place where the accelerometer's sign convention is converted: it reports the
    /// direction of gravity (docs/frames.md), so "up" in the device frame is its negation.
    @inline(__always)
    static func up(fromGravity a: Vector3) -> Vector3 {
        a * (-1 / a.length)
    }

    /// Estimated up in the device frame: A⁻¹·(0, 0, 1), the third row of A's rotation matrix.
    @inline(__always)
    static func estimatedUp(_ q: Quaternion) -> Vector3 {
        Vector3(
            2 * (q.x * q.z - q.w * q.y),
            2 * (q.y * q.z + q.w * q.x),
            1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// A usable interval (s): finite and positive, else 0.
    @inline(__always)
    static func interval(_ t: Double) -> Double {
        t.isFinite && t > 0 ? t : 0
    }

    /// True when any axis of `v` exceeds `limit` in magnitude.
    @inline(__always)
    static func exceeds(_ v: Vector3, _ limit: Double) -> Bool {
        abs(v.x) > limit || abs(v.y) > limit || abs(v.z) > limit
    }
}
