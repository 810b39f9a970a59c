/// When an evdev motion device's report carrying a given sample time becomes readable, learnt
/// from the reports seen: their spacing (the device's rate, which the input ABI does not say)
/// and where the newest one stands in both clocks, its arrival (its SYN_REPORT's time) and the
/// sample time it carried (`MotionTimestamps`: up to 25 ms before the arrival).
///
/// Why both clocks: the event loop's need is a sample time. Counted from arrivals alone, a need
/// between the newest report's sample time and its arrival looked already met though its sample
/// had not come; the loop was then woken by every report until it did (a Steam Deck's counter
/// lags its reports by a few ms, 250 reports a second).
struct ReportForecast: Sendable {
    /// Spacing (ns) assumed before any report when the device's rate is unknown: 100 Hz.
    static let defaultPeriod: Double = 10_000_000
    /// Spacings at or beyond this (ns) are gaps (a muted device, a hand-over), not the rate.
    static let longestSpacing: Double = 1e9
    /// Weight of a new spacing in the smoothed period: 1/16, about the last 16 reports.
    static let smoothing: Double = 16
    /// Weights of a promised report's lateness in the margin: a report later than the margin
    /// moves it up by a quarter of the difference, an earlier one down by a sixteenth, so the
    /// margin settles near the 80th percentile of the lateness.
    static let marginRise: Int64 = 4
    static let marginFall: Int64 = 16

    /// Smoothed spacing of the reports' arrivals (ns).
    private(set) var period: Double
    /// When the newest report arrived (monotonic ns); 0 before any.
    private(set) var lastArrival: Int64 = 0
    /// The sample time the newest report carried (monotonic ns).
    private(set) var lastSampleTime: Int64 = 0
    /// How long after the whole periods (ns) a report has lately arrived: reports jitter (USB,
    /// a busy machine), and a forecast that is early costs the loop a second wake-up for that
    /// frame (it then waits on the node). At most half a period.
    private(set) var margin: Int64 = 0
    /// The last promise: the need, and its arrival counted in whole periods (without the margin).
    private var promised: (need: Int64, onGrid: Int64)?

    /// - Parameter rate: the device's known report rate (Hz); 0 when unknown.
    init(rate: Double) {
        period = rate > 0 ? 1e9 / rate : Self.defaultPeriod
    }

    /// A report arrived at `arrival` carrying the sample time `sampleTime` (both monotonic ns).
    mutating func reported(arrival: Int64, sampleTime: Int64) {
        if lastArrival > 0, arrival > lastArrival {
            let spacing = Double(arrival - lastArrival)
            if spacing < Self.longestSpacing { period += (spacing - period) / Self.smoothing }
        }
        lastArrival = arrival
        lastSampleTime = sampleTime
        if let promise = promised, sampleTime >= promise.need {
            promised = nil
            let late = min(max(0, arrival - promise.onGrid), Int64(period / 2))
            margin += late > margin ? (late - margin) / Self.marginRise : (late - margin) / Self.marginFall
        }
    }

    /// When (monotonic ns) the first report with a sample time at or after `time` becomes
    /// readable: reports come a period apart after the newest, each a period on in sample time,
    /// and lately `margin` after that. The newest report's arrival when it already carried such
    /// a sample; `time` itself before any report (nothing known: look now). The promise is
    /// kept, to learn the margin from the report that meets it.
    mutating func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        guard let onGrid = onGrid(time) else { return lastArrival > 0 ? lastArrival : time }
        promised = (time, onGrid)
        return onGrid.saturatingAdding(margin)
    }

    /// The next report's arrival, as `expectedArrival` forecasts it, promising nothing.
    var nextArrival: Int64 {
        guard let onGrid = onGrid(lastSampleTime.saturatingAdding(1)) else { return lastArrival }
        return onGrid.saturatingAdding(margin)
    }

    /// The arrival in whole periods after the newest report of the sample for `time`; nil before
    /// any report or when the newest already carried it.
    private func onGrid(_ time: Int64) -> Int64? {
        guard lastArrival > 0, period > 0, time > lastSampleTime else { return nil }
        // Any time may be asked (up to .max): the arithmetic saturates.
        let steps = (Double(time.saturatingSubtracting(lastSampleTime)) / period).rounded(.up)
        return lastArrival.saturatingAdding(Int64(saturating: steps * period))
    }
}
