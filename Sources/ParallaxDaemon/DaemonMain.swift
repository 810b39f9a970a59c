import Glibc
import Logging
import ParallaxConfig
import ParallaxIIO
import ParallaxProtocol

/// What `parallaxd` does for each command-line form (the executable only parses arguments).
public enum DaemonMain {

    public struct Options: Sendable, Equatable {
        public var configPath: String?
        public var socket: String?
        public var source: String?
        public var logLevel: String?
        public init(configPath: String?, socket: String?, source: String?, logLevel: String?) {
            self.configPath = configPath
            self.socket = socket
            self.source = source
            self.logLevel = logLevel
        }
    }

    /// `parallaxd --check-config`: every error and warning as `file:line: message`; exit 0 or 78.
    public static func checkConfig(_ options: Options) -> Int32 {
        let load = ConfigLoader.load(path: options.configPath ?? DaemonConfig.defaultPath,
                                     required: options.configPath != nil)
        for w in load.warnings { printError("\(w) (warning)") }
        for e in load.errors { printError("\(e)") }
        if !load.errors.isEmpty { return SysExit.config }
        print("configuration OK: \(load.files.isEmpty ? "built-in defaults" : load.files.joined(separator: ", "))")
        return 0
    }

    /// `parallaxd`: serve until SIGTERM.
    public static func serve(_ options: Options) -> Int32 {
        // Log level first (from the command line, else info) so config problems are reported.
        let cliLevel = options.logLevel.flatMap(LogLevelName.parse)
        if let text = options.logLevel, cliLevel == nil {
            printError("parallaxd: --log-level \(text): expected error, warning, notice, info or debug")
            return SysExit.config
        }
        DaemonLogLevel.bootstrap(level: cliLevel ?? .info)
        let logger = Logger(label: "parallaxd")

        let path = options.configPath ?? DaemonConfig.defaultPath
        let load = ConfigLoader.load(path: path, required: options.configPath != nil)
        for w in load.warnings { logger.warning("\(w)") }
        guard load.errors.isEmpty else {
            for e in load.errors { logger.error("\(e)") }
            return SysExit.config
        }
        var overrides = ConfigOverrides(socketPath: options.socket, logLevel: cliLevel)
        if let source = options.source {
            do { overrides.source = try SourceSpec(parsing: source) } catch {
                logger.error("--source: \(error.message)")
                return SysExit.config
            }
        }
        let config = overrides.applied(to: load.config)
        DaemonLogLevel.level = config.logLevel
        do {
            let daemon = try Daemon(config: config, overrides: overrides, configPath: path,
                                    configRequired: options.configPath != nil)
            return try daemon.run()
        } catch {
            logger.critical("cannot start: \(error)")
            return SysExit.unavailable
        }
    }

    /// `parallaxd --calibrate [--seconds N]`: through the running daemon, else directly
    /// (CalibrationCommand.swift). `seconds` nil: the daemon's default.
    public static func calibrate(_ options: Options, seconds: Double?) -> Int32 {
        let seconds = seconds ?? Daemon.defaultCalibrationSeconds
        guard ProtocolConstants.calibrationSeconds.contains(seconds) else {
            printError("parallaxd: --seconds \(seconds): expected \(Int(ProtocolConstants.calibrationSeconds.lowerBound)) to \(Int(ProtocolConstants.calibrationSeconds.upperBound)) seconds")
            return SysExit.usage
        }
        // Sensor drivers log through swift-log: warnings and worse only, on stderr, unless asked.
        let cliLevel = options.logLevel.flatMap(LogLevelName.parse)
        if let text = options.logLevel, cliLevel == nil {
            printError("parallaxd: --log-level \(text): expected error, warning, notice, info or debug")
            return SysExit.config
        }
        DaemonLogLevel.bootstrap(level: cliLevel ?? .warning)
        let load = ConfigLoader.load(path: options.configPath ?? DaemonConfig.defaultPath, required: options.configPath != nil)
        for e in load.errors { printError("\(e)") }
        if !load.errors.isEmpty { return SysExit.config }
        var config = load.config
        if let source = options.source {
            do { config.source = try SourceSpec(parsing: source) } catch {
                printError("parallaxd: --source: \(error.message)")
                return SysExit.config
            }
        }
        // The daemon's socket: --socket, else $PARALLAXD_SOCKET (as for every client), else the config's.
        let environment = getenv("PARALLAXD_SOCKET").map { String(cString: $0) } ?? ""
        let socket = options.socket ?? (environment.isEmpty ? config.socketPath : environment)
        return CalibrationCommand.run(config: config, socketPath: socket, seconds: seconds)
    }

    /// A line on stdout (one write(2); no stdio buffering to flush at exit).
    public static func printOutput(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    public static func printError(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
