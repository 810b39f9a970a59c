/// Whether the system slept since it was last asked: CLOCK_BOOTTIME counts the time suspended,
/// CLOCK_MONOTONIC does not, so their difference grows by exactly the time asleep (S3 and
/// suspend-to-idle alike). A pure value: the caller reads both clocks.
///
/// Why a clock and not only logind: the daemon runs where no logind is (containers, a plain
/// init, `--source` tests), and logind's PrepareForSleep(false) can come after the first sample
/// of the resumed system. Both clocks are read back to back, so the difference moves by
/// nanoseconds while awake; anything over `threshold` is sleep.
struct SleepClock: Sendable, Equatable {
    /// Growth of BOOTTIME − MONOTONIC (ns) that counts as a sleep: far above the jitter of two
    /// back-to-back clock reads (µs), far below the shortest real suspend (seconds).
    static let threshold: Int64 = 50_000_000

    /// BOOTTIME − MONOTONIC (ns) when last rebased.
    private(set) var offset: Int64

    init(boottime: Int64, monotonic: Int64) {
        offset = boottime &- monotonic
    }

    /// How long the system slept (ns) since the last call that returned one (or `rebase`), nil
    /// when it did not; a sleep is told once.
    mutating func slept(boottime: Int64, monotonic: Int64) -> Int64? {
        let now = boottime &- monotonic
        let grown = now &- offset
        guard grown > Self.threshold else { return nil }
        offset = now
        return grown
    }

    /// Takes the current difference as the new base: a sleep already told another way (logind)
    /// is not told again.
    mutating func rebase(boottime: Int64, monotonic: Int64) {
        offset = boottime &- monotonic
    }
}
