// `parallaxctl status`: one status request, shown as a short summary or as the raw JSON line.

import ArgumentParser
import ParallaxClient
import ParallaxProtocol

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the daemon's sensors, mode, rates and clients.")

    @OptionGroup var connection: ConnectionOptions
    @ParentCommand var root: ParallaxCtl

    @Flag(help: "Print the daemon's status line as JSON.")
    var json = false

    func run() throws {
        let session = try DaemonSession.open(path: socketPath(connection, root.connection))
        let reply = try session.call(.status)
        guard case .status(let report, _) = reply.message else {
            throw reportClientError(.unexpectedReply(String(decoding: reply.line, as: UTF8.self)))
        }
        do {
            if json {
                try Console.print(bytes: reply.line)
            } else {
                for line in Self.summary(report) { try Console.print(line) }
            }
        } catch {
            return  // stdout closed: nothing left to say
        }
    }

    /// The report as aligned "label  value" lines.
    static func summary(_ report: StatusReport) -> [String] {
        func row(_ label: String, _ value: String) -> String {
            let labelWidth = 15
            return label + String(repeating: " ", count: max(labelWidth - label.count, 1)) + value
        }
        var lines = ["parallaxd \(report.version), up \(TextFormat.duration(seconds: report.uptime))"]
        lines.append(row("source", report.source))
        // Open now, or closed with `sensors` the last ones opened (older servers do not say).
        let openness = report.open.map { $0 ? ", open" : ", closed (the sensors below were the last opened)" } ?? ""
        lines.append(row("sensor", report.sensor.rawValue + openness))
        for sensor in report.sensors {
            let place = sensor.location.isEmpty ? "" : " (\(sensor.location))"
            lines.append(row("  \(sensor.kind)", "\(sensor.device)\(place), \(TextFormat.short(sensor.rate)) Hz"))
        }
        // One capture line when the sensors are captured alike, one per sensor otherwise (a
        // gyroscope buffered beside an accelerometer left to iio-sensor-proxy), with the reason
        // when polled.
        let captures = report.sensors.map(\.capture)
        if let capture = captures.first, !capture.isEmpty, captures.allSatisfy({ $0 == capture }) {
            lines.append(row("capture", capture))
        } else {
            for sensor in report.sensors where !sensor.capture.isEmpty {
                lines.append(row("capture", "\(sensor.kind): \(sensor.capture)"))
            }
        }
        // What drives each buffered sensor's scans, once per trigger (a combined IMU's two
        // sensors share one); which accelerometer was chosen among several.
        var triggers: Set<String> = []
        for sensor in report.sensors where !sensor.trigger.isEmpty && triggers.insert(sensor.trigger).inserted {
            lines.append(row("trigger", "\(sensor.kind): \(sensor.trigger)"))
        }
        for sensor in report.sensors where !sensor.choice.isEmpty {
            lines.append(row("choice", sensor.choice))
        }
        // What a device refused, once each (a device-wide limit shows under both of its sensors).
        var said: Set<String> = []
        for sensor in report.sensors {
            for limit in sensor.limits where said.insert(limit).inserted { lines.append(row("limit", limit)) }
        }
        if let frame = report.frame {
            lines.append(row("frame", frame.source + (frame.repairs.isEmpty ? "" : ", repaired")))
            lines.append(row("  given", frame.given))
            lines.append(row("  accel", frame.accel))
            if !frame.gyro.isEmpty { lines.append(row("  gyro", frame.gyro)) }
            for repair in frame.repairs { lines.append(row("  repair", repair)) }
            lines.append(row("  check", frame.checkDetail.isEmpty ? frame.check : frame.checkDetail))
        }
        lines.append(row("mode", report.mode))
        lines.append(
            row("rates", "input \(TextFormat.short(report.inputRate)) Hz, frames \(TextFormat.short(report.frameRate)) Hz"))
        lines.append(row("clients", "\(report.clients) connected, \(report.subscribers) subscribed"))
        lines.append(row("reduce motion", report.reduceMotion ? "on" : "off"))
        lines.append(row("calibrated", report.calibrated ? "yes" : "no"))
        return lines
    }
}
