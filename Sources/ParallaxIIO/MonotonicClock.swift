import CLinux
import Glibc

/// CLOCK_MONOTONIC, the one time base of samples, frames and timers (docs/frames.md "Time").
public enum MonotonicClock {
    /// Now, in nanoseconds.
    @inline(__always)
    public static func now() -> Int64 { plx_monotonic_ns() }

    /// Sleeps until `deadline` (ns), waking at least every `slice` ns to ask `shouldStop`, so a
    /// capture thread waiting out a long replay gap still stops promptly. Returns false if stopped.
    public static func sleep(until deadline: Int64, slice: Int64 = 50_000_000,
                             shouldStop: () -> Bool) -> Bool {
        while true {
            if shouldStop() { return false }
            let now = now()
            if now >= deadline { return true }
            let wake = min(deadline, now + slice)
            var ts = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
            // EINTR just loops; the absolute deadline keeps the pace exact.
            _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil)
        }
    }
}
