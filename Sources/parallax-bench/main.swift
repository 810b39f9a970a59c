// parallax-bench: end-to-end numbers for the hub (issue "Publishing at scale"), measured on the
// real parallaxd binary over its real socket. See BENCHMARKS.md for the results and how to run.
//
// Latency is from a sample entering the daemon to its offset line arriving at a client: the frame's
// `t` is the CLOCK_MONOTONIC time at which the capture thread took the sample (docs/frames.md "Time"), and
// the client reads CLOCK_MONOTONIC when the line arrives. Motion comes from a synthetic trace
// replayed at 200 Hz in which every sample moves the offset, so every sample yields a frame.

import CLinux
import Glibc

// MARK: - Command line

struct Options {
    var daemon = ".build/release/parallaxd"
    var subscriberCounts = [1, 100, 1000]
    var rate = 60
    var seconds = 10.0
    var cpuSeconds = 30.0
    var idleSeconds = 60.0
    var inputRate = 200.0
    /// `[Motion] MinimumChange` values to measure latency under (offset units).
    var minimumChanges = [0.0, 0.015]

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 1
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--daemon": o.daemon = value()
            case "--subscribers": o.subscriberCounts = value().split(separator: ",").compactMap { Int($0) }
            case "--rate": o.rate = Int(value()) ?? o.rate
            case "--seconds": o.seconds = Double(value()) ?? o.seconds
            case "--cpu-seconds": o.cpuSeconds = Double(value()) ?? o.cpuSeconds
            case "--idle-seconds": o.idleSeconds = Double(value()) ?? o.idleSeconds
            case "--minimum-change": o.minimumChanges = value().split(separator: ",").compactMap { Double($0) }
            case "-h", "--help":
                print("""
                    usage: parallax-bench [--daemon PATH] [--subscribers 1,100,1000] [--rate HZ] [--seconds S]
                                          [--cpu-seconds S] [--idle-seconds S] [--minimum-change 0,0.015]
                    """)
                exit(0)
            default: fail("unknown argument \(args[i])")
            }
            i += 1
        }
        return o
    }
}

func fail(_ message: String) -> Never {
    var bytes = Array("parallax-bench: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(1)
}

// MARK: - Files

func writeFile(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { fail("cannot write \(path)") }
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func readFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 8192)
    let n = read(fd, &buffer, buffer.count)
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
}

/// A device rocking ±20° about +X with a 2 s period: every sample moves the offset.
func rockingTrace(seconds: Double, rate: Double) -> String {
    var lines = ["# parallax-bench: rocking about +X, 20 deg amplitude, 2 s period", "t_ns,ax,ay,az,gx,gy,gz"]
    let amplitude = 20.0 * Double.pi / 180, w = Double.pi
    for i in 0..<Int(seconds * rate) {
        let t = Double(i) / rate
        let angle = amplitude * sin(w * t)
        let rateX = amplitude * w * cos(w * t)
        // Gravity in the device frame after turning upright (0, −g, 0) by `angle` about +X.
        let g = 9.80665
        lines.append("\(Int64(t * 1e9)),0,\(-g * cos(angle)),\(g * sin(angle)),\(rateX),0,0")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// A device standing upright and still.
func stillTrace(seconds: Double, rate: Double) -> String {
    var lines = ["# parallax-bench: upright and still", "t_ns,ax,ay,az,gx,gy,gz"]
    for i in 0..<Int(seconds * rate) {
        lines.append("\(Int64(Double(i) / rate * 1e9)),0,-9.80665,0,0,0,0")
    }
    return lines.joined(separator: "\n") + "\n"
}

// MARK: - Main

let options = Options.parse(CommandLine.arguments)
var limit = rlimit()
getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)   // 1000 subscribers need 1000 fds here and in the child

var template = Array("/tmp/parallax-bench-XXXXXX".utf8CString)
guard mkdtemp(&template) != nil else { fail("mkdtemp failed") }
let dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
let tracePath = dir + "/rocking.csv"
writeFile(tracePath, rockingTrace(seconds: 20, rate: options.inputRate))
let configPath = dir + "/bench.conf"
// MinimumChange=0: every sample is a frame, so each subscriber really gets its full 60 Hz.
writeFile(configPath, "[Daemon]\nMaxClients=5000\nMaxClientsPerUser=5000\n[Sensor]\nLinger=0.5\n[Motion]\nMinimumChange=0\n")

print("parallax-bench: \(options.daemon), input \(Int(options.inputRate)) Hz (replayed), subscribers at \(options.rate) Hz")
print("")
print("| MinimumChange | subscribers | lines/s | p50 ms | p99 ms | max ms | VmRSS KiB | VmHWM KiB |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
// With a minimum change, frames go out only when the offset moved that much; each must still
// carry the newest sample when it is sent, so its latency stays the processing time.
for minimumChange in options.minimumChanges {
    let latencyConfig = dir + "/latency.conf"
    writeFile(latencyConfig, "[Daemon]\nMaxClients=5000\nMaxClientsPerUser=5000\n[Sensor]\nLinger=0.5\n[Motion]\nMinimumChange=\(minimumChange)\n")
    for count in options.subscriberCounts {
        let daemon = DaemonProcess(binary: options.daemon, dir: dir, trace: tracePath, config: latencyConfig)
        // The subscribers stay connected while the memory is read: RSS with `count` of them.
        let (latencies, lines, open) = measureLatency(socket: daemon.socketPath, count: count, rate: options.rate,
                                                      seconds: options.seconds, keepOpen: true)
        let memory = daemon.memory
        for fd in open { close(fd) }
        daemon.stop()
        let sorted = latencies.sorted()
        print("| \(minimumChange) | \(count) | \(Int(Double(lines) / options.seconds)) | \(ms(percentile(sorted, 0.5))) | \(ms(percentile(sorted, 0.99))) | \(ms(percentile(sorted, 1.0))) | \(memory.rss) | \(memory.peak) |")
    }
}

/// CPU (% of a core, schedstat), wake-ups per second (schedstat's run periods), memory and
/// lines received with 4 subscribers at 60 Hz.
func measureLoad(trace: String, config: String) -> (cpu: Double, wakeups: Double, memory: (rss: Int, peak: Int), lines: Int) {
    let daemon = DaemonProcess(binary: options.daemon, dir: dir, trace: trace, config: config)
    // Subscribers first, then the window: the capture thread is running for all of it.
    let (_, _, warm) = measureLatency(socket: daemon.socketPath, count: 4, rate: 60, seconds: 0.5, keepOpen: true)
    let before = daemon.cpuNanoseconds
    let periodsBefore = daemon.runPeriods
    let start = plx_monotonic_ns()
    let (_, lines, _) = measureLatency(socket: daemon.socketPath, count: 0, rate: 60, seconds: options.cpuSeconds, reuse: warm)
    let elapsed = Double(plx_monotonic_ns() - start)
    let cpu = Double(daemon.cpuNanoseconds - before) / elapsed * 100
    let wakeups = Double(daemon.runPeriods - periodsBefore) / elapsed * 1e9
    let memory = daemon.memory
    daemon.stop()
    return (cpu, wakeups, memory, lines)
}

// CPU and memory for the typical load: 4 subscribers at 60 Hz, 200 Hz input, the device moving.
do {
    let load = measureLoad(trace: tracePath, config: configPath)
    let floor = wakeupFloor(rate: options.inputRate, seconds: 10)
    print("")
    print("typical load (4 × 60 Hz, \(Int(options.inputRate)) Hz input, \(Int(options.cpuSeconds)) s): CPU \(ms(load.cpu))% of a core, \(Int(load.wakeups.rounded())) wake-ups/s, RSS \(load.memory.rss) KiB (peak \(load.memory.peak) KiB), \(load.lines) lines")
    print("wake-up floor at \(Int(options.inputRate)) Hz on this machine now: \(ms(floor))% of a core; the daemon costs \(ms(load.cpu / floor).dropLast(1))× the floor")
}

// The same subscribers with the device at rest and the default MinimumChange: no frames to send,
// so this is what watching for motion costs.
do {
    let stillPath = dir + "/still.csv"
    writeFile(stillPath, stillTrace(seconds: 20, rate: options.inputRate))
    let restConfig = dir + "/rest.conf"
    writeFile(restConfig, "[Daemon]\nMaxClients=5000\nMaxClientsPerUser=5000\n[Sensor]\nLinger=0.5\n")
    let load = measureLoad(trace: stillPath, config: restConfig)
    print("at rest (4 × 60 Hz, \(Int(options.inputRate)) Hz input, device still, \(Int(options.cpuSeconds)) s): CPU \(ms(load.cpu))% of a core, \(Int(load.wakeups.rounded())) wake-ups/s, \(load.lines) lines")
}

// Idle: no subscribers; after the start-up probe's linger the daemon must not run at all.
do {
    let daemon = DaemonProcess(binary: options.daemon, dir: dir, trace: tracePath, config: configPath)
    usleep(1_500_000)   // the start-up probe opens the sensors, then closes them after Linger=0.5
    let before = daemon.cpuTicks
    let beforeNs = daemon.cpuNanoseconds
    usleep(useconds_t(options.idleSeconds * 1e6))
    let ticks = daemon.cpuTicks - before
    let ns = daemon.cpuNanoseconds - beforeNs
    let memory = daemon.memory
    daemon.stop()
    print("idle (no subscribers, \(Int(options.idleSeconds)) s): \(ticks) CPU ticks, \(ns) ns of CPU, RSS \(memory.rss) KiB")
}
