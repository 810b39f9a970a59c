// The clock wp_presentation's times are in, mapped onto CLOCK_MONOTONIC, the clock of parallaxd's
// frame times and of our own. wlroots uses CLOCK_MONOTONIC; weston with a software clock (its
// headless backend, for one) uses CLOCK_MONOTONIC_RAW, which runs at the hardware's rate while
// CLOCK_MONOTONIC is slewed by NTP (at most 500 ppm: 10 µs over the 20 ms between a frame's
// presentation and its feedback), so a time in it is moved by the two clocks' difference now.

import Glibc

enum PresentationClock {
    case monotonic
    case monotonicRaw

    /// nil for any other clock (CLOCK_REALTIME jumps; the others are not ours to compare).
    init?(clockID: UInt32) {
        switch Int32(clamping: clockID) {
        case CLOCK_MONOTONIC: self = .monotonic
        case CLOCK_MONOTONIC_RAW: self = .monotonicRaw
        default: return nil
        }
    }

    /// `time` (ns on this clock) on CLOCK_MONOTONIC.
    func monotonic(_ time: Int64) -> Int64 {
        switch self {
        case .monotonic:
            return time
        case .monotonicRaw:
            let offset = Self.now(CLOCK_MONOTONIC) - Self.now(CLOCK_MONOTONIC_RAW)
            let (result, overflow) = time.addingReportingOverflow(offset)
            return overflow ? (offset > 0 ? .max : .min) : result
        }
    }

    private static func now(_ clock: Int32) -> Int64 {
        var spec = timespec()
        clock_gettime(clockid_t(clock), &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
