// `parallaxctl frame [--source SPEC]`: a guided check of the device's frame. Reads the sensors
// directly with no mount matrix (raw chip axes), asks for three still poses and prints the
// matrices for a local hwdb entry or the config (docs/sensors.md "Finding a device's frame").

import ArgumentParser
import Logging
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion

struct FrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frame",
        abstract: "Find the device's mount matrix: hold it upright, on its right edge, then flat.",
        discussion: """
            Reads the sensors itself (root or read access to the IIO devices; works while parallaxd \
            runs) with no mount matrix applied. A replay: source is read as raw chip axes, which \
            makes the check scriptable.
            """)

    @Option(help: "Sensor source: auto, iio:<libiio URI> or replay:<trace> (raw chip axes).")
    var source: String = "auto"

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 120

    @Option(help: "Replay speed for a replay: source.")
    var speed: Double = 1

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be within 0…3600 s") }
        guard speed >= 0.01 && speed <= 1000 else { throw ValidationError("--speed must be within 0.01…1000") }
    }

    func run() throws {
        var logger = Logger(label: "parallaxctl") { _ in StderrLogHandler() }
        logger.logLevel = .warning
        var finder = FrameFinder()
        do {
            try guide(&finder, logger: logger)
        } catch {
            Console.error(error.message)
            throw ExitCode(SysExit.unavailable)
        }
        guard let result = finder.result else {
            let missing = finder.waitingFor.map { "\($0)" } ?? "a usable set of poses"
            Console.error("no frame: still waiting for \(missing) (keep the device still for a second in each pose)")
            throw ExitCode(ExitStatus.failure)
        }
        for line in Self.report(result) { try? Console.print(line) }
    }

    /// Prompts for each pose and feeds samples to the finder until it has all three or time is up.
    private func guide(_ finder: inout FrameFinder, logger: Logger) throws(SensorError) {
        let spec = try SourceSpec(parsing: source)
        // Identity overrides: the finder needs the chip's own axes, whatever hwdb or the kernel say.
        let raw = IIOSettings(accelMountMatrix: .identity, gyroMountMatrix: .identity)
        let driver = try spec.driverFactory(iio: raw, replaySpeed: speed, replayLoop: false, logger: logger)()
        defer { driver.close() }
        var prompted: FrameFinder.Pose?
        let end = MonotonicClock.now() + Int64(timeout * 1e9)
        while let pose = finder.waitingFor {
            if prompted != pose {
                prompted = pose
                Console.error("\(pose.rawValue + 1)/3 \(pose.instruction)")
            }
            guard let sample = try driver.nextSample(shouldStop: { MonotonicClock.now() >= end }) else { return }
            if let done = finder.observe(sample) { Console.error("    got it (\(done))") }
        }
    }

    /// What to put where, as printed lines.
    static func report(_ result: FrameFinder.Result) -> [String] {
        var lines = ["accelerometer (raw → direction of gravity): \(result.accel.text)",
                     "gyroscope (raw → rate): \(result.gyro.text)",
                     "gyroscope check: \(result.check)", ""]
        if let hwdb = result.hwdb {
            lines += ["For a local hwdb entry (/etc/udev/hwdb.d/61-sensor-local.hwdb, then systemd-hwdb update):",
                      " \(hwdb)", ""]
        } else {
            lines += ["hwdb cannot express this frame (the chip reports the direction of gravity, not",
                      "specific force); use the config override.", ""]
        }
        lines += ["Or in /etc/parallaxd/parallaxd.conf (used as written):", "[Sensor]",
                  "AccelMountMatrix=\(result.accel.text)", "GyroMountMatrix=\(result.gyro.text)"]
        return lines
    }
}

/// Sensor-layer warnings as plain lines on stderr.
private struct StderrLogHandler: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { Console.error("\(event.message)") }
}
