// What the daemon says while it calibrates (`{"cmd":"calibrate"}`): progress lines, then one
// line with `"done":true` that carries either the measurements or why it refused.

/// Three components in the device frame (x right, y up the screen, z toward the viewer).
public struct CalibrationVector: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// The measurements of a finished calibration, as written to the calibration file.
public struct CalibrationResult: Sendable, Equatable {
    /// Samples that went into the means.
    public var samples: Int
    /// Time measured (s).
    public var seconds: Double
    /// Gyroscope reading at rest (rad/s): subtracted from every gyroscope sample from now on.
    public var gyroBias: CalibrationVector
    /// Standard deviation of the gyroscope at rest, per axis (rad/s).
    public var gyroNoise: CalibrationVector
    /// Mean accelerometer reading at rest (m/s², direction of gravity): the neutral pose.
    public var accelMean: CalibrationVector
    /// Standard deviation of the accelerometer at rest, per axis (m/s²).
    public var accelNoise: CalibrationVector
    /// |accelMean| / standard gravity − 1: how far the accelerometer's scale is off (0.01 = 1 %).
    public var accelScaleError: Double
    /// Where the calibration was written.
    public var file: String

    public init(samples: Int, seconds: Double, gyroBias: CalibrationVector, gyroNoise: CalibrationVector,
                accelMean: CalibrationVector, accelNoise: CalibrationVector, accelScaleError: Double, file: String) {
        self.samples = samples
        self.seconds = seconds
        self.gyroBias = gyroBias
        self.gyroNoise = gyroNoise
        self.accelMean = accelMean
        self.accelNoise = accelNoise
        self.accelScaleError = accelScaleError
        self.file = file
    }
}

/// Why a calibration was refused (the `failed` field). A struct, not an enum, so a client keeps
/// a reason that a newer daemon added.
public struct CalibrationFailure: RawRepresentable, Sendable, Equatable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The device moved (or was not lying still) while measuring.
    public static let moved = CalibrationFailure(rawValue: "moved")
    /// No accelerometer or no gyroscope delivers samples.
    public static let missingSensor = CalibrationFailure(rawValue: "missing_sensor")
    /// The sensors delivered too few samples in time.
    public static let noSamples = CalibrationFailure(rawValue: "no_samples")
    /// The readings cannot be a device at rest (gravity far from 9.8 m/s²).
    public static let implausible = CalibrationFailure(rawValue: "implausible")
    /// Measured, but the calibration file could not be written.
    public static let writeFailed = CalibrationFailure(rawValue: "write_failed")
}

/// One `calibration` line.
public enum CalibrationReport: Sendable, Equatable {
    /// Fraction of the measuring time done, 0...1.
    case progress(Double)
    /// The last line: measured and written.
    case finished(CalibrationResult)
    /// The last line: refused; `message` says why, for a person.
    case failed(CalibrationFailure, message: String)

    /// True for the line that ends a calibration.
    public var isDone: Bool {
        if case .progress = self { return false }
        return true
    }
}

extension CalibrationReport {
    /// Decimals of `progress` (a hundredth is a percent).
    static let progressDecimals = 2
    /// Decimals of gyroscope values (rad/s): 1e-6 rad/s is far below any MEMS noise floor.
    static let gyroDecimals = 6
    /// Decimals of accelerometer values (m/s²).
    static let accelDecimals = 4
    /// Decimals of the scale error (1e-5 = 0.001 %).
    static let scaleDecimals = 5
    /// Decimals of the measured time (s).
    static let secondsDecimals = 3

    /// Writes the fields after `"type":"calibration"`.
    func write(to writer: inout JSONLineWriter) {
        switch self {
        case .progress(let fraction):
            writer.key("progress")
            writer.fixed(min(max(fraction, 0), 1), decimals: Self.progressDecimals)
        case .finished(let r):
            writer.key("done")
            writer.bool(true)
            writer.key("samples")
            writer.int(r.samples)
            writer.key("seconds")
            writer.fixed(r.seconds, decimals: Self.secondsDecimals)
            Self.write("gyro_bias", r.gyroBias, decimals: Self.gyroDecimals, to: &writer)
            Self.write("gyro_noise", r.gyroNoise, decimals: Self.gyroDecimals, to: &writer)
            Self.write("accel_mean", r.accelMean, decimals: Self.accelDecimals, to: &writer)
            Self.write("accel_noise", r.accelNoise, decimals: Self.accelDecimals, to: &writer)
            writer.key("accel_scale_error")
            writer.fixed(r.accelScaleError, decimals: Self.scaleDecimals)
            writer.key("file")
            writer.string(r.file)
        case .failed(let failure, let message):
            writer.key("done")
            writer.bool(true)
            writer.key("failed")
            writer.string(failure.rawValue)
            writer.key("message")
            writer.string(message)
        }
    }

    private static func write(_ key: String, _ v: CalibrationVector, decimals: Int, to writer: inout JSONLineWriter) {
        writer.key(key)
        writer.beginArray()
        writer.fixed(v.x, decimals: decimals)
        writer.fixed(v.y, decimals: decimals)
        writer.fixed(v.z, decimals: decimals)
        writer.endArray()
    }

    /// Reads the fields of a `calibration` object; nil when they do not make a report.
    static func decode(_ value: JSONValue) -> CalibrationReport? {
        guard value["done"]?.boolValue == true else {
            guard let fraction = value["progress"]?.doubleValue else { return nil }
            return .progress(fraction)
        }
        if let reason = value["failed"]?.stringValue {
            return .failed(CalibrationFailure(rawValue: reason), message: value["message"]?.stringValue ?? reason)
        }
        guard let samples = value["samples"]?.intValue,
              let gyroBias = vector(value["gyro_bias"]), let accelMean = vector(value["accel_mean"])
        else { return nil }
        return .finished(CalibrationResult(
            samples: samples,
            seconds: value["seconds"]?.doubleValue ?? 0,
            gyroBias: gyroBias,
            gyroNoise: vector(value["gyro_noise"]) ?? CalibrationVector(0, 0, 0),
            accelMean: accelMean,
            accelNoise: vector(value["accel_noise"]) ?? CalibrationVector(0, 0, 0),
            accelScaleError: value["accel_scale_error"]?.doubleValue ?? 0,
            file: value["file"]?.stringValue ?? ""))
    }

    private static func vector(_ value: JSONValue?) -> CalibrationVector? {
        guard let items = value?.arrayValue, items.count == 3,
              let x = items[0].doubleValue, let y = items[1].doubleValue, let z = items[2].doubleValue
        else { return nil }
        return CalibrationVector(x, y, z)
    }
}
