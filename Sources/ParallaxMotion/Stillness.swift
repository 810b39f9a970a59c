// Whether the device lies still, and the test that notices the first sample of a new motion
// (docs/power.md). The daemon slows its sensors down while the device rests; the capture thread
// then checks every slow sample with a copy of this value and wakes everything at the first one
// that moves.

/// Stillness of the raw sensor stream: how long the device has stayed within tolerances of the
/// mean of the samples since it came to rest.
///
/// Why a running mean and not the engine's idle detector: the test runs on the capture thread,
/// per sample, before the engine sees anything, and must be a few comparisons. The mean of the
/// still samples is a better reference than any single one (noise), and it is not a moving
/// average: one that followed the samples would follow a slow deliberate tilt too, and never
/// notice it. Why also the integrated gyroscope: a slow turn stays under `gyroscopeTolerance`
/// sample by sample, but its angle grows, and the angle is what moves the layers.
public struct Stillness: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// m/s²: an accelerometer reading this far from the still mean is motion. 0.15 m/s² is a
        /// 0.9° tilt at 1 g, under the 1.35° that moves the offset by the minimum change (0.015 of
        /// a 90° saturation angle); accelerometer noise is ≈ 0.01–0.03 m/s² rms.
        public var accelerometerTolerance: Double
        /// rad/s: a gyroscope reading this far from the still mean is motion. 0.05 rad/s ≈ 2.9°/s,
        /// just under Fusion's stationary threshold (3°/s); gyroscope noise is ≈ 0.001–0.005 rad/s rms.
        public var gyroscopeTolerance: Double
        /// rad: the gyroscope's deviation from the still mean, integrated since rest began, this
        /// large is motion (a slow turn). 0.5°, a third of what moves the offset by the minimum change.
        public var angleTolerance: Double
        /// Samples in the still mean at most: beyond it the mean keeps this weight, so that a
        /// bias that drifts over hours is followed (slowly) instead of frozen.
        public var meanWindow: Int

        public static let defaultAccelerometerTolerance = 0.15
        public static let defaultGyroscopeTolerance = 0.05
        public static let defaultAngleTolerance = 0.5 * Double.pi / 180
        public static let defaultMeanWindow = 1000

        public init(accelerometerTolerance: Double = Settings.defaultAccelerometerTolerance,
                    gyroscopeTolerance: Double = Settings.defaultGyroscopeTolerance,
                    angleTolerance: Double = Settings.defaultAngleTolerance,
                    meanWindow: Int = Settings.defaultMeanWindow) {
            self.accelerometerTolerance = accelerometerTolerance
            self.gyroscopeTolerance = gyroscopeTolerance
            self.angleTolerance = angleTolerance
            self.meanWindow = meanWindow
        }

        /// How many quanta a tolerance spans at least: a device that reports only steps of its
        /// quantum (the kernel's evdev fuzz filter passes a step of one fuzz, and smooths it) must
        /// not read as moving on a single step of noise.
        public static let quantaPerTolerance = 4.0

        /// These settings with each tolerance at least `quantaPerTolerance` of the sensor's
        /// quantum (SI units, 0: none); the defaults stay where they are larger (a Steam Deck's
        /// 0.02 m/s² and 0.001 rad/s are far below them). Non-finite quanta change nothing.
        public func coarsened(accelerometerQuantum: Double, gyroscopeQuantum: Double) -> Settings {
            var s = self
            if accelerometerQuantum.isFinite {
                s.accelerometerTolerance = max(accelerometerTolerance, Self.quantaPerTolerance * accelerometerQuantum)
            }
            if gyroscopeQuantum.isFinite {
                s.gyroscopeTolerance = max(gyroscopeTolerance, Self.quantaPerTolerance * gyroscopeQuantum)
            }
            return s
        }
    }

    public let settings: Settings
    /// Mean accelerometer and gyroscope readings since the device came to rest (nil before any).
    private(set) var accelerometerMean: Vector3?
    private(set) var gyroscopeMean: Vector3?
    private var accelerometerCount = 0
    private var gyroscopeCount = 0
    /// The gyroscope's deviation from its mean, integrated since rest began (rad).
    private var turned = Vector3(0, 0, 0)
    /// Time (monotonic ns) of the first still sample; 0 before any.
    public private(set) var since: Int64 = 0
    /// Time (monotonic ns) of the last gyroscope reading; 0 before any. Why its own: with the
    /// sensors in separate samples (a polled accelerometer beside a buffered gyroscope) a
    /// reading's interval is since the gyroscope's previous one, not since the accelerometer's.
    private var lastGyro: Int64 = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// How long (s) the device has been still at `time` (monotonic ns); 0 before any sample.
    public func stillFor(at time: Int64) -> Double {
        since > 0 && time > since ? Double(time - since) / 1e9 : 0
    }

    /// Takes one sample; true when it moved (it is then the first sample of a new still period).
    /// Non-finite readings are ignored: they say nothing about motion.
    @discardableResult
    public mutating func observe(_ sample: Sample) -> Bool {
        let accel = sample.accel.flatMap { $0.isFinite ? $0 : nil }
        let gyro = sample.gyro.flatMap { $0.isFinite ? $0 : nil }
        guard accel != nil || gyro != nil else { return false }
        // Longest step (s) integrated: a pause in the samples is not a turn.
        var dt = 0.0
        if gyro != nil {
            dt = lastGyro > 0 && sample.t > lastGyro ? min(Double(sample.t - lastGyro) / 1e9, 0.25) : 0
            lastGyro = max(lastGyro, sample.t)
        }
        var moved = false
        if let accel, let mean = accelerometerMean, (accel - mean).length > settings.accelerometerTolerance {
            moved = true
        }
        if let gyro, let mean = gyroscopeMean {
            let deviation = gyro - mean
            turned += deviation * dt
            if deviation.length > settings.gyroscopeTolerance || turned.length > settings.angleTolerance {
                moved = true
            }
        }
        if moved || since == 0 {
            // A new still period starts with this sample as its whole mean.
            accelerometerMean = nil
            gyroscopeMean = nil
            accelerometerCount = 0
            gyroscopeCount = 0
            turned = Vector3(0, 0, 0)
            since = sample.t
        }
        if let accel { Self.include(accel, in: &accelerometerMean, count: &accelerometerCount, window: settings.meanWindow) }
        if let gyro { Self.include(gyro, in: &gyroscopeMean, count: &gyroscopeCount, window: settings.meanWindow) }
        return moved
    }

    private static func include(_ v: Vector3, in mean: inout Vector3?, count: inout Int, window: Int) {
        count = min(count + 1, max(1, window))
        guard let m = mean else { mean = v; return }
        mean = m + (v - m) / Double(count)
    }
}
