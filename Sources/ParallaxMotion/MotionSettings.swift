// Tunables of the motion engine, each with a named default and its unit (style of Fusion's FusionAhrs.c).
// Why these defaults: docs/motion.md. Fusion's where the filter is concerned, iOS's for the offset.

/// Settings of `MotionEngine` and `AttitudeFilter`. Out-of-range values are replaced by the
/// defaults in `validated()`, which the engine and filter apply, so no setting can produce NaN.
public struct MotionSettings: Sendable, Equatable {
    // MARK: Output

    /// How the offset is derived. Default `.attitude`.
    public var mode: MotionMode
    /// Attitude mode: tilt (rad) that gives a full offset of ±1. Default π/2 (90°, as iOS). Must be > 0.
    public var saturationAngle: Double
    /// Multiplier (dimensionless) on the offset before clamping, both modes. Default 1 (iOS). Must be ≥ 0.
    public var sensitivity: Double
    /// Attitude mode: slowly turn the reference toward the current pose (iOS re-centring). Default true.
    public var recenter: Bool
    /// Smallest change (offset units, on x or y) since the last emitted frame that emits a new one.
    /// Default 0.015 (iOS skips smaller changes). Must be ≥ 0.
    public var minimumChange: Double
    /// Attitude mode: iOS's directional lock (a mostly horizontal motion holds the vertical offset
    /// and vice versa). Default true (iOS).
    public var directionalLock: Bool

    // MARK: Attitude filter (x-io Fusion)

    /// Accelerometer correction gain, rad/s of correction per rad of tilt error (1/s). Default 0.5 (Fusion).
    public var filterGain: Double
    /// Gain (1/s) at start-up, ramping linearly down to `filterGain` over `startupPeriod`. Default 10 (Fusion).
    public var startupGain: Double
    /// Length of the start-up gain ramp, s of accelerometer time. Default 3 (Fusion).
    public var startupPeriod: Double
    /// Learn the gyroscope bias while the device is still (Fusion's FusionBias). Default true.
    public var biasEstimation: Bool
    /// The device counts as stationary while every bias-corrected gyroscope axis stays under this
    /// rate (rad/s). Default 3°/s (Fusion's stationary threshold).
    public var stationaryRate: Double
    /// Stationary time (s) before the bias estimate starts to follow the gyroscope. Default 3 (Fusion).
    public var stationaryPeriod: Double
    /// Corner frequency (Hz) of the bias estimate's low-pass (high-pass on the gyroscope). Default 0.02 (Fusion).
    public var biasCutoff: Double
    /// Acceleration rejection threshold (rad): after start-up, accelerometer readings disagreeing
    /// with the attitude by more than this are ignored, unless in recovery. 0 = off. Default 0
    /// (Fusion's default; Fusion suggests 10° where sustained accelerations are expected).
    public var accelerationRejection: Double
    /// Acceleration rejection: rejecting for most of this long (s) starts a recovery in which the
    /// accelerometer is used again until agreement returns (Fusion's rejection timeout). Default 5.
    public var rejectionTimeout: Double
    /// Gyroscope full-scale range (rad/s); a reading beyond 98 % of it restarts the start-up ramp
    /// (Fusion's angular-rate recovery). 0 = unknown, off. Default 0 (Fusion).
    public var gyroscopeRange: Double
    /// Still re-anchoring: gain (1/s) used while stationary and the accelerometer disagrees with the
    /// attitude by more than `stillAngle`, until the disagreement falls under `stillSettleAngle`. Default 5.
    public var stillGain: Double
    /// Still re-anchoring starts beyond this disagreement (rad). Default 5°.
    public var stillAngle: Double
    /// Still re-anchoring stops under this disagreement (rad). Default 1°.
    public var stillSettleAngle: Double
    /// Still re-anchoring needs the device stationary for at least this long (s). Default 0.5.
    public var stillTime: Double
    /// Gain (1/s) when there is no gyroscope (none, or silent for longer than `maxGap`): the
    /// attitude then follows gravity alone. Default 5 (time constant 0.2 s).
    public var accelerometerOnlyGain: Double
    /// Longest interval (s) between samples that is integrated; longer ones are gaps (gyroscope not
    /// integrated over them, other time steps clamped to this). Default 0.2.
    public var maxGap: Double

    // MARK: Rate mode (DVParallaxView)

    /// Rate mode: rotation rates (rad/s, per axis) below this contribute nothing. Default 0.1 (DVParallaxView).
    public var rateThreshold: Double
    /// Rate mode: offset per rad of rotation (1/rad). Default 1.0, derived in `defaultRateGain`.
    public var rateGain: Double
    /// Rate mode: exponential decay rate (1/s) of the offset toward 0; 0 = off. Default 0.5.
    public var rateReturn: Double

    public static let defaultMode: MotionMode = .attitude
    /// rad; 90° (iOS).
    public static let defaultSaturationAngle = Double.pi / 2
    public static let defaultSensitivity = 1.0
    public static let defaultRecenter = true
    /// offset units; iOS skips view updates under 0.015 (docs/motion.md "Background").
    public static let defaultMinimumChange = 0.015
    public static let defaultDirectionalLock = true
    /// 1/s; Fusion's default gain.
    public static let defaultFilterGain = 0.5
    /// 1/s; Fusion's initial start-up gain.
    public static let defaultStartupGain = 10.0
    /// s; Fusion's start-up period.
    public static let defaultStartupPeriod = 3.0
    public static let defaultBiasEstimation = true
    /// rad/s; Fusion's 3°/s stationary threshold.
    public static let defaultStationaryRate = 3 * Double.pi / 180
    /// s; Fusion's stationary period.
    public static let defaultStationaryPeriod = 3.0
    /// Hz; Fusion's bias high-pass cutoff (time constant 1/(2π·0.02) ≈ 8 s).
    public static let defaultBiasCutoff = 0.02
    /// rad; off, as Fusion's default.
    public static let defaultAccelerationRejection = 0.0
    /// s; Fusion's suggested rejection timeout.
    public static let defaultRejectionTimeout = 5.0
    /// rad/s; unknown (angular-rate recovery off), as Fusion's default.
    public static let defaultGyroscopeRange = 0.0
    /// 1/s; a 30° disagreement is under 1° in ≈0.7 s.
    public static let defaultStillGain = 5.0
    /// rad; 5°, above what normal handling leaves behind (≈3° after hard shaking in the NGIMU
    /// recording), so re-anchoring only fixes rotations the gyroscope missed.
    public static let defaultStillAngle = 5 * Double.pi / 180
    /// rad; 1°, above a resting accelerometer's tilt noise.
    public static let defaultStillSettleAngle = 1 * Double.pi / 180
    /// s; long enough that the turning points of a hand motion (rate crossing 0) never count.
    public static let defaultStillTime = 0.5
    /// 1/s; smooths accelerometer noise over ≈0.2 s, still quick enough to feel direct.
    public static let defaultAccelerometerOnlyGain = 5.0
    /// s; 5 periods of a 25 Hz sensor.
    public static let defaultMaxGap = 0.2
    /// rad/s; DVParallaxView's rotation threshold.
    public static let defaultRateThreshold = 0.1

    /// DVParallaxView adds rotationRate × this many points per display frame (no dt).
    public static let dvParallaxPointsPerFrame = 2.5
    /// Display-link rate (Hz) DVParallaxView's multiplier was tuned at.
    public static let dvParallaxFrameRate = 60.0
    /// Travel (points) taken to be a full offset of 1 when normalising DVParallaxView's multiplier:
    /// the contentOffset one radian of turning produces (docs/motion.md, "Rate mode").
    public static let rateReferenceTravel = 150.0
    /// Rate-mode gain (1/rad). DVParallaxView moves 2.5 points per 60 Hz frame per rad/s, i.e.
    /// 2.5 × 60 = 150 points/s per rad/s = 150 points per rad of rotation. Dividing by the reference
    /// travel of 150 points (= full offset) gives 1.0 offset per rad: about 57° of turning, faster
    /// than the threshold, moves the offset from 0 to 1. Integrated with real dt, not per frame.
    public static let defaultRateGain = dvParallaxPointsPerFrame * dvParallaxFrameRate / rateReferenceTravel
    /// 1/s; the offset halves in ln 2 / 0.5 ≈ 1.4 s once rotation stops.
    public static let defaultRateReturn = 0.5

    public init(
        mode: MotionMode = MotionSettings.defaultMode,
        saturationAngle: Double = MotionSettings.defaultSaturationAngle,
        sensitivity: Double = MotionSettings.defaultSensitivity,
        recenter: Bool = MotionSettings.defaultRecenter,
        minimumChange: Double = MotionSettings.defaultMinimumChange,
        directionalLock: Bool = MotionSettings.defaultDirectionalLock,
        filterGain: Double = MotionSettings.defaultFilterGain,
        startupGain: Double = MotionSettings.defaultStartupGain,
        startupPeriod: Double = MotionSettings.defaultStartupPeriod,
        biasEstimation: Bool = MotionSettings.defaultBiasEstimation,
        stationaryRate: Double = MotionSettings.defaultStationaryRate,
        stationaryPeriod: Double = MotionSettings.defaultStationaryPeriod,
        biasCutoff: Double = MotionSettings.defaultBiasCutoff,
        accelerationRejection: Double = MotionSettings.defaultAccelerationRejection,
        rejectionTimeout: Double = MotionSettings.defaultRejectionTimeout,
        gyroscopeRange: Double = MotionSettings.defaultGyroscopeRange,
        stillGain: Double = MotionSettings.defaultStillGain,
        stillAngle: Double = MotionSettings.defaultStillAngle,
        stillSettleAngle: Double = MotionSettings.defaultStillSettleAngle,
        stillTime: Double = MotionSettings.defaultStillTime,
        accelerometerOnlyGain: Double = MotionSettings.defaultAccelerometerOnlyGain,
        maxGap: Double = MotionSettings.defaultMaxGap,
        rateThreshold: Double = MotionSettings.defaultRateThreshold,
        rateGain: Double = MotionSettings.defaultRateGain,
        rateReturn: Double = MotionSettings.defaultRateReturn
    ) {
        self.mode = mode
        self.saturationAngle = saturationAngle
        self.sensitivity = sensitivity
        self.recenter = recenter
        self.minimumChange = minimumChange
        self.directionalLock = directionalLock
        self.filterGain = filterGain
        self.startupGain = startupGain
        self.startupPeriod = startupPeriod
        self.biasEstimation = biasEstimation
        self.stationaryRate = stationaryRate
        self.stationaryPeriod = stationaryPeriod
        self.biasCutoff = biasCutoff
        self.accelerationRejection = accelerationRejection
        self.rejectionTimeout = rejectionTimeout
        self.gyroscopeRange = gyroscopeRange
        self.stillGain = stillGain
        self.stillAngle = stillAngle
        self.stillSettleAngle = stillSettleAngle
        self.stillTime = stillTime
        self.accelerometerOnlyGain = accelerometerOnlyGain
        self.maxGap = maxGap
        self.rateThreshold = rateThreshold
        self.rateGain = rateGain
        self.rateReturn = rateReturn
    }

    /// A copy with every non-finite or out-of-range value replaced by its default: saturation
    /// angle and max gap must be > 0; angles at most π (rejection at most π/2); the settle angle at
    /// most the still angle; the others ≥ 0.
    public func validated() -> MotionSettings {
        func positive(_ v: Double, _ d: Double) -> Double { v.isFinite && v > 0 ? v : d }
        func nonNegative(_ v: Double, _ d: Double) -> Double { v.isFinite && v >= 0 ? v : d }
        func angle(_ v: Double, _ d: Double, max: Double = .pi) -> Double { v.isFinite && v >= 0 && v <= max ? v : d }
        var s = self
        s.saturationAngle = positive(saturationAngle, Self.defaultSaturationAngle)
        s.sensitivity = nonNegative(sensitivity, Self.defaultSensitivity)
        s.minimumChange = nonNegative(minimumChange, Self.defaultMinimumChange)
        s.filterGain = nonNegative(filterGain, Self.defaultFilterGain)
        s.startupGain = nonNegative(startupGain, Self.defaultStartupGain)
        s.startupPeriod = nonNegative(startupPeriod, Self.defaultStartupPeriod)
        s.stationaryRate = nonNegative(stationaryRate, Self.defaultStationaryRate)
        s.stationaryPeriod = nonNegative(stationaryPeriod, Self.defaultStationaryPeriod)
        s.biasCutoff = nonNegative(biasCutoff, Self.defaultBiasCutoff)
        s.accelerationRejection = angle(accelerationRejection, Self.defaultAccelerationRejection, max: .pi / 2)
        s.rejectionTimeout = nonNegative(rejectionTimeout, Self.defaultRejectionTimeout)
        s.gyroscopeRange = nonNegative(gyroscopeRange, Self.defaultGyroscopeRange)
        s.stillGain = nonNegative(stillGain, Self.defaultStillGain)
        s.stillAngle = angle(stillAngle, Self.defaultStillAngle)
        s.stillSettleAngle = angle(stillSettleAngle, Self.defaultStillSettleAngle)
        if s.stillSettleAngle > s.stillAngle { s.stillSettleAngle = s.stillAngle }
        s.stillTime = nonNegative(stillTime, Self.defaultStillTime)
        s.accelerometerOnlyGain = nonNegative(accelerometerOnlyGain, Self.defaultAccelerometerOnlyGain)
        s.maxGap = positive(maxGap, Self.defaultMaxGap)
        s.rateThreshold = nonNegative(rateThreshold, Self.defaultRateThreshold)
        s.rateGain = nonNegative(rateGain, Self.defaultRateGain)
        s.rateReturn = nonNegative(rateReturn, Self.defaultRateReturn)
        return s
    }
}
