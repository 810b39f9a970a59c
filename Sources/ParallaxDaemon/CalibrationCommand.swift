import Glibc
import Logging
import ParallaxClient
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

/// `parallaxd --calibrate [--seconds N]` (parallaxd(8), docs/man/parallaxd.8): through the running daemon
/// if one answers on the socket, else by opening the sensors itself.
///
/// Why both: the daemon owns the sensors and applies a new calibration at once, so asking it is
/// the normal way; on a machine where it is not running (first install, a stopped service) the
/// same measurement is made here and written to the same file.
enum CalibrationCommand {
    /// Exit code for "the device moved, try again" (the others are sysexits(3): `SysExit`).
    static let exitRefused: Int32 = 1

    /// How long the daemon gets to greet us before it counts as not answering (ms): a
    /// socket-activated daemon starts on this connection and first looks at its sensors.
    static let helloTimeoutMs: Int32 = 10_000
    /// Longest silence during a calibration through the daemon (ms) on top of its measuring time.
    static let replySlackMs: Int32 = 15_000

    static func run(config: DaemonConfig, socketPath: String, seconds: Double) -> Int32 {
        let progress = CalibrationProgress()
        switch connect(path: socketPath) {
        case .connected(let link):
            progress.say("asking parallaxd on \(socketPath) to calibrate for \(FixedDecimal.text(seconds, decimals: 1)) s; keep the device still")
            return throughDaemon(link, seconds: seconds, progress: progress)
        case .notAnswering(let why):
            progress.say("parallaxd does not answer on \(socketPath) (\(why)): measuring directly for \(FixedDecimal.text(seconds, decimals: 1)) s; keep the device still")
            return direct(config: config, seconds: seconds, progress: progress)
        case .refused(let error):
            // A daemon is running (it holds the sensors and would not apply a file written behind
            // its back): say why it turned us away rather than measuring around it.
            progress.fail("parallaxd on \(socketPath) refused the connection: \(error.message)")
            return SysExit.unavailable
        }
    }

    // MARK: through the daemon

    enum Connection {
        case connected(ParallaxConnection)
        /// Nobody listens, or nobody greets: the caller works without a daemon.
        case notAnswering(String)
        /// A daemon answered with an error instead of a greeting (too many clients).
        case refused(ProtocolError)
    }

    /// A connection to the daemon that has greeted us (ParallaxClient's blocking client).
    static func connect(path: String) -> Connection {
        let link: ParallaxConnection
        do {
            link = try ParallaxConnection(path: path)
        } catch {
            guard case .cannotConnect(_, let code) = error else { return .notAnswering("\(error)") }
            return .notAnswering(String(cString: strerror(code)))
        }
        do {
            try link.awaitHello(timeoutMs: helloTimeoutMs)
            return .connected(link)
        } catch .rejected(let error) {
            return .refused(error)
        } catch {
            return .notAnswering("no greeting within \(helloTimeoutMs / 1000) s")
        }
    }

    private static func throughDaemon(_ link: ParallaxConnection, seconds: Double, progress: CalibrationProgress) -> Int32 {
        let id = JSONValue.string("calibrate")
        do {
            try link.send(ClientRequest(.calibrate(seconds: seconds), id: id))
        } catch {
            progress.fail("parallaxd closed the connection")
            return SysExit.unavailable
        }
        let silence = Int32(seconds * 1000) + replySlackMs
        while true {
            guard let message = try? link.readMessage(timeoutMs: silence) else {
                progress.fail("parallaxd stopped answering during the calibration")
                return SysExit.unavailable
            }
            switch message {
            case .calibration(let report, let replyID) where replyID == id:
                switch report {
                case .progress(let fraction):
                    progress.show(fraction)
                case .finished(let result):
                    progress.show(1)
                    progress.done()
                    print(summary(result, how: "by the running parallaxd (applied at once)"))
                    return 0
                case .failed(let failure, let message):
                    progress.fail("calibration refused: \(message)")
                    return exitCode(for: failure)
                }
            case .error(let error) where error.id == id:
                progress.fail("parallaxd refused: \(error.message)")
                return error.code == .permissionDenied ? SysExit.noPermission : SysExit.unavailable
            default:
                continue  // hello, state lines: not ours
            }
        }
    }

    // MARK: directly

    /// Opens the configured source on this thread and measures; the daemon is not running, so
    /// the file is applied when it starts.
    private static func direct(config: DaemonConfig, seconds: Double, progress: CalibrationProgress) -> Int32 {
        // Say so now rather than after the measurement (run as root, or as the service's account).
        if let error = CalibrationFile.unwritable(config.calibrationFile) {
            progress.fail("\(error); the calibration could not be saved")
            return SysExit.cannotCreate
        }
        let factory = config.source.driverFactory(iio: config.iioSettings, replaySpeed: config.replaySpeed,
                                                  replayLoop: config.replayLoop, logger: Logger(label: "parallaxd.sensors"))
        let driver: any SensorDriver
        do {
            driver = try factory()
        } catch {
            progress.fail("cannot open the sensors (\(config.source)): \(error.message)")
            return error.kind == .invalidSource ? SysExit.config : SysExit.unavailable
        }
        defer { driver.close() }
        let kinds = Set(driver.sensors.map(\.kind))
        let names = driver.sensors.map { "\($0.kind.rawValue) \($0.device) (\($0.location))" }.joined(separator: ", ")
        for kind in SensorKind.allCases where !kinds.contains(kind) {
            progress.fail("calibration refused: no \(kind == .gyroscope ? "gyroscope" : "accelerometer") among the sensors (\(names)); there is nothing to calibrate")
            return SysExit.unavailable
        }
        var estimator = CalibrationEstimator()
        let duration = Int64(seconds * 1e9)
        var shown = 0.0
        while estimator.elapsed < duration {
            let sample: Sample?
            do {
                sample = try driver.nextSample(shouldStop: { false })
            } catch {
                progress.fail("the sensors failed while calibrating: \(error.message)")
                return SysExit.unavailable
            }
            guard let sample else {
                progress.fail("the source ended after \(FixedDecimal.text(Double(estimator.elapsed) / 1e9, decimals: 1)) s")
                return exitCode(for: .noSamples)
            }
            if let refusal = estimator.add(sample) {
                progress.fail("calibration refused: \(refusal.message)")
                return exitCode(for: refusal.failure)
            }
            let fraction = Double(estimator.elapsed) / Double(duration)
            if fraction >= shown + CalibrationRun.progressStep / 10 {
                shown = fraction
                progress.show(fraction)
            }
        }
        switch estimator.finish() {
        case .failure(let refusal):
            progress.fail("calibration refused: \(refusal.message)")
            return exitCode(for: refusal.failure)
        case .success(let measurement):
            progress.show(1)
            progress.done()
            let path = config.calibrationFile
            let text = CalibrationFile.render(measurement, sensors: names, writtenBy: "parallaxd --calibrate (directly)")
            if case .failure(let error) = CalibrationFile.write(text, to: path) {
                progress.fail("measured, but \(error)")
                return SysExit.cannotCreate
            }
            print(summary(measurement.report(file: path), how: "directly (parallaxd applies it when it starts)"))
            return 0
        }
    }

    static func exitCode(for failure: CalibrationFailure) -> Int32 {
        switch failure {
        case .missingSensor: SysExit.unavailable
        case .writeFailed: SysExit.cannotCreate
        default: exitRefused
        }
    }

    /// What was measured, for the person at the terminal.
    static func summary(_ r: CalibrationResult, how: String) -> String {
        func triple(_ v: CalibrationVector, _ d: Int) -> String {
            [v.x, v.y, v.z].map { FixedDecimal.text($0, decimals: d) }.joined(separator: ", ")
        }
        return """
            calibrated \(how): \(FixedDecimal.text(r.seconds, decimals: 1)) s, \(r.samples) samples
              gyroscope bias      \(triple(r.gyroBias, 6)) rad/s
              gyroscope noise     \(triple(r.gyroNoise, 6)) rad/s
              accelerometer mean  \(triple(r.accelMean, 4)) m/s²
              accelerometer noise \(triple(r.accelNoise, 4)) m/s²
              scale error         \(FixedDecimal.text(r.accelScaleError * 100, decimals: 3)) %
            written to \(r.file)
            """
    }
}
