import CIIO
import Glibc
import Logging
import ParallaxMotion

/// A kernel buffer at rest (docs/power.md): the device samples at a slow rate from its
/// `sampling_frequency_available` and the kernel wakes poll() once per watermark's worth of
/// scans, so the capture thread sleeps in poll() between them and nothing else wakes.
extension IIOBufferedDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        // Each rate attribute (one per device, or one per sensor type) to its slowest offered
        // rate at or above the request; the buffer scans at the fastest of them.
        let offered = samplingRate?.available ?? []
        let restRates: [Double?] = offered.enumerated().map { i, list in
            let now = activeRates[i] ?? activeRate
            let choice = RestPace.slowest(in: list, atLeast: request.rate, atMost: now)
            return choice == now ? nil : choice
        }
        let scanRate = zip(restRates, activeRates).map { rest, now in rest ?? now ?? activeRate }.max() ?? activeRate
        var pace = RestPace.choose(available: [scanRate], active: activeRate, request: request,
                                   wakesThroughDescriptor: wakesPerScan)
        try keepQueuedScans()
        if !reconfigure(rates: restRates, scanRate: pace.rate, watermark: pace.samplesPerWake) {
            // The device kept its rate (or its watermark): look on a timer at the full rate's pace.
            pace = RestPace.choose(available: [], active: activeRate, request: request, wakesThroughDescriptor: false)
        }
        restPace = pace
        logger.info("\(device.id) (\(device.name)) at rest: \(FixedRate(pace.rate)) Hz, \(pace.samplesPerWake) scan(s) per wake-up")
        return pace
    }

    public func leaveRest() throws(SensorError) {
        guard restPace != nil else { return }
        restPace = nil
        try keepQueuedScans()
        _ = reconfigure(rates: activeRates, scanRate: activeRate, watermark: wakesPerScan ? 1 : nil)
        logger.info("\(device.id) (\(device.name)) moving: \(FixedRate(activeRate)) Hz")
    }

    public var restWakeup: RestWakeup {
        guard let pace = restPace, pace.wakesThroughDescriptor, buffer.isOpen else { return RestWakeup() }
        return RestWakeup(descriptor: buffer.pollFD)
    }

    public func takeResting() throws(SensorError) -> Sample? { try takeQueued() }

    /// Reads every scan the kernel holds into `pending`: re-enabling a buffer empties its queue
    /// (kfifo_reset_out), and those scans are samples the engine must still see.
    private func keepQueuedScans() throws(SensorError) {
        var kept = Array(pending[nextPending...])
        while try refill(timeoutMilliseconds: 0) > 0 { kept += pending }
        pending = kept
        nextPending = 0
    }

    /// Sets the rate attributes (`rates`, in `SamplingRate`'s order; nil: leave one) and the
    /// buffer's watermark (nil: leave it), with the buffer briefly disabled: both only change
    /// while it is (and some drivers refuse a rate change while buffered). `scanRate` (Hz) is
    /// what the buffer then scans at. False when anything was refused.
    private func reconfigure(rates: [Double?], scanRate: Double, watermark: Int?) -> Bool {
        func write(_ attr: String, _ value: String) -> Bool { iio_device_buffer_attr_write(device.pointer, attr, value) >= 0 }
        guard write("enable", "0") else { return false }
        var ok = true
        if rates.contains(where: { $0 != nil }), let samplingRate {
            if samplingRate.set(rates) {
                period = Int64(1e9 / scanRate)
                times.period = period
                forecast = ScanForecast(period: period)
            } else {
                logger.warning("\(device.id) (\(device.name)): cannot set its sampling rate to \(FixedRate(scanRate)) Hz")
                ok = false
            }
        }
        if let watermark, !write("watermark", String(watermark)) { ok = false }
        guard write("enable", "1") else {
            logger.error("\(device.id) (\(device.name)): cannot re-enable the buffer")
            return false
        }
        return ok
    }
}
