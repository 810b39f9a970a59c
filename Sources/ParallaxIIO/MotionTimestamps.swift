/// Sample times from a device's own 32-bit microsecond counter (evdev `MSC_TIMESTAMP`), put on
/// the monotonic clock (docs/frames.md "Time").
///
/// Why not the counter alone: it wraps every 71.6 minutes, starts anywhere, and its clock is the
/// device's (hid-steam's is synthetic: +4000 µs per report of the Steam Deck, whatever the real
/// spacing was). Why not the report time alone: the counter's spacing is the device's measure,
/// free of the delivery's jitter. So the counter is unwrapped into 64 bits and its spacing kept,
/// anchored at a report's `SYN_REPORT` time (kernel, CLOCK_MONOTONIC): a sample time is never
/// after the report that delivered it, nor more than `maximumLag` before it; beyond either bound
/// the anchor moves to that report. The anchor thus settles on the reports delivered soonest
/// after their measurement, and a counter that drifts, jumps (a device muted for a while, a
/// counter reset) or stops is followed within one report.
public struct MotionTimestamps: Sendable, Equatable {
    /// How far (ns) a sample time may lag the report that delivered it before the counter's clock
    /// counts as having drifted: a USB report arrives within a few ms of its measurement; hid-steam's
    /// 4 ms counter against reports that come every 4 ± 4 ms stays within it.
    public static let maximumLag: Int64 = 25_000_000

    private var lastCount: UInt32?
    /// The counter since the first report, unwrapped (µs).
    private var unwrapped: Int64 = 0
    /// The unwrapped count and the monotonic time (ns) that count stands for.
    private var anchor: (count: Int64, time: Int64)?
    private var last: Int64 = 0
    /// How often the anchor moved after the first (the counter's clock left the bounds).
    public private(set) var reanchors = 0

    public init() {}

    /// The time (monotonic ns) of a report delivered at `report` (its SYN_REPORT's time) that
    /// carried the counter value `count` (nil: the report had none, its time is the report's).
    /// Strictly increasing from one call to the next.
    public mutating func time(count: UInt32?, report: Int64) -> Int64 {
        var t = report
        if let count {
            // Modulo 2^32: a wrap is one more step forward.
            unwrapped = unwrapped.saturatingAdding(lastCount.map { Int64(count &- $0) } ?? 0)
            lastCount = count
            if let anchor {
                let spaced = anchor.time.saturatingAdding(unwrapped.saturatingSubtracting(anchor.count).saturatingMultiplied(by: 1000))
                if spaced > report || spaced < report.saturatingSubtracting(Self.maximumLag) {
                    self.anchor = (unwrapped, report)
                    reanchors += 1
                } else {
                    t = spaced
                }
            } else {
                anchor = (unwrapped, report)
            }
        }
        t = max(t, last.saturatingAdding(1))
        last = t
        return t
    }

    /// Forgets the counter (events were lost: its next value may be any distance on), keeping the
    /// last time so that times still increase.
    public mutating func restart() {
        lastCount = nil
        anchor = nil
        unwrapped = 0
    }

    public static func == (a: MotionTimestamps, b: MotionTimestamps) -> Bool {
        a.lastCount == b.lastCount && a.unwrapped == b.unwrapped && a.anchor?.count == b.anchor?.count
            && a.anchor?.time == b.anchor?.time && a.last == b.last && a.reanchors == b.reanchors
    }
}
