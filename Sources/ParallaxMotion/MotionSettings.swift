// Tunables of the motion engine, each with a named default and its unit (style of Fusion's FusionAhrs.c).

/// Settings of `MotionEngine` and `AttitudeFilter`. Out-of-range values are replaced by the
/// defaults in `validated()`, which the engine and filter apply, so no setting can produce NaN.
public struct MotionSettings: Sendable, Equatable {
    // MARK: Output

    /// How the offset is derived. Default `.attitude`.
    public var mode: MotionMode
    /// Attitude mode: tilt (rad) that gives a full offset of ±1. Default π/2 (90°, as iOS). Must be > 0.
    public var saturationAngle: Double
    /// Multiplier (dimensionless) on the offset before clamping, both modes. Default 1. Must be ≥ 0.
    public var sensitivity: Double
    /// Attitude mode: slowly turn the reference toward the current pose (iOS re-centring). Default true.
    public var recenter: Bool
    /// Smallest change (offset units, on x or y) since the last emitted frame that emits a new one.
    /// Default 0.001. Must be ≥ 0.
    public var minimumChange: Double

    // MARK: Attitude filter (x-io Fusion style)

    /// Accelerometer correction gain, rad/s of correction per rad of tilt error (1/s). Default 0.5 (Fusion).
    public var filterGain: Double
    /// Gain (1/s) at start-up, ramping linearly down to `filterGain` over `startupPeriod`. Default 10 (Fusion).
    public var startupGain: Double
    /// Length of the start-up gain ramp, s. Default 3 (Fusion).
    public var startupPeriod: Double
    /// Still re-anchoring: below this gyro rate (rad/s) the device counts as not rotating. Default 0.05.
    public var stillRate: Double
    /// Still re-anchoring: gain (1/s) used while not rotating and the accelerometer disagrees with
    /// the estimate by more than `stillAngle`. Default 5.
    public var stillGain: Double
    /// Still re-anchoring: disagreement (rad) between measured and estimated up beyond which the
    /// faster gain applies. Default 2° (0.0349 rad).
    public var stillAngle: Double
    /// Longest interval (s) between samples that is integrated; longer ones are gaps (gyro not
    /// integrated over them, other time steps clamped to this). Default 0.2.
    public var maxGap: Double

    // MARK: Rate mode (DVParallaxView style)

    /// Rate mode: rotation rates (rad/s, per axis) below this contribute nothing. Default 0.1 (DVParallaxView).
    public var rateThreshold: Double
    /// Rate mode: offset per rad of rotation (1/rad). Default 1.0, derived in `defaultRateGain`.
    public var rateGain: Double
    /// Rate mode: exponential decay rate (1/s) of the offset toward 0; 0 = off. Default 0.5.
    public var rateReturn: Double

    public static let defaultMode: MotionMode = .attitude
    /// rad; 90°.
    public static let defaultSaturationAngle = Double.pi / 2
    public static let defaultSensitivity = 1.0
    public static let defaultRecenter = true
    /// offset units; well below the 0.015 iOS skips, fine enough for 4-decimal wire output.
    public static let defaultMinimumChange = 0.001
    /// 1/s; Fusion's FUSION_AHRS_DEFAULT gain.
    public static let defaultFilterGain = 0.5
    /// 1/s; Fusion's initial gain.
    public static let defaultStartupGain = 10.0
    /// s; Fusion's initialisation period.
    public static let defaultStartupPeriod = 3.0
    /// rad/s (≈2.9°/s), above typical gyro noise and bias, below any deliberate motion.
    public static let defaultStillRate = 0.05
    /// 1/s; a 30° disagreement falls below 2° in ≈0.55 s.
    public static let defaultStillGain = 5.0
    /// rad; 2°, above tilt noise of a resting accelerometer and the ≈0.9° settling error of a
    /// 0.5°/s gyro bias at gain 0.5 (MOTION.md).
    public static let defaultStillAngle = 2.0 * Double.pi / 180
    /// s; 5 periods of a 25 Hz sensor.
    public static let defaultMaxGap = 0.2
    /// rad/s; DVParallaxView's rotation threshold.
    public static let defaultRateThreshold = 0.1

    /// DVParallaxView adds rotationRate × this many points per display frame (no dt).
    public static let dvParallaxPointsPerFrame = 2.5
    /// Display-link rate (Hz) DVParallaxView's multiplier was tuned at.
    public static let dvParallaxFrameRate = 60.0
    /// Travel (points) taken to be a full offset of 1 when normalising DVParallaxView's multiplier.
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
        filterGain: Double = MotionSettings.defaultFilterGain,
        startupGain: Double = MotionSettings.defaultStartupGain,
        startupPeriod: Double = MotionSettings.defaultStartupPeriod,
        stillRate: Double = MotionSettings.defaultStillRate,
        stillGain: Double = MotionSettings.defaultStillGain,
        stillAngle: Double = MotionSettings.defaultStillAngle,
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
        self.filterGain = filterGain
        self.startupGain = startupGain
        self.startupPeriod = startupPeriod
        self.stillRate = stillRate
        self.stillGain = stillGain
        self.stillAngle = stillAngle
        self.maxGap = maxGap
        self.rateThreshold = rateThreshold
        self.rateGain = rateGain
        self.rateReturn = rateReturn
    }

    /// A copy with every non-finite or out-of-range value replaced by its default: saturation
    /// angle and max gap must be > 0; the others ≥ 0.
    public func validated() -> MotionSettings {
        func positive(_ v: Double, _ d: Double) -> Double { v.isFinite && v > 0 ? v : d }
        func nonNegative(_ v: Double, _ d: Double) -> Double { v.isFinite && v >= 0 ? v : d }
        var s = self
        s.saturationAngle = positive(saturationAngle, Self.defaultSaturationAngle)
        s.sensitivity = nonNegative(sensitivity, Self.defaultSensitivity)
        s.minimumChange = nonNegative(minimumChange, Self.defaultMinimumChange)
        s.filterGain = nonNegative(filterGain, Self.defaultFilterGain)
        s.startupGain = nonNegative(startupGain, Self.defaultStartupGain)
        s.startupPeriod = nonNegative(startupPeriod, Self.defaultStartupPeriod)
        s.stillRate = nonNegative(stillRate, Self.defaultStillRate)
        s.stillGain = nonNegative(stillGain, Self.defaultStillGain)
        s.stillAngle = nonNegative(stillAngle, Self.defaultStillAngle)
        s.maxGap = positive(maxGap, Self.defaultMaxGap)
        s.rateThreshold = nonNegative(rateThreshold, Self.defaultRateThreshold)
        s.rateGain = nonNegative(rateGain, Self.defaultRateGain)
        s.rateReturn = nonNegative(rateReturn, Self.defaultRateReturn)
        return s
    }
}
