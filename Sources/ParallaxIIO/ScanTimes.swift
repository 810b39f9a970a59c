import ParallaxMotion

/// Gives each scan of a refill its sample time (monotonic ns), from the kernel's timestamp
/// channel when it counts our clock, else from the read time; times never run backwards.
struct ScanTimes {
    /// Where sample times come from.
    enum Source: Equatable {
        /// The timestamp channel counts CLOCK_MONOTONIC: used as is.
        case kernelMonotonic
        /// The timestamp channel counts another clock (realtime, boottime…): only its spacing is
        /// used, anchored at the read time.
        case kernelSpacing(clock: String)
        /// No timestamp channel: scans are spaced by the sampling period back from the read time.
        case readTime
    }

    /// A monotonic kernel timestamp this far ahead of the read time (ns) is not believed.
    static let futureTolerance: Int64 = 5_000_000

    let source: Source
    /// Expected time between scans (ns), for spacing scans that carry no usable timestamp; it
    /// changes when the device is slowed down at rest.
    var period: Int64
    /// Time of the newest scan so far (ns); 0 before the first.
    private(set) var newest: Int64 = 0

    init(source: Source, period: Int64) {
        self.source = source
        self.period = period
    }

    /// The kernel stamps scans with `current_timestamp_clock` (realtime unless changed).
    static func source(of device: IIODeviceHandle, hasChannel: Bool) -> Source {
        guard hasChannel else { return .readTime }
        let clock = ((try? device.read("current_timestamp_clock").get()) ?? "")
            .filter { !$0.isWhitespace && $0 != "\0" }
        return clock == "monotonic" ? .kernelMonotonic : .kernelSpacing(clock: clock.isEmpty ? "unknown" : clock)
    }

    /// A sample at `t` was made for this device without a scan (a silent hub's held value): the
    /// next scan's time comes after it.
    mutating func hold(until t: Int64) { newest = max(newest, t) }

    /// Calls `body` with each scan of one refill, in order, and its time.
    mutating func assign(_ raws: [ScanLayout.Raw], readTime: Int64, _ body: (Int64, ScanLayout.Raw) -> Void) {
        let newestStamp = raws.last?.timestamp
        for (i, raw) in raws.enumerated() {
            var t: Int64
            switch (source, raw.timestamp, newestStamp) {
            case (.kernelMonotonic, let stamp?, _) where stamp <= readTime + Self.futureTolerance:
                t = stamp
            case (.kernelSpacing, let stamp?, let newest?), (.kernelMonotonic, let stamp?, let newest?):
                t = readTime - Self.gap(from: stamp, to: newest)
            default:
                t = readTime - Self.product(Int64(raws.count - 1 - i), period)
            }
            // Times never run backwards, whatever the device claims.
            if t <= newest { t = newest + 1 }
            newest = t
            body(t, raw)
        }
    }

    // The stamps are whatever the buffer holds (a driver bug, a torn scan): their differences
    // and products saturate instead of trapping, and the clamp above keeps the result in order.

    /// `later − earlier` (ns), at least 0, Int64.max when it does not fit.
    static func gap(from earlier: Int64, to later: Int64) -> Int64 {
        let (difference, overflow) = later.subtractingReportingOverflow(earlier)
        if overflow { return later > earlier ? .max : 0 }
        return max(0, difference)
    }

    /// `count × period` (ns, both ≥ 0), Int64.max when it does not fit.
    static func product(_ count: Int64, _ period: Int64) -> Int64 {
        let (value, overflow) = count.multipliedReportingOverflow(by: max(0, period))
        return overflow ? .max : value
    }

    var description: String {
        switch source {
        case .kernelMonotonic: "the kernel timestamp (CLOCK_MONOTONIC)"
        case .kernelSpacing(let clock): "the read time, spaced by the kernel timestamps (clock \(clock) is not monotonic)"
        case .readTime: "the read time (no timestamp channel)"
        }
    }
}
