// `parallaxctl monitor`: subscribe and show offsets and state changes live, until Ctrl-C, the
// end of --seconds, or the daemon going away.

import ArgumentParser
import ParallaxClient
import ParallaxProtocol

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor", abstract: "Show the live viewer offset (Ctrl-C to stop).")

    @OptionGroup var connection: ConnectionOptions
    @ParentCommand var root: ParallaxCtl

    @Option(help: ArgumentHelp("Frames per second to ask for (Hz; the daemon caps it).", valueName: "hz"))
    var rate: Double?

    @Option(help: ArgumentHelp("Display rotation, degrees clockwise: 0, 90, 180 or 270.", valueName: "deg"))
    var rotation: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "n"))
    var seconds: Double?

    @Flag(help: "Print the daemon's JSON lines as they arrive.")
    var json = false

    @Flag(help: "Ask for the heading too and show yaw (degrees about the world's vertical) and its rate.")
    var heading = false

    func validate() throws {
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number of Hz") }
        if let rotation, !ProtocolConstants.rotations.contains(rotation) {
            throw ValidationError("--rotation must be 0, 90, 180 or 270")
        }
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds must be positive") }
    }

    func run() throws {
        let path = socketPath(connection, root.connection)
        let connection: ParallaxConnection
        do {
            connection = try ParallaxConnection(path: path)
            // Ctrl-C, SIGTERM and a closed stdout end the loop below instead of killing the process.
            try connection.interruptOnTerminationSignals()
            try connection.send(ClientRequest(.subscribe(rate: rate, rotation: rotation, heading: heading ? true : nil)))
        } catch {
            throw reportClientError(error)
        }
        let nanosecondsPerSecond = 1e9
        let deadline = seconds.map { ParallaxConnection.monotonicNanoseconds() + Int64($0 * nanosecondsPerSecond) }
        do {
            while true {
                guard let line = try connection.readLine(timeoutMs: ParallaxConnection.remainingMilliseconds(until: deadline))
                else { return }  // --seconds elapsed
                let message = ServerMessage.decode(line: line)
                if json {
                    try Console.print(bytes: line)
                } else if let message, let text = Self.describe(message, path: path) {
                    try Console.print(text)
                }
                if case .error(let error) = message { throw reportErrorReply(error) }
            }
        } catch let error as ClientError {
            throw reportClientError(error)
        } catch is Console.Closed {
            return
        }
    }

    static let degreesPerRadian = 180 / Double.pi

    /// One readable line per message; nil for messages not worth a line.
    static func describe(_ message: ServerMessage, path: String) -> String? {
        switch message {
        case .hello(let maxRate):
            return "connected to \(path) (up to \(maxRate) Hz)"
        case .subscribed(let rate, let rotation, let heading, _):
            let yaw = heading.map { $0 ? ", heading" : ", no heading (no gyroscope)" } ?? ""
            return "subscribed at \(rate) Hz, rotation \(rotation)°\(yaw)"
        case .state(let sensor, let reduceMotion, let calibrated, let heading):
            return "state  sensor \(sensor.rawValue)  reduce motion \(reduceMotion ? "on" : "off")"
                + "  \(calibrated ? "calibrated" : "not calibrated")"
                + (heading.map { $0 ? "  heading" : "  no heading" } ?? "")
        case .offset(let seq, let t, let x, let y, _, _, let heading):
            let decimals = ProtocolConstants.offsetDecimals
            let line = "seq \(seq)  t \(TextFormat.seconds(nanoseconds: t)) s  x \(TextFormat.signed(x, decimals: decimals))"
                + "  y \(TextFormat.signed(y, decimals: decimals))  x\(TextFormat.gauge(x)) y\(TextFormat.gauge(y))"
            guard let heading else { return line }
            return line + "  yaw \(TextFormat.signed(heading.yaw * degreesPerRadian, decimals: 1))°"
                + "  \(TextFormat.signed(heading.vyaw * degreesPerRadian, decimals: 1))°/s"
        case .unsubscribed:
            return "unsubscribed"
        case .status, .ok, .error, .calibration:
            return nil
        }
    }
}
