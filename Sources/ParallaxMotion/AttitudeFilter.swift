// Complementary attitude filter in the style of x-io Fusion (revised Madgwick/Mahony), no magnetometer.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Estimates the device→earth attitude A (v_earth = A·v_device, earth Z up) from gyroscope and
/// accelerometer. Yaw is free (no magnetometer); the accelerometer corrects tilt only.
///
/// Like Fusion: the gyroscope is integrated; the accelerometer's disagreement with the estimated
/// "up", error = measuredUp × estimatedUp, is added to the rotation rate scaled by the gain
/// (rad/s per rad), which ramps from `startupGain` down to `filterGain` over `startupPeriod`;
/// readings far from 1 g are rejected.
///
/// Unlike Fusion:
/// - The attitude starts directly from the first plausible accelerometer reading (yaw 0), so
///   there is no start-up swing from identity.
/// - **Still re-anchoring (deliberate deviation)**: when the gyroscope says the device is not
///   rotating (|ω| < `stillRate`) but the plausible accelerometer disagrees with the estimate by
///   more than `stillAngle`, the faster `stillGain` is used. A steady disagreement while not
///   rotating means the gyroscope missed a rotation (emulated devices, an accelerometer-only
///   change, a stalled sensor), and Fusion's slow gain would leave the offset wrong for seconds.
/// - The correction turned per update is capped at the error itself, so large gain × dt (long
///   intervals, start-up gain) can never overshoot.
/// - Predict, then correct: the accelerometer is compared with the gyro-propagated attitude (both
///   describe the same instant). Comparing with the attitude before the update, as Fusion does,
///   makes a steady rotation settle one sample ahead (ω·dt too far, 2.5 % at 40 samples).
/// - Accelerometer and gyroscope may arrive in separate updates, each with its own interval.
public struct AttitudeFilter: Sendable {
    private var _settings: MotionSettings

    /// Device→earth attitude, earth Z up. Identity until initialised.
    public private(set) var attitude: Quaternion = .identity
    /// True once a plausible accelerometer reading has set the attitude.
    public private(set) var isInitialized = false
    /// True when the latest correction used the still re-anchoring gain (diagnostic).
    public private(set) var isStillReanchoring = false

    /// Accelerometer time (s) since initialisation; drives the start-up gain ramp.
    private var sinceStart: Double = 0
    /// Magnitude (rad/s) of the latest gyroscope reading.
    private var latestRate: Double = 0
    /// Accelerometer time (s) since the latest gyroscope reading; infinite before the first one.
    private var sinceGyro: Double = .infinity

    /// cos(settings.stillAngle), cached for the per-sample comparison.
    private var stillCosine: Double

    public init(settings: MotionSettings = MotionSettings()) {
        _settings = settings.validated()
        stillCosine = cos(_settings.stillAngle)
    }

    /// Settings (validated on assignment). Changing them keeps the attitude.
    public var settings: MotionSettings {
        get { _settings }
        set {
            _settings = newValue.validated()
            stillCosine = cos(_settings.stillAngle)
        }
    }

    /// Forgets the attitude; the next plausible accelerometer reading initialises it again.
    public mutating func reset() {
        self = AttitudeFilter(settings: _settings)
    }

    /// The accelerometer gain (1/s) now, before still re-anchoring: the start-up ramp, then `filterGain`.
    public var rampedGain: Double {
        let s = _settings
        guard s.startupPeriod > 0, sinceStart < s.startupPeriod else { return s.filterGain }
        return s.startupGain + (s.filterGain - s.startupGain) * (sinceStart / s.startupPeriod)
    }

    /// One update where both readings (either may be nil) cover the same interval `dt` (s).
    public mutating func update(accel: Vector3?, gyro: Vector3?, dt: Double) {
        update(accel: accel, accelInterval: dt, gyro: gyro, gyroInterval: dt)
    }

    /// One update with separate intervals (s): `gyroInterval` is the time the gyroscope reading
    /// is integrated over (0 = don't integrate), `accelInterval` the time the accelerometer
    /// correction covers (0 = no correction). Non-finite or absurd readings are ignored.
    /// - accel: m/s², device frame, direction of gravity. gyro: rad/s, device frame.
    public mutating func update(accel: Vector3?, accelInterval: Double, gyro: Vector3?, gyroInterval: Double) {
        let usable = SensorLimits.usableAccel(accel)
        let gravity = usable.flatMap { SensorLimits.isPlausibleGravity($0) ? $0 : nil }
        let rate = SensorLimits.usableGyro(gyro)

        // Why: before the first plausible gravity reading there is no tilt to integrate from.
        guard isInitialized else {
            if let gravity { initialize(gravity: gravity) }
            return
        }

        // Predict: integrate the gyroscope over its interval.
        var estimate = attitude
        if let rate {
            if gyroInterval > 0, gyroInterval.isFinite {
                estimate = estimate * Quaternion(rotationVector: rate * gyroInterval)
            }
            latestRate = rate.length
            sinceGyro = 0
        } else if usable != nil, accelInterval > 0, accelInterval.isFinite {
            sinceGyro += accelInterval
        }

        // Correct: compare with the accelerometer taken at the same time as the prediction.
        if let gravity, accelInterval > 0, accelInterval.isFinite {
            // Why: an accelerometer-only update still knows whether the device is rotating if
            // the gyroscope spoke recently (sensors delivered in separate samples).
            let knownRate = rate.map { $0.length } ?? (sinceGyro <= _settings.maxGap ? latestRate : nil)
            let c = correction(of: estimate, gravity: gravity, interval: accelInterval, rate: knownRate)
            if c != .zero { estimate = estimate * Quaternion(rotationVector: c) }
            sinceStart += accelInterval
        }

        if estimate != attitude { attitude = estimate.normalized() }
    }

    /// Sets the attitude from a gravity reading with yaw 0: A = Ry(pitch)·Rx(roll), the
    /// roll/pitch that turn the measured up onto earth Z.
    private mutating func initialize(gravity: Vector3) {
        let up = Self.up(fromGravity: gravity)
        let roll = atan2(up.y, up.z)
        let pitch = atan2(-up.x, (up.y * up.y + up.z * up.z).squareRoot())
        attitude = (Quaternion(axis: .unitY, angle: pitch) * Quaternion(axis: .unitX, angle: roll)).normalized()
        isInitialized = true
        sinceStart = 0
    }

    /// THE one place where the accelerometer's sign convention is converted: it reports the
    /// direction of gravity (DESIGN.md), so "up" in the device frame is its negation.
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

    /// Rotation vector (rad, device frame) that turns the estimated up toward the measured one
    /// over `interval` s. `rate` is the known rotation rate (rad/s), nil when unknown.
    private mutating func correction(of estimate: Quaternion, gravity: Vector3, interval: Double, rate: Double?) -> Vector3 {
        let measured = Self.up(fromGravity: gravity)
        let estimated = Self.estimatedUp(estimate)
        let c = measured.cross(estimated)
        let d = measured.dot(estimated)
        let s = c.length  // sin(error)

        var gain = rampedGain
        isStillReanchoring = false
        // error > stillAngle ⇔ cos(error) < cos(stillAngle), both in [0, π]: no atan2 needed.
        if let rate, rate < _settings.stillRate, d < stillCosine, _settings.stillGain > gain {
            gain = _settings.stillGain
            isStillReanchoring = true
        }
        guard gain > 0 else { return .zero }

        let axis: Vector3
        if s > Vector3.directionlessLength {
            axis = c * (1 / s)
        } else if d < 0 {
            // Why: exactly upside down the cross product vanishes; any horizontal axis works
            // (a reference axis not nearly parallel to "up", |x| < 0.9, gives one).
            let helper = abs(measured.x) < 0.9 ? Vector3.unitX : Vector3.unitY
            axis = measured.cross(helper).normalized() ?? .unitX
        } else {
            return .zero
        }
        // Fusion feeds back the cross product (|c| = sin error) and its unit vector beyond 90°.
        let feedback = d >= 0 ? s : 1
        var angle = gain * interval * feedback
        // Why: cap at the error (no overshoot). sin e ≤ e, so below sin e (or π/2 past 90°) the
        // cap cannot bite and the atan2 is skipped; it only matters when gain × interval ≳ 1.
        if angle > (d >= 0 ? s : Double.pi / 2) {
            angle = min(angle, atan2(s, d))
        }
        return axis * angle
    }
}
