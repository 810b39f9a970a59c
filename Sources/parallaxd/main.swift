import ArgumentParser
import ParallaxDaemon
import ParallaxProtocol

/// parallaxd: IIO accelerometer and gyroscope → viewer offset → subscribers on a Unix socket.
struct ParallaxdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parallaxd",
        abstract: "Publish the device's viewer offset (iOS-style parallax) to clients over a Unix socket.",
        version: "parallaxd \(ProtocolConstants.serverVersion)")

    @Option(help: "Config file (default /etc/parallaxd/parallaxd.conf, plus <file>.d/*.conf drop-ins).")
    var config: String?

    @Option(help: "Listening socket path (default /run/parallaxd/parallaxd.sock).")
    var socket: String?

    @Option(help: "Sensor source: auto, iio:<libiio URI> (iio:local:, iio:ip:HOST) or replay:<trace file>.")
    var source: String?

    @Option(help: "error, warning, notice, info or debug.")
    var logLevel: String?

    @Flag(help: "Check the configuration and exit: 0 when valid, 78 with file:line: messages when not.")
    var checkConfig = false

    @Flag(help: "Measure the gyroscope bias with the device lying still and write the calibration file.")
    var calibrate = false

    @Option(help: "With --calibrate: how long to measure (seconds).")
    var seconds: Double?

    func run() throws {
        let options = DaemonMain.Options(configPath: config, socket: socket, source: source, logLevel: logLevel)
        let code: Int32
        if checkConfig {
            code = DaemonMain.checkConfig(options)
        } else if calibrate {
            DaemonMain.printError("parallaxd: --calibrate is not implemented in this version")
            code = DaemonMain.exitUnavailable
        } else {
            code = DaemonMain.serve(options)
        }
        if code != 0 { throw ExitCode(code) }
    }
}

ParallaxdCommand.main()
