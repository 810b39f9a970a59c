import ParallaxConfig
import ParallaxProtocol

/// parallaxd's command line (parallaxd(8), docs/man/parallaxd.8), parsed by hand.
///
/// Why not swift-argument-parser (which parallaxctl uses): it links FoundationEssentials, which
/// costs the resident daemon ≈2.4 MB of RSS (13.7 MB against 11.3 MB at start-up, static release
/// build, measured 2026-11-22, in BENCHMARKS.md's history: d19205e) and the target is 12 MB. The daemon's command line is a handful of
/// options; a small parser with its own tests is the cheaper part to own.
public enum DaemonCommandLine {
    public enum Mode: Equatable, Sendable {
        case serve(DaemonMain.Options)
        case checkConfig(DaemonMain.Options)
        case calibrate(DaemonMain.Options, seconds: Double?)
        case version
        case help
    }

    public static let usage = """
        USAGE: parallaxd [--config FILE] [--socket PATH] [--source SPEC] [--log-level LEVEL]
               parallaxd --check-config [--config FILE]
               parallaxd --calibrate [--seconds N] [--config FILE] [--socket PATH] [--source SPEC]
               parallaxd --version

        Publish the device's viewer offset (iOS-style parallax) to clients over a Unix socket.

        OPTIONS:
          --config FILE       Config file (default /etc/parallaxd/parallaxd.conf, plus FILE.d/*.conf drop-ins).
          --socket PATH       Listening socket path (default /run/parallaxd/parallaxd.sock).
          --source SPEC       Sensor source: auto, iio:<libiio URI> (iio:local:, iio:ip:HOST) or replay:<trace file>.
          --log-level LEVEL   error, warning, notice, info or debug (default info; LogLevel= in the config).
          --check-config      Check the configuration and exit: 0 when valid, 78 with file:line: messages when not.
          --calibrate         Measure gyroscope bias and noise and the accelerometer at rest, with the device
                              lying still, and write the calibration file. Asks the running daemon (a privileged
                              command); when none answers on the socket, opens the sensors itself.
          --seconds N         With --calibrate: how long to measure (1 to 120 seconds, default 5).
          --version           Show the version.
          -h, --help          Show this help.
        """

    /// The mode the arguments ask for (without the program name), or a message for stderr.
    public static func parse(_ arguments: [String]) -> Result<Mode, UsageError> {
        var options = DaemonMain.Options(configPath: nil, socket: nil, source: nil, logLevel: nil)
        var checkConfig = false, calibrate = false, version = false, help = false
        var seconds: Double?
        var i = 0
        while i < arguments.count {
            var name = arguments[i]
            var inlineValue: String?
            if name.hasPrefix("--"), let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                i += 1
                guard i < arguments.count else { throw UsageError("\(name) needs a value") }
                return arguments[i]
            }
            func flag() throws(UsageError) {
                if inlineValue != nil { throw UsageError("\(name) takes no value") }
            }
            do throws(UsageError) {
                switch name {
                case "--config": options.configPath = try value()
                case "--socket": options.socket = try value()
                case "--source": options.source = try value()
                case "--log-level": options.logLevel = try value()
                case "--seconds":
                    let text = try value()
                    guard let s = Double(text), s.isFinite else { throw UsageError("--seconds \(text): not a number") }
                    seconds = s
                case "--check-config": try flag(); checkConfig = true
                case "--calibrate": try flag(); calibrate = true
                case "--version": try flag(); version = true
                case "-h", "--help": try flag(); help = true
                default:
                    throw UsageError(name.hasPrefix("-") ? "unknown option \(name)" : "unexpected argument \(name)")
                }
            } catch {
                return .failure(error)
            }
            i += 1
        }
        if help { return .success(.help) }
        if version { return .success(.version) }
        if checkConfig && calibrate { return .failure(UsageError("--check-config and --calibrate exclude each other")) }
        if seconds != nil && !calibrate { return .failure(UsageError("--seconds goes with --calibrate")) }
        if checkConfig { return .success(.checkConfig(options)) }
        if calibrate { return .success(.calibrate(options, seconds: seconds)) }
        return .success(.serve(options))
    }

    /// Runs the mode; returns the process exit code.
    public static func run(_ arguments: [String]) -> Int32 {
        switch parse(arguments) {
        case .failure(let error):
            DaemonMain.printError("parallaxd: \(error.message)\nUsage: parallaxd [--config FILE] [--socket PATH] [--source SPEC] [--log-level LEVEL]\n  See 'parallaxd --help' for more information.")
            return SysExit.usage
        case .success(.help):
            DaemonMain.printOutput(usage)
            return 0
        case .success(.version):
            DaemonMain.printOutput("parallaxd \(ProtocolConstants.serverVersion)")
            return 0
        case .success(.checkConfig(let options)):
            return DaemonMain.checkConfig(options)
        case .success(.calibrate(let options, let seconds)):
            return DaemonMain.calibrate(options, seconds: seconds)
        case .success(.serve(let options)):
            return DaemonMain.serve(options)
        }
    }

    public struct UsageError: Error, Equatable, Sendable {
        public let message: String
        init(_ message: String) { self.message = message }
    }
}
