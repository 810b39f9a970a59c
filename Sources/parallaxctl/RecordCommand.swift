// `parallaxctl record FILE [--seconds N] [--source SPEC]`: live sensors → a trace file
// (docs/trace-format.md), with provenance comments, for replay, simulate and bug reports.

import ArgumentParser
import Glibc
import Logging
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Record live sensor samples (device frame, SI units) into a trace file.")

    @Argument(help: "The trace file to write (replaced if it exists).")
    var file: String

    @Option(help: "How long to record (seconds).")
    var seconds: Double = 10

    @Option(help: "Sensor source: auto, iio:<libiio URI> or replay:<trace>.")
    var source: String = "auto"

    @Option(help: "Sampling rate (Hz).")
    var rate: Double = IIOSettings.defaultPollRate

    func validate() throws {
        guard seconds > 0 && seconds <= 86_400 else { throw ValidationError("--seconds must be within 0…86400") }
        guard rate >= 1 && rate <= 1000 else { throw ValidationError("--rate must be within 1…1000 Hz") }
    }

    func run() throws {
        var logger = Logger(label: "parallaxctl") { _ in StderrHandler() }
        logger.logLevel = .notice
        do {
            let spec = try SourceSpec(parsing: source)
            let driver = try spec.driverFactory(iio: IIOSettings(pollRate: rate), replaySpeed: 1, replayLoop: false, logger: logger)()
            defer { driver.close() }
            let fd = try FileDescriptor.open(file, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
            defer { try? fd.close() }
            var header = ["# parallaxd trace recorded by parallaxctl \(ProtocolConstants.serverVersion) on \(UTCTimestamp.text(time(nil)))",
                          "# source: \(spec)"]
            for s in driver.sensors {
                header.append("# \(s.kind.rawValue): \(s.device) at \(s.location), \(s.rate) Hz, mount matrix \(s.mountMatrix.values) from \(s.mountMatrixSource)")
            }
            header.append("# units: t_ns CLOCK_MONOTONIC ns; accel m/s² (direction of gravity); gyro rad/s; device frame")
            header.append(TraceFormat.header)
            _ = try fd.writeAll((header.joined(separator: "\n") + "\n").utf8)
            let end = MonotonicClock.now() + Int64(seconds * 1e9)
            var count = 0
            while let sample = try driver.nextSample(shouldStop: { MonotonicClock.now() >= end }) {
                _ = try fd.writeAll((TraceFormat.formatRow(sample) + "\n").utf8)
                count += 1
            }
            Console.error("recorded \(count) samples to \(file)")
        } catch let error as SensorError {
            Console.error(error.message)
            throw ExitCode(SysExit.unavailable)
        } catch let error as Errno {
            Console.error("\(file): \(error)")
            throw ExitCode(ExitStatus.failure)
        }
    }
}

/// Sensor-layer log lines as "parallaxctl: …" on stderr.
private struct StderrHandler: LogHandler {
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { Console.error("\(event.message)") }
}
