import CIIO
import Glibc
import Logging
import ParallaxMotion

/// Kernel buffers at rest (docs/power.md). Each device rests on its own (`StreamRest`): a HID
/// hub at the hub (its change sensitivity raised and its report interval slowed: it sends
/// nothing while the device lies still, and the capture thread sleeps in poll() with no
/// timeout), any other device at a slow rate from its `sampling_frequency_available` with the
/// kernel waking poll() once per watermark's worth of scans.
extension IIOBufferedDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        try keepQueuedScans()
        var paces: [RestPace] = []
        for (lane, stream) in streams.enumerated() {
            var plan = StreamRest.choose(offered: stream.samplingRate?.available ?? [], activeRates: stream.activeRates,
                                         activeRate: stream.activeRate, atHub: stream.sensitivity != nil,
                                         request: request, wakesThroughDescriptor: stream.wakesPerScan)
            if !stream.reconfigure(rates: plan.rates, scanRate: plan.pace.rate, watermark: plan.pace.samplesPerWake,
                                   restSensitivity: plan.atHub ? true : nil) {
                // The device kept its rate (or its watermark): look on a timer at the full rate's pace.
                plan.pace = RestPace.choose(available: [], active: stream.activeRate, request: request, wakesThroughDescriptor: false)
            }
            plan.reference = stream.newestSample
            stream.rest = plan
            merger.setPeriod(stream.period, lane: lane)
            // A hub at rest is silent by design: nobody waits for it (the first motion goes at once).
            if plan.atHub { merger.waitForNothing(lane: lane) }
            paces.append(plan.pace)
            if plan.atHub, let sensitivity = stream.sensitivity {
                logger.info("\(stream.device.id) (\(stream.device.name)) at rest at the hub: sensitivity \(sensitivity.restDescription), at most \(FixedRate(plan.pace.rate)) Hz, silent while still")
            } else {
                logger.info("\(stream.device.id) (\(stream.device.name)) at rest: \(FixedRate(plan.pace.rate)) Hz, \(plan.pace.samplesPerWake) scan(s) per wake-up")
            }
        }
        let pace = RestPace.combined(paces)
        restPace = pace
        motionReported = false
        return pace
    }

    public func leaveRest() throws(SensorError) {
        guard restPace != nil else { return }
        restPace = nil
        motionReported = false
        try keepQueuedScans()
        let now = MonotonicClock.now()
        for (lane, stream) in streams.enumerated() {
            let atHub = stream.rest?.atHub == true
            _ = stream.reconfigure(rates: stream.activeRates, scanRate: stream.activeRate,
                                   watermark: stream.wakesPerScan ? 1 : nil, restSensitivity: atHub ? false : nil)
            stream.rest = nil
            merger.setPeriod(stream.period, lane: lane)
            // The stall limit counts from now: silence at rest was no stall.
            stream.lastData = now
            logger.info("\(stream.device.id) (\(stream.device.name)) moving: \(FixedRate(stream.activeRate)) Hz")
        }
    }

    public var restWakeup: RestWakeup {
        let due = merger.releaseTime() ?? .max
        guard let pace = restPace, pace.wakesThroughDescriptor, streams.allSatisfy(\.buffer.isOpen) else { return RestWakeup(due: due) }
        return RestWakeup(descriptor: readiness, due: due)
    }

    /// Never counts a silence as a stall: at rest a hub reports nothing until the device moves.
    /// A report of a hub at rest that changed since the rest began is motion (`reportedMotion`).
    public func takeResting() throws(SensorError) -> Sample? {
        var taken = takeReadyFromLane()
        if taken == nil, try refillAll(waited: false) > 0 { taken = takeReadyFromLane() }
        guard let (sample, lane) = taken else { return nil }
        if let rest = streams[lane].rest, rest.atHub, HubRest.isMotion(sample, since: rest.reference) {
            motionReported = true
        }
        return sample
    }

    public var reportedMotion: Bool { motionReported }

    /// Reads every scan the kernels hold into the merger: re-enabling a buffer empties its queue
    /// (kfifo_reset_out), and those scans are samples the engine must still see.
    private func keepQueuedScans() throws(SensorError) {
        while try refillAll(waited: false) > 0 {}
    }
}

/// How one device runs at rest: a pure decision from what it offers (`choose`).
struct StreamRest: Sendable, Equatable {
    /// Each rate attribute's rest rate (Hz, in `SamplingRate`'s order; nil: left as it is).
    var rates: [Double?]
    var pace: RestPace
    /// The device rests at the hub: its change sensitivity is raised (HubSensitivity.swift).
    var atHub: Bool
    /// The device's last sample before the rest: what a hub's report is compared with.
    var reference: Sample?

    /// A HID hub (`atHub`): every rate attribute to the request's rate (a report interval
    /// takes any value) and one scan per wake-up, the hub silent in between. Any other device:
    /// each rate attribute (one per device, or one per sensor type) to its slowest offered rate
    /// at or above the request; the buffer scans at the fastest of them, with as many scans per
    /// wake-up as the pace and onset budget allow (RestPace.choose).
    static func choose(offered: [[Double]], activeRates: [Double?], activeRate: Double, atHub: Bool,
                       request: RestRequest, wakesThroughDescriptor: Bool) -> StreamRest {
        if atHub {
            let rest = HubRest.restRate(request: request, active: activeRate)
            let rates: [Double?] = activeRates.map { now in (now ?? activeRate) > rest ? rest : nil }
            return StreamRest(rates: rates, pace: RestPace(rate: rest, samplesPerWake: 1, wakesThroughDescriptor: wakesThroughDescriptor),
                              atHub: true, reference: nil)
        }
        let rates: [Double?] = offered.enumerated().map { i, list in
            let now = (i < activeRates.count ? activeRates[i] : nil) ?? activeRate
            let choice = RestPace.slowest(in: list, atLeast: request.rate, atMost: now)
            return choice == now ? nil : choice
        }
        let scanRate = rates.enumerated().map { i, rest in rest ?? (i < activeRates.count ? activeRates[i] : nil) ?? activeRate }.max() ?? activeRate
        let pace = RestPace.choose(available: [scanRate], active: activeRate, request: request,
                                   wakesThroughDescriptor: wakesThroughDescriptor)
        return StreamRest(rates: rates, pace: pace, atHub: false, reference: nil)
    }
}

extension RestPace {
    /// The pace of several devices resting together: the fastest rate, the fewest samples per
    /// wake-up, and a descriptor wake-up only if every device wakes through its descriptor.
    static func combined(_ paces: [RestPace]) -> RestPace {
        guard let first = paces.first else { return RestPace(rate: RestRequest.defaultRate, samplesPerWake: 1, wakesThroughDescriptor: false) }
        return RestPace(rate: paces.map(\.rate).max() ?? first.rate, samplesPerWake: paces.map(\.samplesPerWake).min() ?? 1,
                        wakesThroughDescriptor: paces.allSatisfy(\.wakesThroughDescriptor))
    }
}

extension DeviceStream {
    /// Sets the rate attributes (`rates`, in `SamplingRate`'s order; nil: leave one), the
    /// buffer's watermark (nil: leave it) and the hub's sensitivity (true: at rest, false: as at
    /// open, nil: leave it), with the buffer briefly disabled: rate and watermark only change
    /// while it is (and some drivers refuse a rate change while buffered). `scanRate` (Hz) is
    /// what the buffer then scans at. False when a rate or the watermark was refused (a refused
    /// sensitivity is logged: the hub then reports at the slow rate, which still works).
    func reconfigure(rates: [Double?], scanRate: Double, watermark: Int?, restSensitivity: Bool?) -> Bool {
        func write(_ attr: String, _ value: String) -> Bool { iio_device_buffer_attr_write(device.pointer, attr, value) >= 0 }
        guard write("enable", "0") else { return false }
        var ok = true
        if let restSensitivity, let sensitivity, !sensitivity.set(rest: restSensitivity) {
            logger.warning("\(device.id) (\(device.name)): cannot set its hysteresis")
        }
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
