/// Whether polled sysfs reads keep up with their period (docs/sensors.md "Slow polled reads"):
/// a pure value the polled driver feeds each read's duration, tested with made-up durations
/// (`SlowReadWatchTests`), as `SamplePacer` and `RestCycle` are.
///
/// Why: some drivers power the chip up for each raw read and down after it (st_lsm6dsx with its
/// sensor off: 250–320 ms a value, 1.8 s for a sample of six values). The capture thread then
/// reads back to back and the motion is sampled at a fraction of a hertz while the configured
/// rate says 100 Hz; nothing stalls (the thread is the capture's own, the event loop never
/// waits for it), but the user sees a sluggish offset and nothing said why. This says it once.
///
/// What it does not change: a sample's time stays the middle of its reads (the values are as
/// old as the reads that returned them, IIOPolledDriver.readNow), never the read's end or its
/// length, and the engine does not integrate a gyroscope over an interval longer than its
/// `maxGap` (MotionEngine), so a 1.8 s gap is a gap, not a turn.
public struct SlowReadWatch: Sendable, Equatable {
    /// A read counts as slow when it takes this many periods (or more).
    public static let slowFactor = 4.0
    /// Slow reads in a row before it is said: one slow read (a device waking from runtime PM,
    /// 0.22 s on a HID hub) is not a slow device.
    public static let evidence = 3

    /// The slowness, once found.
    public struct Verdict: Sendable, Equatable, CustomStringConvertible {
        /// The shortest of the slow reads in a row (ns): the best the device did.
        public var readTime: Int64
        /// Samples a second the reads allow (Hz): the period or the read time, whichever is longer.
        public var rate: Double

        /// "reads take 1.8 s: polled at 0.56 Hz", the words `status` and the journal use.
        public var description: String {
            "reads take \(Self.seconds(readTime)): polled at \(Self.hertz(rate))"
        }

        static func seconds(_ ns: Int64) -> String {
            let s = Double(ns) / 1e9
            return s >= 1 ? "\(rounded(s, places: 1)) s" : "\(Int((s * 1000).rounded())) ms"
        }

        static func hertz(_ rate: Double) -> String {
            rate >= 10 ? "\(Int(rate.rounded())) Hz" : "\(rounded(rate, places: rate >= 1 ? 1 : 2)) Hz"
        }

        static func rounded(_ value: Double, places: Int) -> String {
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            let text = "\((value * scale).rounded() / scale)"
            return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
        }
    }

    /// The polling period (ns).
    public let period: Int64
    /// Slow reads in a row so far, and the shortest of them.
    private var slowInARow = 0
    private var shortestSlow = Int64.max
    /// Set once found; never cleared (said once per capture).
    public private(set) var verdict: Verdict?

    public init(period: Int64) {
        self.period = max(1, period)
    }

    /// One read took `duration` ns. Returns the verdict the first time the reads are found slow
    /// (the moment to say so), nil otherwise; a fast read starts the count again.
    public mutating func observe(readTook duration: Int64) -> Verdict? {
        guard verdict == nil else { return nil }
        guard Double(duration) >= Self.slowFactor * Double(period) else {
            slowInARow = 0
            shortestSlow = .max
            return nil
        }
        slowInARow += 1
        shortestSlow = min(shortestSlow, duration)
        guard slowInARow >= Self.evidence else { return nil }
        let found = Verdict(readTime: shortestSlow, rate: 1e9 / Double(max(period, shortestSlow)))
        verdict = found
        return found
    }
}
