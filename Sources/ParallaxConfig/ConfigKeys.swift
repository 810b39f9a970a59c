import Logging
import ParallaxIIO
import ParallaxMotion

/// Why a value was refused.
public struct ConfigValueError: Error {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// Every key parallaxd understands, by section, with how its value is parsed and checked.
/// `config/parallaxd.conf` documents the same keys with their defaults; a test keeps both in step.
enum ConfigKeys {
    typealias Apply = @Sendable (inout DaemonConfig, String) throws(ConfigValueError) -> Void

    static let table: [String: [String: Apply]] = [
        "Daemon": [
            "Socket": { c, v throws(ConfigValueError) in
                guard v.hasPrefix("/") else { throw ConfigValueError("the socket path must be absolute") }
                guard v.utf8.count < 108 else { throw ConfigValueError("the socket path is longer than a Unix socket allows (107 bytes)") }
                c.socketPath = v
            },
            "SocketMode": { c, v throws(ConfigValueError) in
                guard let mode = UInt32(v, radix: 8), mode <= 0o777 else { throw ConfigValueError("expected an octal mode such as 0666") }
                c.socketMode = mode
            },
            "LogLevel": { c, v throws(ConfigValueError) in
                guard let level = LogLevelName.parse(v) else { throw ConfigValueError("expected error, warning, notice, info or debug") }
                c.logLevel = level
            },
            "MaxClients": { c, v throws(ConfigValueError) in c.maxClients = try integer(v, 1...100_000) },
            "MaxClientsPerUser": { c, v throws(ConfigValueError) in c.maxClientsPerUser = try integer(v, 1...100_000) },
            "IdleTimeout": { c, v throws(ConfigValueError) in c.idleTimeout = try number(v, 0.1...3600, unit: "s") },
            "StallTimeout": { c, v throws(ConfigValueError) in c.stallTimeout = try number(v, 0.1...3600, unit: "s") },
            "CommandRate": { c, v throws(ConfigValueError) in c.commandRate = try number(v, 1...10_000, unit: "commands/s") },
        ],
        "Sensor": [
            "Source": { c, v throws(ConfigValueError) in
                do throws(SensorError) { c.source = try SourceSpec(parsing: v) } catch { throw ConfigValueError(error.message) }
            },
            "Rate": { c, v throws(ConfigValueError) in c.pollRate = try number(v, 1...1000, unit: "Hz") },
            "Capture": { c, v throws(ConfigValueError) in
                guard let method = CaptureMethod(rawValue: v) else { throw ConfigValueError("expected auto, buffered or polled") }
                c.capture = method
            },
            "AccelMountMatrix": { c, v throws(ConfigValueError) in c.accelMountMatrix = try matrix(v) },
            "GyroMountMatrix": { c, v throws(ConfigValueError) in c.gyroMountMatrix = try matrix(v) },
            "Linger": { c, v throws(ConfigValueError) in c.linger = try number(v, 0...3600, unit: "s") },
            "RestAfter": { c, v throws(ConfigValueError) in c.restAfter = try number(v, 0...3600, unit: "s") },
            "RestRate": { c, v throws(ConfigValueError) in
                c.restRate = try number(v, RestRequest.minimumRate...1000, unit: "Hz")
            },
            "ReplaySpeed": { c, v throws(ConfigValueError) in c.replaySpeed = try number(v, 0.01...1000, unit: "×") },
            "ReplayLoop": { c, v throws(ConfigValueError) in c.replayLoop = try boolean(v) },
        ],
        "Motion": [
            "Mode": { c, v throws(ConfigValueError) in
                guard let mode = MotionMode(rawValue: v) else { throw ConfigValueError("expected attitude or rate") }
                c.motion.mode = mode
            },
            "ReduceMotion": { c, v throws(ConfigValueError) in c.reduceMotion = try boolean(v) },
            "Recenter": { c, v throws(ConfigValueError) in c.motion.recenter = try boolean(v) },
            "SaturationAngle": { c, v throws(ConfigValueError) in
                c.motion.saturationAngle = try number(v, 1...180, unit: "degrees") * .pi / 180
            },
            "Sensitivity": { c, v throws(ConfigValueError) in c.motion.sensitivity = try number(v, 0.01...100, unit: "") },
            "MinimumChange": { c, v throws(ConfigValueError) in c.motion.minimumChange = try number(v, 0...1, unit: "") },
            "FilterGain": { c, v throws(ConfigValueError) in c.motion.filterGain = try number(v, 0...100, unit: "") },
            "DirectionalLock": { c, v throws(ConfigValueError) in c.motion.directionalLock = try boolean(v) },
            "BiasEstimation": { c, v throws(ConfigValueError) in c.motion.biasEstimation = try boolean(v) },
            "AccelerationRejection": { c, v throws(ConfigValueError) in
                c.motion.accelerationRejection = try number(v, 0...90, unit: "degrees") * .pi / 180
            },
            "RejectionTimeout": { c, v throws(ConfigValueError) in c.motion.rejectionTimeout = try number(v, 0...3600, unit: "s") },
            "GyroscopeRange": { c, v throws(ConfigValueError) in
                c.motion.gyroscopeRange = try number(v, 0...100_000, unit: "degrees/s") * .pi / 180
            },
            "RateThreshold": { c, v throws(ConfigValueError) in c.motion.rateThreshold = try number(v, 0...100, unit: "rad/s") },
            "RateGain": { c, v throws(ConfigValueError) in c.motion.rateGain = try number(v, 0...1000, unit: "/rad") },
            "RateReturn": { c, v throws(ConfigValueError) in c.motion.rateReturn = try number(v, 0...100, unit: "/s") },
        ],
        "Access": [
            "MaxRate": { c, v throws(ConfigValueError) in c.maxRate = try integer(v, 1...1000) },
            "PrivilegedMaxRate": { c, v throws(ConfigValueError) in c.privilegedMaxRate = try integer(v, 1...1000) },
            "Subscribers": { c, v throws(ConfigValueError) in c.access.subscribers = try AccessRule.parseList(v) },
            "Controllers": { c, v throws(ConfigValueError) in c.access.controllers = try AccessRule.parseList(v) },
        ],
        "Calibration": [
            "File": { c, v throws(ConfigValueError) in
                guard v.hasPrefix("/") else { throw ConfigValueError("the calibration file path must be absolute") }
                c.calibrationFile = v
            },
        ],
    ]

    /// systemd's boolean spellings.
    static func boolean(_ v: String) throws(ConfigValueError) -> Bool {
        switch v.lowercased() {
        case "1", "yes", "y", "true", "t", "on": return true
        case "0", "no", "n", "false", "f", "off": return false
        default: throw ConfigValueError("expected a boolean (yes/no, true/false, on/off, 1/0)")
        }
    }

    static func number(_ v: String, _ range: ClosedRange<Double>, unit: String) throws(ConfigValueError) -> Double {
        guard let x = DecimalNumber.parseDouble(v) else { throw ConfigValueError("not a number (use a '.' as the decimal point)") }
        guard range.contains(x) else {
            throw ConfigValueError("out of range \(format(range.lowerBound))…\(format(range.upperBound))\(unit.isEmpty ? "" : " " + unit)")
        }
        return x
    }

    static func integer(_ v: String, _ range: ClosedRange<Int>) throws(ConfigValueError) -> Int {
        guard let x = Int(v) else { throw ConfigValueError("not a whole number") }
        guard range.contains(x) else { throw ConfigValueError("out of range \(range.lowerBound)…\(range.upperBound)") }
        return x
    }

    static func matrix(_ v: String) throws(ConfigValueError) -> MountMatrix? {
        if v.isEmpty { return nil }
        guard let m = DecimalNumber.parseMountMatrix(v) else {
            throw ConfigValueError("expected nine numbers \"a, b, c; d, e, f; g, h, i\"")
        }
        guard !m.isZeroRow else { throw ConfigValueError("a row of zeros would discard an axis") }
        return m
    }

    private static func format(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(x)
    }
}
