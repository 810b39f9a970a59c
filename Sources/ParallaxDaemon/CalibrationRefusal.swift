import ParallaxMotion
import ParallaxProtocol

/// A refusal to calibrate: which kind (for the protocol) and why (for a person).
struct CalibrationRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    var failure: CalibrationFailure
    var message: String
    var description: String { message }

    static let degreesPerRadian = 180 / Double.pi

    /// The estimator's objection (ParallaxMotion's CalibrationEstimator), in words.
    init(_ objection: CalibrationEstimator.Objection) {
        func fixed(_ x: Double, _ decimals: Int) -> String { FixedDecimal.text(x, decimals: decimals) }
        switch objection {
        case .gyroscopeTurned(let deviation):
            self.init(failure: .moved, message: "the device moved: the gyroscope turned at \(fixed(deviation, 2)) rad/s "
                + "(\(fixed(deviation * Self.degreesPerRadian, 0))°/s) against its resting value; "
                + "lay it on a table and keep it still while calibrating")
        case .accelerometerMoved(let deviation):
            self.init(failure: .moved, message: "the device moved: the accelerometer changed by \(fixed(deviation, 2)) m/s² against its "
                + "resting value; lay it on a table and keep it still while calibrating")
        case .noAccelerometer:
            self.init(failure: .missingSensor, message: "no accelerometer samples: is there an accelerometer?")
        case .fewAccelerometerSamples(let count):
            self.init(failure: .noSamples, message: "only \(count) accelerometer samples; the sensor delivers too slowly")
        case .noGyroscope:
            self.init(failure: .missingSensor, message: "no gyroscope samples: this device has no gyroscope to calibrate")
        case .fewGyroscopeSamples(let count):
            self.init(failure: .noSamples, message: "only \(count) gyroscope samples; the sensor delivers too slowly")
        case .gyroscopeNoisy(let noise, let allowed):
            self.init(failure: .moved, message: "the device was not still: the gyroscope varied by \(fixed(noise, 3)) rad/s "
                + "(allowed \(fixed(allowed, 3))); keep it still and try again")
        case .accelerometerNoisy(let noise, let allowed):
            self.init(failure: .moved, message: "the device was not still: the accelerometer varied by \(fixed(noise, 2)) m/s² "
                + "(allowed \(fixed(allowed, 2))); keep it still and try again")
        case .gyroscopeTurning(let rate, let allowed):
            self.init(failure: .moved, message: "the gyroscope reads a steady \(fixed(rate, 2)) rad/s, more than any "
                + "bias (\(fixed(allowed, 2))): the device is turning")
        case .implausibleGravity(let reading, let expected):
            self.init(failure: .implausible, message: "the accelerometer reads \(fixed(reading, 2)) m/s² at rest, not gravity "
                + "(\(fixed(expected, 2))): check in_accel_scale")
        }
    }

    init(failure: CalibrationFailure, message: String) {
        self.failure = failure
        self.message = message
    }
}

extension CalibrationEstimator {
    /// Takes one sample; a refusal when it shows the device moving (the run is over then).
    mutating func add(_ sample: Sample) -> CalibrationRefusal? {
        observe(sample).map(CalibrationRefusal.init)
    }

    /// The measurement, or why the samples do not make one, in words.
    func finish() -> Result<CalibrationMeasurement, CalibrationRefusal> {
        estimate().mapError(CalibrationRefusal.init)
    }
}

extension CalibrationMeasurement {
    /// The protocol's form, with the file it was written to.
    func report(file: String) -> CalibrationResult {
        func v(_ a: Vector3) -> CalibrationVector { CalibrationVector(a.x, a.y, a.z) }
        return CalibrationResult(samples: samples, seconds: seconds, gyroBias: v(gyroBias), gyroNoise: v(gyroNoise),
                                 accelMean: v(accelMean), accelNoise: v(accelNoise),
                                 accelScaleError: accelScaleError, file: file)
    }
}
