import CLinux
import Glibc

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
