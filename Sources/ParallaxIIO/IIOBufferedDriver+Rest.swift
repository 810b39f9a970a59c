import CIIO
import Glibc
import Logging
import ParallaxMotion

/// A kernel buffer at rest (docs/power.md): the device samples at a slow rate from its
/// `sampling_frequency_available` and the kernel wakes poll() once per watermark's worth of
/// scans, so the capture thread sleeps in poll() between them and nothing else wakes.
extension IIOBufferedDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        let available = device.hasAttribute("sampling_frequency")
            ? ((try? device.read("sampling_frequency_available").get()) ?? "")
                .split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\0" }).compactMap { DecimalNumber.parseDouble($0) }
            : []
        var pace = RestPace.choose(available: available, active: activeRate, request: request,
                                   wakesThroughDescriptor: wakesPerScan)
        try keepQueuedScans()
        if !reconfigure(rate: pace.rate == activeRate ? nil : pace.rate, watermark: pace.samplesPerWake) {
            // The device kept its rate (or its watermark): look on a timer at the full rate's pace.
            pace = RestPace.choose(available: [], active: activeRate, request: request, wakesThroughDescriptor: false)
        }
        restPace = pace
        logger.info("\(device.id) (\(device.name)) at rest: \(FixedRate(pace.rate)) Hz, \(pace.samplesPerWake) scan(s) per wake-up")
        return pace
    }

    public func leaveRest() throws(SensorError) {
        guard let pace = restPace else { return }
        restPace = nil
        try keepQueuedScans()
        _ = reconfigure(rate: pace.rate == activeRate ? nil : activeRate, watermark: wakesPerScan ? 1 : nil)
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

    /// Sets the device's rate (nil: leave it) and the buffer's watermark (nil: leave it), with
    /// the buffer briefly disabled: both attributes only change while it is (and some drivers
    /// refuse a rate change while buffered). False when either was refused.
    private func reconfigure(rate: Double?, watermark: Int?) -> Bool {
        func write(_ attr: String, _ value: String) -> Bool { iio_device_buffer_attr_write(device.pointer, attr, value) >= 0 }
        guard write("enable", "0") else { return false }
        var ok = true
        if let rate {
            if device.write("sampling_frequency", FixedRate(rate).description) {
                period = Int64(1e9 / rate)
                times.period = period
                forecast = ScanForecast(period: period)
            } else {
                logger.warning("\(device.id) (\(device.name)): cannot set sampling_frequency to \(FixedRate(rate)) Hz")
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

/// A rate as sysfs takes it and people read it: "6.25", "200".
struct FixedRate: CustomStringConvertible {
    let hz: Double
    init(_ hz: Double) { self.hz = hz }
    var description: String {
        hz == hz.rounded() ? String(Int(hz)) : String(hz)
    }
}
