import CLinux
import Glibc

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
    var cpuNanoseconds: Int64 { schedstat(field: 0) }

    /// How many times its threads were put on a CPU (schedstat's third field, all threads): each
    /// is a wake-up from a sleep or a return after preemption, so this counts the daemon's wake-ups
    /// on an otherwise quiet machine.
    var runPeriods: Int64 { schedstat(field: 2) }

    /// One field of /proc/PID/task/*/schedstat, summed over the live threads.
    private func schedstat(field: Int) -> Int64 {
        guard let dir = opendir("/proc/\(pid)/task") else { return 0 }
        defer { closedir(dir) }
        var total: Int64 = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix("."), let text = readFile("/proc/\(pid)/task/\(name)/schedstat") else { continue }
            let fields = text.split(separator: " ")
            if field < fields.count { total += Int64(fields[field].filter { $0 != "\n" }) ?? 0 }
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
