import ParallaxMotion

/// A running capture as the event loop drives it: all the supervisor asks of it, whoever reads
/// the source: a capture thread (`SensorCapture`: polled sysfs, remote contexts) or the loop
/// itself (`LoopCapture`: a replay, an evdev node, local IIO buffers; docs/architecture.md
/// "Threads"). The supervisor does not know which it has.
public protocol RunningCapture: AnyObject {
    /// Starts reading; false if it cannot (no thread to be had).
    func start() -> Bool
    /// Stops without waiting: whatever it still queues is never read.
    func stop()
    /// Stops and waits until the source is closed (at shutdown, so devices are released before exit).
    func stopAndWait()
    /// When a capture that `stop` left running has closed its source (CaptureEnd.swift); nil
    /// when `stop` itself closes it.
    var ending: CaptureEnd? { get }
    /// Every queued event (oldest first) and the count of samples dropped since last time.
    func events() -> (events: [CaptureEvent], dropped: Int)
    /// The queued events and every sample the source holds now, taken without waiting;
    /// `newestArrival` is when the last sample taken from the source was taken (0 if none). nil
    /// when the loop cannot take from the source now (SamplePacer.swift); always nil for a
    /// capture thread's source, which only that thread reads.
    func takeQueuedEvents() -> (events: [CaptureEvent], dropped: Int, newestArrival: Int64)?
    /// The source's forecast of when the sample for `time` is readable; nil as for `takeQueuedEvents`.
    func expectedArrival(ofSampleAt time: Int64) -> Int64?
    /// When the loop next needs samples: those before are queued without waking it.
    func wakeForSamples(_ need: SampleNeed)
    /// Runs the source at rest (`order`), or back at its full rate (nil) (RestCycle.swift).
    func rest(_ order: RestOrder?)
}

/// What a capture tells the loop, in order.
public enum CaptureEvent: Sendable, Equatable {
    /// What the source opened and what it can do, fixed for this capture's life.
    case opened([SensorDescription], SourceAbilities = SourceAbilities())
    case sample(Sample)
    /// The same sensors described anew while capturing (a polled device found slow); shown in
    /// `status`, nothing downstream starts over.
    case revised([SensorDescription])
    /// The driver failed to open or was lost; the capture has ended.
    case failed(SensorError)
    /// The stream ended normally (a replay without looping); the capture has ended.
    case ended
    /// The source opened is one the event loop reads itself (a `PollableSource`): the capture
    /// thread opened it and ended; the loop takes it (`SensorCapture.takeHandedOver`) and reads
    /// it from here on (`LoopCapture`). Its `.opened` comes from there.
    case handedOver
    /// The source runs at its rest pace for the loop's order `order` (`RestOrder.serial`,
    /// SensorCapture+Rest.swift).
    case resting(RestPace, order: UInt64)
    /// The source is back at its full rate: `moved`, the device moved; else the loop withdrew
    /// the order. `order`: the last order the capture thread rested for.
    case awake(moved: Bool, order: UInt64)

    var isSample: Bool { if case .sample = self { true } else { false } }
}

/// What an opened source can do, told to the loop with `.opened`: fixed for the capture's life,
/// so the loop keeps its own copy and asks no lock.
public struct SourceAbilities: Sendable, Equatable {
    /// The loop may take what the source queued (`LoopCapture.takeQueuedEvents`): the loop
    /// reads the source itself. Never for a capture thread's source.
    public var takesQueued: Bool
    /// It can slow down while the device lies still (`RestingSource`).
    public var rests: Bool
    /// Why it polls a device that could be buffered: its buffer failed in a way that may pass (a
    /// trigger slow to start, a hub still waking after a resume), so opening it again later may
    /// buffer (the supervisor tries, with back-off). nil when buffering was not tried or worked.
    public var bufferingFailed: String?

    public init(takesQueued: Bool = false, rests: Bool = false, bufferingFailed: String? = nil) {
        self.takesQueued = takesQueued
        self.rests = rests
        self.bufferingFailed = bufferingFailed
    }
}
