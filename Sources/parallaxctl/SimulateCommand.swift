// `parallaxctl simulate TRACE [--config FILE]`: the motion engine over a trace file, offline.
// One JSON line per sample, so settings can be tuned without a device and compared with oracles.

import ArgumentParser
import ParallaxConfig
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the motion engine over a trace file and print {\"t\",\"x\",\"y\",\"vx\",\"vy\",\"yaw\",\"vyaw\",\"q\"} per sample.",
        discussion: """
            One line per trace row: t (the row's ns), x and y (the offset after that row, in the \
            output's axes), vx and vy (their rates of change, offset units per second), yaw and \
            vyaw (the heading about the world's vertical, rad and rad/s, the same in every \
            rotation), q (the attitude, device→earth, earth Z up, as [w, x, y, z]).
            """)

    @Argument(help: "A trace file (t_ns,ax,ay,az,gx,gy,gz).")
    var trace: String

    @Option(help: "Take [Motion] settings from this config file (and its .d drop-ins).")
    var config: String?

    @Option(help: "Clockwise rotation of the output (0, 90, 180 or 270), as a subscription's \"rotation\".")
    var rotation: Int = 0

    /// Digits after the point: offsets to 1e-6 (far below what a client can see), quaternion
    /// components to 1e-8 (≈ 1e-6° of attitude) so oracle comparisons are not limited by printing.
    static let offsetDecimals = 6
    /// Yaw to 1e-6 rad (6e-5°), for the same reason.
    static let headingDecimals = 6
    static let quaternionDecimals = 8

    func validate() throws {
        guard DisplayRotation(degrees: rotation) != nil else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270")
        }
    }

    func run() throws {
        let outputRotation = DisplayRotation(degrees: rotation) ?? .none
        var settings = MotionSettings()
        if let config {
            let load = ConfigLoader.load(path: config, required: true)
            for w in load.warnings { Console.error("\(w) (warning)") }
            if !load.errors.isEmpty {
                for e in load.errors { Console.error("\(e)") }
                throw ExitCode(SysExit.config)
            }
            settings = load.config.motion
        }
        var engine = MotionEngine(settings: settings)
        engine.headingWanted = true  // yaw is printed on every line
        var writer = JSONLineWriter(capacity: 224)
        do {
            let reader = try TraceReader(path: trace)
            while let sample = try reader.next() {
                _ = engine.update(sample)
                let o = engine.current.rotated(by: outputRotation)
                let v = engine.velocity.rotated(by: outputRotation)
                let q = engine.attitude
                writer.reset()
                writer.beginObject()
                writer.key("t"); writer.int(sample.t)
                writer.key("x"); writer.fixed(o.x, decimals: Self.offsetDecimals)
                writer.key("y"); writer.fixed(o.y, decimals: Self.offsetDecimals)
                writer.key("vx"); writer.fixed(v.x, decimals: Self.offsetDecimals)
                writer.key("vy"); writer.fixed(v.y, decimals: Self.offsetDecimals)
                writer.key("yaw"); writer.fixed(engine.heading.yaw, decimals: Self.headingDecimals)
                writer.key("vyaw"); writer.fixed(engine.heading.rate, decimals: Self.headingDecimals)
                writer.key("q")
                writer.beginArray()
                for c in [q.w, q.x, q.y, q.z] { writer.fixed(c, decimals: Self.quaternionDecimals) }
                writer.endArray()
                writer.endObject()
                try Console.print(bytes: writer.bytes)
            }
        } catch let error as SensorError {
            Console.error(error.message)
            throw ExitCode(ExitStatus.failure)
        } catch is Console.Closed {
            return
        }
    }
}
