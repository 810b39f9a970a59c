/// When a capture that polls in place of a buffer tries buffering again: after `first`, then
/// twice as long each time buffering fails again, up to `longest`; after `first` again once it
/// buffered, or after a resume. A pure value: the supervisor schedules the try and opens
/// (Supervisor+BufferRetry.swift).
struct BufferRetryBackoff: Equatable {
    /// The first wait (ns): longer than a hub takes to wake after a resume (its first report
    /// came 0.2–0.4 s after it in the lab), short enough that a laptop is not left for long on its
    /// costly path (synchronous reads).
    static let defaultFirst: Int64 = 5_000_000_000
    /// The longest wait (ns): a device whose buffer never works costs one reopen per 5 minutes.
    static let defaultLongest: Int64 = 300_000_000_000

    let first: Int64
    let longest: Int64
    /// The wait before the next try (ns).
    private(set) var next: Int64

    init(first: Int64 = defaultFirst, longest: Int64 = defaultLongest) {
        self.first = first
        self.longest = max(first, longest)
        next = first
    }

    /// The wait before the try now being planned (ns); the one after it is twice as long.
    mutating func take() -> Int64 {
        let wait = next
        next = min(next * 2, longest)
        return wait
    }

    /// Buffering worked, or the system resumed: the next failure waits `first` again.
    mutating func reset() {
        next = first
    }
}
