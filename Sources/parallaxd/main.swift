import ArgumentParser
import ParallaxDaemon
import ParallaxProtocol

/// parallaxd: IIO accelerometer and gyroscope → viewer offset → subscribers on a Unix socket.
struct ParallaxdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parallaxd",
        abstract: "Publish the device's viewer offset (iOS-style parallax) to clients over a Unix socket.",
        version: "parallaxd \(ProtocolConstants.serverVersion)")

    @Option(help: "Config file (default /etc/parallaxd/parallaxd.conf, plus <file>.d/*.conf drop-ins).",
            completion: .file(extensions: ["conf"]))
    var config: String?

    @Option(help: "Listening socket path (default /run/parallaxd/parallaxd.sock).", completion: .file())
    var socket: String?

    @Option(help: "Sensor source: auto, iio:<libiio URI> (iio:local:, iio:ip:HOST) or replay:<trace file>.",
            completion: .list(["auto", "iio:local:", "iio:ip:", "replay:"]))
    var source: String?

    @Option(help: ArgumentHelp("error, warning, notice, info or debug (default info; LogLevel= in the config).", valueName: "level"),
            completion: .list(["error", "warning", "notice", "info", "debug"]))
    var logLevel: String?

    @Flag(help: "Check the configuration and exit: 0 when valid, 78 with file:line: messages when not.")
    var checkConfig = false

    @Flag(help: ArgumentHelp(
        "Measure gyroscope bias and noise and the accelerometer at rest, with the device lying still, and write the calibration file.",
        discussion: "Asks the running daemon (a privileged command); when none answers on the socket, opens the sensors itself."))
    var calibrate = false

    @Option(help: ArgumentHelp("With --calibrate: how long to measure (1 to 120 seconds, default 5).", valueName: "N"))
    var seconds: Double?

    func run() throws {
        let options = DaemonMain.Options(configPath: config, socket: socket, source: source, logLevel: logLevel)
        let code: Int32
        if checkConfig {
            code = DaemonMain.checkConfig(options)
        } else if calibrate {
            code = DaemonMain.calibrate(options, seconds: seconds)
        } else {
            code = DaemonMain.serve(options)
        }
        if code != 0 { throw ExitCode(code) }
    }
}

ParallaxdCommand.main()
