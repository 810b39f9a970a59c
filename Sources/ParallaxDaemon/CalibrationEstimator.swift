import Glibc
import ParallaxMotion
import ParallaxProtocol

/// What counts as "lying still" while calibrating. Defaults are generous for consumer MEMS
/// sensors (BMI160: gyro noise ≈ 0.001 rad/s RMS at 100 Hz, zero-rate offset up to ±3 °/s;
/// MPU-6050: offset up to ±20 °/s) and strict for a hand holding the device (≥ 0.1 rad/s).
struct CalibrationLimits: Sendable, Equatable {
    /// A gyroscope sample this far from the running mean on any axis means the device turned (rad/s).
    var maxGyroDeviation = 0.15
    /// An accelerometer sample this far from the running mean on any axis means it moved (m/s²;
    /// 1 m/s² ≈ 6° of tilt).
    var maxAccelDeviation = 1.0
    /// Largest gyroscope standard deviation per axis over the whole run (rad/s).
    var maxGyroNoise = 0.03
    /// Largest accelerometer standard deviation per axis over the whole run (m/s²).
    var maxAccelNoise = 0.3
    /// Largest believable bias per axis (rad/s, ≈ 29 °/s, beyond every MEMS data sheet): a larger
    /// steady reading is a steady turn (a turntable), not a bias.
    var maxGyroBias = 0.5
    /// Samples of a sensor before deviations from its running mean are judged (the mean of
    /// fewer is itself too noisy to judge by).
    var warmupSamples = 10
    /// Fewest samples of each sensor a result may rest on.
    var minimumSamples = 10
}

/// A refusal to calibrate: which kind (for the protocol) and why (for a person).
struct CalibrationRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    var failure: CalibrationFailure
    var message: String
    var description: String { message }
}

/// Mean and variance per axis of a stream of vectors, in one pass (Welford's algorithm: no
/// catastrophic cancellation when the mean is large against the spread, as gravity is).
struct VectorStatistics: Sendable, Equatable {
    private(set) var count = 0
    private(set) var mean = Vector3.zero
    /// Sum of squared deviations from the mean, per axis.
    private var squares = Vector3.zero

    mutating func add(_ v: Vector3) {
        count += 1
        let before = v - mean
        mean += before / Double(count)
        let after = v - mean
        squares += Vector3(before.x * after.x, before.y * after.y, before.z * after.z)
    }

    /// Sample standard deviation per axis (0 with fewer than two values).
    var standardDeviation: Vector3 {
        guard count > 1 else { return .zero }
        let n = Double(count - 1)
        return Vector3((squares.x / n).squareRoot(), (squares.y / n).squareRoot(), (squares.z / n).squareRoot())
    }
}

/// The outcome of measuring a still device: biases, noise and the neutral pose (device frame).
struct CalibrationMeasurement: Sendable, Equatable {
    var samples: Int
    var seconds: Double
    var gyroBias: Vector3
    var gyroNoise: Vector3
    var accelMean: Vector3
    var accelNoise: Vector3
    /// |accelMean| / standard gravity − 1.
    var accelScaleError: Double

    /// The protocol's form, with the file it was written to.
    func report(file: String) -> CalibrationResult {
        func v(_ a: Vector3) -> CalibrationVector { CalibrationVector(a.x, a.y, a.z) }
        return CalibrationResult(samples: samples, seconds: seconds, gyroBias: v(gyroBias), gyroNoise: v(gyroNoise),
                                 accelMean: v(accelMean), accelNoise: v(accelNoise),
                                 accelScaleError: accelScaleError, file: file)
    }
}

/// Measures gyroscope bias and noise, the accelerometer's mean and noise, from samples of a
/// device lying still, and refuses as soon as the samples say it is not still.
///
/// Pure: samples in, a measurement or a refusal out. The daemon feeds it from its event loop,
/// `parallaxd --calibrate` without a daemon from its own read loop; both judge alike.
struct CalibrationEstimator: Sendable {
    let limits: CalibrationLimits
    private(set) var gyro = VectorStatistics()
    private(set) var accel = VectorStatistics()
    private(set) var firstTime: Int64?
    private(set) var lastTime: Int64?

    init(limits: CalibrationLimits = CalibrationLimits()) {
        self.limits = limits
    }

    /// Time covered by the samples so far (ns).
    var elapsed: Int64 {
        guard let firstTime, let lastTime else { return 0 }
        return lastTime - firstTime
    }

    /// Takes one sample; a refusal when it shows the device moving (the run is over then).
    mutating func add(_ sample: Sample) -> CalibrationRefusal? {
        if firstTime == nil { firstTime = sample.t }
        lastTime = sample.t
        if let g = sample.gyro, g.isFinite {
            if gyro.count >= limits.warmupSamples {
                let deviation = Self.largestComponent(g - gyro.mean)
                if deviation > limits.maxGyroDeviation {
                    return CalibrationRefusal(failure: .moved, message: "the device moved: the gyroscope turned at \(fixed(deviation, 2)) rad/s "
                        + "(\(fixed(deviation * Self.degreesPerRadian, 0))°/s) against its resting value; "
                        + "lay it on a table and keep it still while calibrating")
                }
            }
            gyro.add(g)
        }
        if let a = sample.accel, a.isFinite {
            if accel.count >= limits.warmupSamples {
                let deviation = Self.largestComponent(a - accel.mean)
                if deviation > limits.maxAccelDeviation {
                    return CalibrationRefusal(failure: .moved, message: "the device moved: the accelerometer changed by \(fixed(deviation, 2)) m/s² against its "
                        + "resting value; lay it on a table and keep it still while calibrating")
                }
            }
            accel.add(a)
        }
        return nil
    }

    /// The measurement, or why the samples do not make one.
    func finish() -> Result<CalibrationMeasurement, CalibrationRefusal> {
        guard accel.count >= limits.minimumSamples else {
            return .failure(CalibrationRefusal(failure: accel.count == 0 ? .missingSensor : .noSamples, message: accel.count == 0
                ? "no accelerometer samples: is there an accelerometer?"
                : "only \(accel.count) accelerometer samples; the sensor delivers too slowly"))
        }
        guard gyro.count >= limits.minimumSamples else {
            return .failure(CalibrationRefusal(failure: gyro.count == 0 ? .missingSensor : .noSamples, message: gyro.count == 0
                ? "no gyroscope samples: this device has no gyroscope to calibrate"
                : "only \(gyro.count) gyroscope samples; the sensor delivers too slowly"))
        }
        let gyroNoise = gyro.standardDeviation
        let accelNoise = accel.standardDeviation
        if Self.largestComponent(gyroNoise) > limits.maxGyroNoise {
            return .failure(CalibrationRefusal(failure: .moved, message: "the device was not still: the gyroscope varied by \(fixed(Self.largestComponent(gyroNoise), 3)) rad/s "
                + "(allowed \(fixed(limits.maxGyroNoise, 3))); keep it still and try again"))
        }
        if Self.largestComponent(accelNoise) > limits.maxAccelNoise {
            return .failure(CalibrationRefusal(failure: .moved, message: "the device was not still: the accelerometer varied by \(fixed(Self.largestComponent(accelNoise), 2)) m/s² "
                + "(allowed \(fixed(limits.maxAccelNoise, 2))); keep it still and try again"))
        }
        if Self.largestComponent(gyro.mean) > limits.maxGyroBias {
            return .failure(CalibrationRefusal(failure: .moved, message: "the gyroscope reads a steady \(fixed(Self.largestComponent(gyro.mean), 2)) rad/s, more than any "
                + "bias (\(fixed(limits.maxGyroBias, 2))): the device is turning"))
        }
        let gravity = accel.mean.length
        let g = SensorLimits.standardGravity
        guard gravity >= SensorLimits.plausibleGravityLow * g, gravity <= SensorLimits.plausibleGravityHigh * g else {
            return .failure(CalibrationRefusal(failure: .implausible, message: "the accelerometer reads \(fixed(gravity, 2)) m/s² at rest, not gravity "
                + "(\(fixed(g, 2))): check in_accel_scale"))
        }
        return .success(CalibrationMeasurement(
            samples: max(gyro.count, accel.count), seconds: Double(elapsed) / 1e9,
            gyroBias: gyro.mean, gyroNoise: gyroNoise, accelMean: accel.mean, accelNoise: accelNoise,
            accelScaleError: gravity / g - 1))
    }

    static let degreesPerRadian = 180 / Double.pi

    private func fixed(_ x: Double, _ decimals: Int) -> String { FixedDecimal.text(x, decimals: decimals) }

    static func largestComponent(_ v: Vector3) -> Double {
        max(abs(v.x), abs(v.y), abs(v.z))
    }
}
