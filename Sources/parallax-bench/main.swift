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

// MARK: - The daemon under test

final class DaemonProcess {
    let pid: pid_t
    let socketPath: String

    init(binary: String, dir: String, trace: String, config: String) {
        socketPath = dir + "/bench.sock"
        let args = [binary, "--socket", socketPath, "--source", "replay:" + trace, "--config", config, "--log-level", "warning"]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, dir + "/parallaxd.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var child: pid_t = 0
        let rc = posix_spawn(&child, binary, &actions, nil, &argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        for p in argv { free(p) }
        guard rc == 0 else { fail("cannot start \(binary): \(String(cString: strerror(rc)))") }
        pid = child
        // Wait for the socket to answer (the daemon's readiness, observed from outside).
        let deadline = plx_monotonic_ns() + 10_000_000_000
        while plx_monotonic_ns() < deadline {
            let fd = plx_unix_connect(socketPath)
            if fd >= 0 { close(fd); return }
            usleep(10_000)
        }
        fail("parallaxd did not start serving on \(socketPath)")
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// CPU time of all threads in ns (/proc/PID/task/*/schedstat: exact, unlike 10 ms ticks).
    /// Threads that ended (a closed capture thread) drop out, so measure over stable windows.
    var cpuNanoseconds: Int64 {
        guard let dir = opendir("/proc/\(pid)/task") else { return 0 }
        defer { closedir(dir) }
        var total: Int64 = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix("."), let text = readFile("/proc/\(pid)/task/\(name)/schedstat") else { continue }
            total += Int64(text.split(separator: " ").first ?? "0") ?? 0
        }
        return total
    }

    /// utime + stime in clock ticks (all threads, including ended ones).
    var cpuTicks: Int {
        guard let stat = readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// VmRSS and VmHWM in KiB.
    var memory: (rss: Int, peak: Int) {
        var rss = 0, peak = 0
        for line in (readFile("/proc/\(pid)/status") ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("VmRSS:") { rss = Int(parts[1]) ?? 0 }
            if line.hasPrefix("VmHWM:") { peak = Int(parts[1]) ?? 0 }
        }
        return (rss, peak)
    }
}

// MARK: - Subscribers

/// Connects `count` subscribers and records, for every offset line, arrival − t (ns).
func measureLatency(socket path: String, count: Int, rate: Int, seconds: Double,
                    keepOpen: Bool = false, reuse: [Int32] = []) -> (latencies: [Int64], lines: Int, fds: [Int32]) {
    let epoll = plx_epoll_create()
    var fds: [Int32] = reuse
    for (i, fd) in reuse.enumerated() { _ = plx_epoll_add(epoll, fd, PLX_EPOLLIN, UInt64(i)) }
    for i in fds.count..<(fds.count + count) {
        let fd = plx_unix_connect(path)
        guard fd >= 0 else { fail("connect #\(i) failed: \(String(cString: strerror(errno)))") }
        _ = plx_set_nonblocking(fd)
        var line = Array("{\"cmd\":\"subscribe\",\"rate\":\(rate)}\n".utf8)
        _ = line.withUnsafeMutableBytes { plx_send(fd, $0.baseAddress, $0.count) }
        _ = plx_epoll_add(epoll, fd, PLX_EPOLLIN, UInt64(i))
        fds.append(fd)
    }
    var pending = [[UInt8]](repeating: [], count: fds.count)
    var latencies: [Int64] = []
    latencies.reserveCapacity(Int(seconds * Double(rate) * Double(count)) + 1024)
    var lines = 0
    let warmUp = plx_monotonic_ns() + 1_000_000_000
    let end = warmUp + Int64(seconds * 1e9)
    var tokens = [UInt64](repeating: 0, count: 64)
    var events = [UInt32](repeating: 0, count: 64)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while plx_monotonic_ns() < end {
        let n = plx_epoll_wait(epoll, &tokens, &events, 64, 100)
        for k in 0..<Int(max(0, n)) {
            let i = Int(tokens[k])
            let got = recv(fds[i], &buffer, buffer.count, 0)
            guard got > 0 else { continue }
            let now = plx_monotonic_ns()
            pending[i].append(contentsOf: buffer[0..<got])
            while let nl = pending[i].firstIndex(of: UInt8(ascii: "\n")) {
                if now >= warmUp, let t = offsetTime(pending[i][..<nl]) {
                    latencies.append(now - t)
                    lines += 1
                }
                pending[i].removeSubrange(...nl)
            }
        }
    }
    if !keepOpen { for fd in fds { close(fd) } }
    close(epoll)
    return (latencies, lines, fds)
}

/// The `t` of an offset line, found by scanning (the bench must not be slower than the daemon).
func offsetTime(_ line: ArraySlice<UInt8>) -> Int64? {
    let key = Array("\"type\":\"offset\"".utf8)
    guard line.count > key.count, line.starts(with: [UInt8(ascii: "{")] + key) else { return nil }
    let tKey = Array("\"t\":".utf8)
    var i = line.startIndex
    while i + tKey.count < line.endIndex {
        if line[i..<(i + tKey.count)].elementsEqual(tKey) {
            var j = i + tKey.count
            var value: Int64 = 0
            while j < line.endIndex, line[j] >= 48, line[j] <= 57 { value = value * 10 + Int64(line[j] - 48); j += 1 }
            return value
        }
        i += 1
    }
    return nil
}

func percentile(_ sorted: [Int64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]) / 1e6
}

func ms(_ x: Double) -> String {
    let scaled = Int((x * 1000).rounded())
    return "\(scaled / 1000).\(String(repeating: "0", count: 3 - String(scaled % 1000).count))\(scaled % 1000)"
}

// MARK: - The machine's floor

/// CPU share (% of a core) of the least a per-sample hand-off can cost here: a thread sleeping to
/// absolute deadlines at `rate` Hz writes an eventfd, an epoll loop reads it, nothing else
/// (scripts/bench/wakeup-floor.c is the same in C). Wake-ups on this VM cost between 35 and 85 µs
/// depending on the hour, so the daemon's CPU is reported beside this, measured in the same run.
func wakeupFloor(rate: Double, seconds: Double) -> Double {
    let efd = plx_eventfd()
    let epoll = plx_epoll_create()
    _ = plx_epoll_add(epoll, efd, PLX_EPOLLIN, 0)
    let count = Int(rate * seconds)
    let period = Int64(1e9 / rate)
    final class Box { let run: () -> Void; init(_ run: @escaping () -> Void) { self.run = run } }
    let box = Box {
        var deadline = plx_monotonic_ns()
        for _ in 0..<count {
            deadline += period
            var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil)
            _ = plx_eventfd_signal(efd)
        }
    }
    var cpu0 = timespec(), cpu1 = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0)
    let start = plx_monotonic_ns()
    var tid = pthread_t()
    pthread_create(&tid, nil, { arg in
        (Unmanaged<AnyObject>.fromOpaque(arg!).takeRetainedValue() as! Box).run()
        return nil
    }, Unmanaged<AnyObject>.passRetained(box).toOpaque())
    var tokens = [UInt64](repeating: 0, count: 4)
    var events = [UInt32](repeating: 0, count: 4)
    var received = 0
    while received < count {
        if plx_epoll_wait(epoll, &tokens, &events, 4, 1000) > 0 {
            var value: UInt64 = 0
            if read(efd, &value, 8) == 8 { received += Int(value) }
        }
    }
    pthread_join(tid, nil)
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1)
    let elapsed = Double(plx_monotonic_ns() - start)
    close(efd)
    close(epoll)
    let cpu = Double(cpu1.tv_sec - cpu0.tv_sec) * 1e9 + Double(cpu1.tv_nsec - cpu0.tv_nsec)
    return cpu / elapsed * 100
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
print("| MinimumChange | subscribers | lines/s | p50 ms | p99 ms | max ms |")
print("|---:|---:|---:|---:|---:|---:|")
// With a minimum change, frames go out only when the offset moved that much; each must still
// carry the newest sample when it is sent, so its latency stays the processing time.
for minimumChange in options.minimumChanges {
    let latencyConfig = dir + "/latency.conf"
    writeFile(latencyConfig, "[Daemon]\nMaxClients=5000\nMaxClientsPerUser=5000\n[Sensor]\nLinger=0.5\n[Motion]\nMinimumChange=\(minimumChange)\n")
    for count in options.subscriberCounts {
        let daemon = DaemonProcess(binary: options.daemon, dir: dir, trace: tracePath, config: latencyConfig)
        let (latencies, lines, _) = measureLatency(socket: daemon.socketPath, count: count, rate: options.rate, seconds: options.seconds)
        daemon.stop()
        let sorted = latencies.sorted()
        print("| \(minimumChange) | \(count) | \(Int(Double(lines) / options.seconds)) | \(ms(percentile(sorted, 0.5))) | \(ms(percentile(sorted, 0.99))) | \(ms(percentile(sorted, 1.0))) |")
    }
}

/// CPU (% of a core, schedstat), memory and lines received with 4 subscribers at 60 Hz.
func measureLoad(trace: String, config: String) -> (cpu: Double, memory: (rss: Int, peak: Int), lines: Int) {
    let daemon = DaemonProcess(binary: options.daemon, dir: dir, trace: trace, config: config)
    // Subscribers first, then the window: the capture thread is running for all of it.
    let (_, _, warm) = measureLatency(socket: daemon.socketPath, count: 4, rate: 60, seconds: 0.5, keepOpen: true)
    let before = daemon.cpuNanoseconds
    let start = plx_monotonic_ns()
    let (_, lines, _) = measureLatency(socket: daemon.socketPath, count: 0, rate: 60, seconds: options.cpuSeconds, reuse: warm)
    let elapsed = Double(plx_monotonic_ns() - start)
    let cpu = Double(daemon.cpuNanoseconds - before) / elapsed * 100
    let memory = daemon.memory
    daemon.stop()
    return (cpu, memory, lines)
}

// CPU and memory for the typical load: 4 subscribers at 60 Hz, 200 Hz input, the device moving.
do {
    let load = measureLoad(trace: tracePath, config: configPath)
    let floor = wakeupFloor(rate: options.inputRate, seconds: 10)
    print("")
    print("typical load (4 × 60 Hz, \(Int(options.inputRate)) Hz input, \(Int(options.cpuSeconds)) s): CPU \(ms(load.cpu))% of a core, RSS \(load.memory.rss) KiB (peak \(load.memory.peak) KiB), \(load.lines) lines")
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
    print("at rest (4 × 60 Hz, \(Int(options.inputRate)) Hz input, device still, \(Int(options.cpuSeconds)) s): CPU \(ms(load.cpu))% of a core, \(load.lines) lines")
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
