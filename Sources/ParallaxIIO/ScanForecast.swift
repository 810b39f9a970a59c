/// When the next scan of a kernel buffer will be readable, learnt from the scans seen: the
/// device's real spacing (its clock is not ours) and how late after its time a scan lately
/// became readable (it is read in the driver's interrupt thread, and triggers jitter).
struct ScanForecast {
    /// Smoothed spacing of scan times (ns).
    private(set) var scanPeriod: Int64
    /// How long after its forecast time (ns) a scan has lately become readable.
    private var margin: Int64 = 0
    /// The last forecast (the need it was for and the arrival promised), until a scan meets it.
    private var promised: (need: Int64, arrival: Int64)?

    init(period: Int64) { scanPeriod = period }

    /// Follows the spacing of a refill's `count` scans, the newest at `newest`, after
    /// `previousNewest`.
    mutating func learn(previousNewest: Int64, newest: Int64, count: Int) {
        guard previousNewest > 0, newest > previousNewest, count > 0 else { return }
        let spacing = (newest - previousNewest) / Int64(count)
        // Gaps (a paused trigger) say nothing about the rate: ignore spacings far off.
        if spacing > scanPeriod / 2 && spacing < scanPeriod * 2 {
            scanPeriod += (spacing - scanPeriod) / 8
        }
    }

    /// A sample at `time` was handed out; `waited`: its refill blocked for it, reading at `readTime`.
    mutating func sampleTaken(at time: Int64, waited: Bool, readTime: Int64) {
        guard let f = promised, time >= f.need else { return }
        // The scan the forecast was for: was it there at the forecast time, or was it waited for?
        promised = nil
        if waited {
            let late = min(max(0, readTime - f.arrival), scanPeriod / 2)
            margin += (late - margin) / 4
        } else {
            margin -= margin / 16
        }
    }

    /// Scans come every period after the newest one seen (`newest`), readable a learnt margin
    /// later: the margin grows when the capture thread had to wait for the scan and shrinks
    /// while it was there, so a steady device costs one wake-up per frame and little latency.
    /// The forecast is a promise: the scan that meets it tells the margin whether it was kept.
    mutating func expectedArrival(ofSampleAt time: Int64, newest: Int64) -> Int64 {
        let arrival = arrival(ofSampleAt: time, newest: newest)
        if newest > 0, scanPeriod > 0 { promised = (time, arrival) }
        return arrival
    }

    /// The same forecast without promising it: a look ahead that must not change what the
    /// margin learns from (the loop's fallback deadline).
    func arrival(ofSampleAt time: Int64, newest: Int64) -> Int64 {
        guard newest > 0, scanPeriod > 0 else { return time }
        // Any time may be asked (up to .max): the arithmetic saturates.
        let ahead = time.saturatingSubtracting(newest).saturatingAdding(scanPeriod - 1)
        let steps = max(1, ahead / scanPeriod)
        return newest.saturatingAdding(steps.saturatingMultiplied(by: scanPeriod)).saturatingAdding(margin)
    }
}
