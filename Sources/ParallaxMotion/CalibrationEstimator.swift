import Glibc

/// What counts as "lying still" while calibrating. Defaults are generous for consumer MEMS
/// sensors (BMI160: gyro noise ≈ 0.001 rad/s RMS at 100 Hz, zero-rate offset up to ±3 °/s;
/// MPU-6050: offset up to ±20 °/s) and strict for a hand holding the device (≥ 0.1 rad/s).
public struct CalibrationLimits: Sendable, Equatable {
    /// A gyroscope sample this far from the running mean on any axis means the device turned (rad/s).
    public var maxGyroDeviation = 0.15
    /// An accelerometer sample this far from the running mean on any axis means it moved (m/s²;
    /// 1 m/s² ≈ 6° of tilt).
    public var maxAccelDeviation = 1.0
    /// Largest gyroscope standard deviation per axis over the whole run (rad/s).
    public var maxGyroNoise = 0.03
    /// Largest accelerometer standard deviation per axis over the whole run (m/s²).
    public var maxAccelNoise = 0.3
    /// Largest believable bias per axis (rad/s, ≈ 29 °/s, beyond every MEMS data sheet): a larger
    /// steady reading is a steady turn (a turntable), not a bias.
    public var maxGyroBias = 0.5
    /// Samples of a sensor before deviations from its running mean are judged (the mean of
    /// fewer is itself too noisy to judge by).
    public var warmupSamples = 10
    /// Fewest samples of each sensor a result may rest on.
    public var minimumSamples = 10

    public init() {}
}

/// Mean and variance per axis of a stream of vectors, in one pass (Welford's algorithm: no
/// catastrophic cancellation when the mean is large against the spread, as gravity is).
public struct VectorStatistics: Sendable, Equatable {
    public private(set) var count = 0
    public private(set) var mean = Vector3.zero
    /// Sum of squared deviations from the mean, per axis.
    private var squares = Vector3.zero

    public init() {}

    public mutating func add(_ v: Vector3) {
        count += 1
        let before = v - mean
        mean += before / Double(count)
        let after = v - mean
        squares += Vector3(before.x * after.x, before.y * after.y, before.z * after.z)
    }

    /// Sample standard deviation per axis (0 with fewer than two values).
    public var standardDeviation: Vector3 {
        guard count > 1 else { return .zero }
        let n = Double(count - 1)
        return Vector3((squares.x / n).squareRoot(), (squares.y / n).squareRoot(), (squares.z / n).squareRoot())
    }
}

/// The outcome of measuring a still device: biases, noise and the neutral pose (device frame).
public struct CalibrationMeasurement: Sendable, Equatable {
    public var samples: Int
    public var seconds: Double
    public var gyroBias: Vector3
    public var gyroNoise: Vector3
    public var accelMean: Vector3
    public var accelNoise: Vector3
    /// |accelMean| / standard gravity − 1.
    public var accelScaleError: Double

    public init(samples: Int, seconds: Double, gyroBias: Vector3, gyroNoise: Vector3, accelMean: Vector3,
                accelNoise: Vector3, accelScaleError: Double) {
        self.samples = samples
        self.seconds = seconds
        self.gyroBias = gyroBias
        self.gyroNoise = gyroNoise
        self.accelMean = accelMean
        self.accelNoise = accelNoise
        self.accelScaleError = accelScaleError
    }
}

/// Measures gyroscope bias and noise, the accelerometer's mean and noise, from samples of a
/// device lying still, and refuses as soon as the samples say it is not still.
///
/// Pure: samples in, a measurement or an objection out (the daemon words objections for the
/// protocol and for people: CalibrationRefusal.swift). The daemon feeds it from its event loop,
/// `parallaxd --calibrate` without a daemon from its own read loop; both judge alike.
public struct CalibrationEstimator: Sendable {
    /// Why the samples do not make a calibration, with the numbers that say so.
    public enum Objection: Error, Sendable, Equatable {
        /// A gyroscope sample this far (rad/s, largest axis) from the running mean.
        case gyroscopeTurned(deviation: Double)
        /// An accelerometer sample this far (m/s², largest axis) from the running mean.
        case accelerometerMoved(deviation: Double)
        /// No samples at all from that sensor.
        case noAccelerometer
        case noGyroscope
        /// Fewer samples than `CalibrationLimits.minimumSamples` from that sensor.
        case fewAccelerometerSamples(count: Int)
        case fewGyroscopeSamples(count: Int)
        /// Spread over the run (largest axis's standard deviation) beyond the limit.
        case gyroscopeNoisy(noise: Double, allowed: Double)
        case accelerometerNoisy(noise: Double, allowed: Double)
        /// A steady reading larger than any bias: a steady turn.
        case gyroscopeTurning(rate: Double, allowed: Double)
        /// |mean acceleration| (m/s²) too far from standard gravity `expected`.
        case implausibleGravity(reading: Double, expected: Double)
    }

    public let limits: CalibrationLimits
    public private(set) var gyro = VectorStatistics()
    public private(set) var accel = VectorStatistics()
    public private(set) var firstTime: Int64?
    public private(set) var lastTime: Int64?

    public init(limits: CalibrationLimits = CalibrationLimits()) {
        self.limits = limits
    }

    /// Time covered by the samples so far (ns).
    public var elapsed: Int64 {
        guard let firstTime, let lastTime else { return 0 }
        return lastTime - firstTime
    }

    /// Takes one sample; an objection when it shows the device moving (the run is over then).
    public mutating func observe(_ sample: Sample) -> Objection? {
        if firstTime == nil { firstTime = sample.t }
        lastTime = sample.t
        if let g = sample.gyro, g.isFinite {
            if gyro.count >= limits.warmupSamples {
                let deviation = Self.largestComponent(g - gyro.mean)
                if deviation > limits.maxGyroDeviation {
                    return .gyroscopeTurned(deviation: deviation)
                }
            }
            gyro.add(g)
        }
        if let a = sample.accel, a.isFinite {
            if accel.count >= limits.warmupSamples {
                let deviation = Self.largestComponent(a - accel.mean)
                if deviation > limits.maxAccelDeviation {
                    return .accelerometerMoved(deviation: deviation)
                }
            }
            accel.add(a)
        }
        return nil
    }

    /// The measurement, or why the samples do not make one.
    public func estimate() -> Result<CalibrationMeasurement, Objection> {
        guard accel.count >= limits.minimumSamples else {
            return .failure(accel.count == 0 ? .noAccelerometer : .fewAccelerometerSamples(count: accel.count))
        }
        guard gyro.count >= limits.minimumSamples else {
            return .failure(gyro.count == 0 ? .noGyroscope : .fewGyroscopeSamples(count: gyro.count))
        }
        let gyroNoise = gyro.standardDeviation
        let accelNoise = accel.standardDeviation
        if Self.largestComponent(gyroNoise) > limits.maxGyroNoise {
            return .failure(.gyroscopeNoisy(noise: Self.largestComponent(gyroNoise), allowed: limits.maxGyroNoise))
        }
        if Self.largestComponent(accelNoise) > limits.maxAccelNoise {
            return .failure(.accelerometerNoisy(noise: Self.largestComponent(accelNoise), allowed: limits.maxAccelNoise))
        }
        if Self.largestComponent(gyro.mean) > limits.maxGyroBias {
            return .failure(.gyroscopeTurning(rate: Self.largestComponent(gyro.mean), allowed: limits.maxGyroBias))
        }
        let gravity = accel.mean.length
        let g = SensorLimits.standardGravity
        guard gravity >= SensorLimits.plausibleGravityLow * g, gravity <= SensorLimits.plausibleGravityHigh * g else {
            return .failure(.implausibleGravity(reading: gravity, expected: g))
        }
        return .success(CalibrationMeasurement(
            samples: max(gyro.count, accel.count), seconds: Double(elapsed) / 1e9,
            gyroBias: gyro.mean, gyroNoise: gyroNoise, accelMean: accel.mean, accelNoise: accelNoise,
            accelScaleError: gravity / g - 1))
    }

    public static func largestComponent(_ v: Vector3) -> Double {
        max(abs(v.x), abs(v.y), abs(v.z))
    }
}
