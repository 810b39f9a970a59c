/// The events a capture hands to the loop, bounded, with one wake-up per batch: the queue of
/// every `RunningCapture`, whoever fills it (a capture thread under a lock, the loop itself).
public struct CaptureQueue: Sendable {
    public init() {}

    /// Samples kept while the loop is busy; beyond it the oldest are dropped (the engine only
    /// needs recent motion, and an unbounded queue would grow without limit behind a stalled loop).
    /// Other events are never dropped: each answers something the loop did (an open, a rest
    /// order), so there are only ever a few.
    public static let limit = 4096

    public private(set) var events: [CaptureEvent] = []
    /// How many of `events` are samples.
    private var samples = 0
    public private(set) var dropped = 0
    /// The loop has been woken and has not drained yet: no second wake is needed.
    private var wakePending = false

    /// Queues `event`; true when the loop must be woken for it (`wakingLoop`, and not woken yet).
    public mutating func append(_ event: CaptureEvent, wakingLoop: Bool) -> Bool {
        if case .sample = event {
            if samples >= Self.limit, let oldest = events.firstIndex(where: \.isSample) {
                events.remove(at: oldest)
                dropped += 1
            } else {
                samples += 1
            }
        }
        events.append(event)
        // One wake per batch: the loop drains everything it finds.
        return wakingLoop ? nudge() : false
    }

    /// True when the loop must be woken for what is queued: nothing has woken it since it drained.
    public mutating func nudge() -> Bool {
        guard !wakePending else { return false }
        wakePending = true
        return true
    }

    /// Every queued event (oldest first) and the samples dropped since last time; the next
    /// event wakes the loop again.
    public mutating func drain() -> (events: [CaptureEvent], dropped: Int) {
        defer { events.removeAll(keepingCapacity: true); samples = 0; dropped = 0; wakePending = false }
        return (events, dropped)
    }
}
