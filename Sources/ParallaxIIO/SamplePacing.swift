import ParallaxMotion
import SystemPackage

/// A source that keeps samples while nobody reads: a kernel IIO buffer, a recording.
///
/// Why it matters: the event loop needs samples only when a subscriber is due for a frame (30–60
/// times a second) while sensors deliver 100–200. The loop reading such a source (`LoopCapture`)
/// can wait until just before a frame is due and take everything queued in one go, instead of
/// waking for every sample; on a VM each wake-up costs 35–85 µs, more than everything else the
/// daemon does per sample. Polled sysfs reads keep nothing, so the polled driver is not one.
public protocol QueuedSampleSource: AnyObject {
    /// Best guess (monotonic ns) of when the first sample taken at or after `time` becomes
    /// readable. A guess that is early costs one more wake-up; one that is late delays that
    /// sample, so drivers aim at the expected arrival, not after it.
    func expectedArrival(ofSampleAt time: Int64) -> Int64
    /// The next queued sample if one is readable now, without waiting; nil if none is.
    /// Throws when the sensors are lost, as `SensorDriver.nextSample` does.
    func takeQueued() throws(SensorError) -> Sample?
    /// The stream ended normally (a replay without looping): nothing more will come.
    var hasEnded: Bool { get }
    /// Longest (ns) the queue may stay unread before samples would be lost.
    var queueSpan: Int64 { get }
    /// When (monotonic ns) the sample `nextSample` last returned was taken, in sample time, which
    /// the daemon's needs are in (a replay's stamps run ahead of the clock at speeds above 1).
    var lastSampleArrival: Int64 { get }
    /// Whether `takeQueued` never blocks; false when some of its samples need a blocking read
    /// (a polled sensor merged with buffered ones): such a source is read on a capture thread.
    var takesWithoutBlocking: Bool { get }
}

extension QueuedSampleSource {
    public var takesWithoutBlocking: Bool { true }

    /// Appends every sample readable now to `events`, in order; returns when the last one taken
    /// was taken (`lastSampleArrival`), 0 if none. The loop's take, whoever runs the capture.
    public func takeAll(into events: inout [CaptureEvent]) throws(SensorError) -> Int64 {
        var newest: Int64 = 0
        while let sample = try takeQueued() {
            events.append(.sample(sample))
            newest = lastSampleArrival
        }
        return newest
    }
}

/// When the event loop next needs a fresh sample, as the capture plans its reads.
///
/// The loop sets it after every batch (`RunningCapture.wakeForSamples`). `following` is the
/// need after that one, so that the capture, having delivered the sample for `need`, can plan
/// its next wait at once without waiting for the loop to say so (which would cost a second
/// wake-up per frame).
public struct SampleNeed: Sendable, Equatable {
    /// Samples taken before this (monotonic ns) are queued without waking the loop; 0: every
    /// sample wakes it.
    public var need: Int64
    /// The need after `need` has been served (monotonic ns); nil: unknown, wait for the loop.
    public var following: Int64?

    public init(need: Int64, following: Int64? = nil) {
        self.need = need
        self.following = following
    }

    /// Every sample wakes the loop.
    public static let everySample = SampleNeed(need: 0)
}

/// A source the event loop may read itself, with no thread (docs/architecture.md "Threads"): every
/// take is non-blocking, and it says when its next sample becomes readable, so the loop arms a
/// timer for it instead of a thread waiting. A replay, an evdev motion device, local IIO buffers.
public protocol PollableSource: SensorDriver, QueuedSampleSource, RestingSource {
    /// When (monotonic ns) the next sample becomes readable; `.max` when none will.
    var nextReadable: Int64 { get }
    /// Readable (EPOLLIN) when samples are there: an evdev node. The loop watches it only while
    /// it waits for a sample already due, so that a device reporting faster than frames are due
    /// does not wake it per report; nil: `nextReadable` alone says when (a replay's due rows).
    var descriptor: FileDescriptor? { get }
    /// While the loop waits on `descriptor`: when (monotonic ns) to look even if it stays quiet
    /// (a sample held for another device is due to go); `.max`: the descriptor says when.
    var lookAtTheLatest: Int64 { get }
    /// The loop waited on `descriptor` and it became readable: what the next take reads was
    /// waited for (a forecast learns from it how late samples come).
    func descriptorBecameReadable()
}

extension PollableSource {
    public var descriptor: FileDescriptor? { nil }
    public var lookAtTheLatest: Int64 { .max }
    public func descriptorBecameReadable() {}
}
