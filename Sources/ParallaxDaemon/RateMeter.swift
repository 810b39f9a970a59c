/// Events per second over the last second (status reports).
struct RateMeter {
    private var times: [Int64] = []
    private var head = 0

    mutating func record(_ t: Int64) {
        times.append(t)
        // Drop what fell out of the one-second window, amortised.
        if head > 256 { times.removeFirst(head); head = 0 }
        while head < times.count && times[head] < t - 1_000_000_000 { head += 1 }
    }

    func rate(now: Int64) -> Double {
        Double(times[head...].filter { $0 >= now - 1_000_000_000 }.count)
    }
}
