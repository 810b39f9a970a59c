import ParallaxMotion
import SystemPackage

/// What the daemon asks of a source while the device lies still (docs/power.md).
public struct RestRequest: Sendable, Equatable {
    /// Samples per second wanted at rest (Hz): the slowest rate whose samples still show the
    /// first motion soon enough. Default 6.25 Hz (a BMI160 rate; iOS drops to 5–8 Hz near centre).
    public var rate: Double
    /// Longest (ns) the first sample of a motion may wait in the source before the capture
    /// thread sees it: bounds how many samples a kernel buffer may gather per wake-up. Default 80 ms,
    /// so that with processing the first frame comes within 100 ms of the first moving sample.
    public var onsetBudget: Int64

    public static let defaultRate = 6.25
    public static let defaultOnsetBudget: Int64 = 80_000_000
    /// The engine treats longer gaps between samples as gaps (MotionSettings.maxGap, 0.2 s): no
    /// rest rate goes below this (Hz).
    public static let minimumRate = 5.0

    public init(rate: Double = RestRequest.defaultRate, onsetBudget: Int64 = RestRequest.defaultOnsetBudget) {
        self.rate = rate.isFinite ? max(rate, Self.minimumRate) : Self.defaultRate
        self.onsetBudget = max(0, onsetBudget)
    }
}

/// How a source runs at rest: its rate, how many samples one wake-up of the capture (the event
/// loop's, or a capture thread's) takes, and how it waits for them.
public struct RestPace: Sendable, Equatable {
    /// Samples per second at rest (Hz).
    public var rate: Double
    /// Samples gathered per wake-up (a kernel buffer's watermark; a replay's rows per look).
    public var samplesPerWake: Int
    /// The source wakes the capture itself through a descriptor (a kernel buffer that honours
    /// its watermark); otherwise the capture looks every `lookInterval`.
    public var wakesThroughDescriptor: Bool

    public init(rate: Double, samplesPerWake: Int, wakesThroughDescriptor: Bool) {
        self.rate = rate
        self.samplesPerWake = max(1, samplesPerWake)
        self.wakesThroughDescriptor = wakesThroughDescriptor
    }

    /// Time (ns) between the capture's looks when nothing wakes it.
    public var lookInterval: Int64 { Int64(1e9 * Double(samplesPerWake) / max(rate, RestRequest.minimumRate)) }

    /// Wake-ups per second of the capture at rest.
    public var wakesPerSecond: Double { rate / Double(samplesPerWake) }

    /// The rest rate out of what a device offers (`available`, Hz; empty when it cannot be set)
    /// and the rate it runs at now (`active`, Hz): the slowest offered rate at or above the
    /// request (never faster than `active`), then as many samples per wake-up as fit both the
    /// request's pace (`rate`/`request.rate`, rounded) and its onset budget (the first sample of
    /// a batch waits for the last).
    ///
    /// Why round and not floor: a device whose slowest rate is 12.5 Hz then takes two samples
    /// per wake-up (6.25 a second, the first waiting 80 ms) rather than one (12.5 a second).
    /// The slowest rate of `offered` at or above `wanted` (else the fastest below it), never
    /// above `limit` nor below the engine's longest gap (`RestRequest.minimumRate`); nil when
    /// none qualifies.
    public static func slowest(in offered: [Double], atLeast wanted: Double, atMost limit: Double) -> Double? {
        let usable = offered.filter { $0.isFinite && $0 >= RestRequest.minimumRate && $0 <= limit }.sorted()
        return usable.first { $0 >= wanted } ?? usable.last
    }

    public static func choose(available: [Double], active: Double, request: RestRequest,
                              wakesThroughDescriptor: Bool) -> RestPace {
        let rate = slowest(in: available, atLeast: request.rate, atMost: active) ?? active
        let perPace = (rate / request.rate).rounded()
        let perOnset = 1 + (Double(request.onsetBudget) / 1e9 * rate).rounded(.down)
        return RestPace(rate: rate, samplesPerWake: sampleCount(min(perPace, perOnset)),
                        wakesThroughDescriptor: wakesThroughDescriptor)
    }

    /// Most samples one wake-up gathers: above what any plausible device gives (80 ms at
    /// 100 kHz is 8001); it keeps a count computed from a garbage rate inside Int.
    public static let maximumSamplesPerWake = 10_000

    /// `count` in 1…`maximumSamplesPerWake`, clamped while a Double (NaN: 1).
    private static func sampleCount(_ count: Double) -> Int {
        guard count >= 1 else { return 1 }
        return count < Double(maximumSamplesPerWake) ? Int(count) : maximumSamplesPerWake
    }
}

/// When the capture next looks at a resting source.
public struct RestWakeup: Sendable, Equatable {
    /// Readable when samples are there (a kernel buffer past its watermark); nil: none. The
    /// source owns it (it stays open while the source is).
    public var descriptor: FileDescriptor?
    /// When (monotonic ns) the next sample is due; `.max`: the descriptor says when.
    public var due: Int64

    public init(descriptor: FileDescriptor? = nil, due: Int64 = .max) {
        self.descriptor = descriptor
        self.due = due
    }
}

/// A source that can slow down while the device lies still, so that a device on a desk with a
/// parallax wallpaper subscribed costs next to nothing (docs/power.md). Only the capture calls
/// these: its thread, or for a source read on the event loop (LoopCapture.swift) the loop, with
/// `enterRest` and `leaveRest` on a background thread while the loop leaves the source alone.
/// The supervisor never takes from a resting source.
public protocol RestingSource: AnyObject {
    /// Slows down for a device at rest; returns the pace chosen. Samples queued before it are
    /// taken first (by `takeResting`), so nothing is lost.
    func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace
    /// Back to the full rate: the device moved, or the daemon needs samples at full rate again.
    func leaveRest() throws(SensorError)
    /// What to wait for before the next look.
    var restWakeup: RestWakeup { get }
    /// The next sample readable now, or nil; never blocks. Throws when the sensors are lost.
    func takeResting() throws(SensorError) -> Sample?
    /// The source itself saw the device move among the samples `takeResting` handed over: a HID
    /// hub at rest reports only a change beyond its sensitivity, so its report is the motion,
    /// even when the capture thread's gate (which compares with the still mean, not with the
    /// hub's last report) is on the fence. Without it the next report would come a rest
    /// interval later (160 ms).
    var reportedMotion: Bool { get }
}

extension RestingSource {
    /// Sources that keep sampling at rest leave motion to the gate.
    public var reportedMotion: Bool { false }
}
