import CIIO
import Glibc
import Logging
import ParallaxMotion
import SystemPackage

/// Kernel buffers at rest (docs/power.md). Each device rests on its own (`StreamRest`): a HID
/// hub at the hub (its change sensitivity raised and its report interval slowed: it sends
/// nothing while the device lies still, and its reader waits on the descriptor with no
/// timeout), any other device at a slow rate from its `sampling_frequency_available` with the
/// kernel waking poll() once per watermark's worth of scans.
extension IIOBufferedDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        try keepQueuedScans()
        var paces: [RestPace] = []
        for (lane, stream) in streams.enumerated() {
            // A hub rests at the hub only once it took the rest sensitivity (written while the
            // buffer runs); a refusal now is said like one at open, and the device rests as any other.
            var atHub = stream.restsAtHub
            if atHub, let refused = stream.sensitivity?.set(rest: true) {
                logger.warning("\(stream.device.id) (\(stream.device.name)): \(refused)")
                atHub = false
            }
            var plan = StreamRest.choose(offered: stream.samplingRate?.available ?? [], activeRates: stream.activeRates,
                                         activeRate: stream.activeRate, atHub: atHub,
                                         request: request, wakesThroughDescriptor: stream.wakesPerScan)
            if !stream.reconfigure(rates: plan.rates, scanRate: plan.pace.rate, watermark: plan.pace.samplesPerWake,
                                   restSensitivity: nil) {
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
                logger.info("\(stream.device.id) (\(stream.device.name)) at rest at the hub: sensitivity \(sensitivity.restDescription), report interval kept, silent while still")
            } else {
                logger.info("\(stream.device.id) (\(stream.device.name)) at rest: \(FixedRate(plan.pace.rate)) Hz, \(plan.pace.samplesPerWake) scan(s) per wake-up")
            }
        }
        polledAccel?.resting = true
        let pace = RestPace.combined(paces)
        restPace = pace
        motionReported = false
        return pace
    }

    public func leaveRest() throws(SensorError) {
        guard restPace != nil else { return }
        restPace = nil
        motionReported = false
        polledAccel?.resting = false
        polledAccel?.readSoon()
        try keepQueuedScans()
        let now = MonotonicClock.now()
        // The gyroscope first: its reports carry the motion (a steady turn changes no reading of
        // a gyroscope still at its rest sensitivity, so it would stay silent), and each write to a
        // hub waits for a feature report.
        for (lane, stream) in streams.enumerated().sorted(by: { $0.element.hasGyroscope && !$1.element.hasGyroscope }) {
            let atHub = stream.rest?.atHub == true
            // Back only the rates the rest changed (a hub's none: its buffer keeps running).
            let changed = stream.rest?.rates ?? stream.activeRates.map { _ in nil }
            let rates = stream.activeRates.indices.map { i in i < changed.count && changed[i] != nil ? stream.activeRates[i] : nil }
            _ = stream.reconfigure(rates: rates, scanRate: stream.activeRate,
                                   watermark: stream.wakesPerScan ? 1 : nil, restSensitivity: atHub ? false : nil)
            stream.rest = nil
            merger.setPeriod(stream.period, lane: lane)
            // The stall limit counts from now: silence at rest was no stall.
            stream.lastData = now
            logger.info("\(stream.device.id) (\(stream.device.name)) moving: \(FixedRate(stream.activeRate)) Hz")
        }
    }

    public var restWakeup: RestWakeup {
        let due = min(merger.releaseTime() ?? .max, polledAccel?.nextRead ?? .max)
        guard let pace = restPace, pace.wakesThroughDescriptor, streams.allSatisfy(\.buffer.isOpen) else { return RestWakeup(due: due) }
        return RestWakeup(descriptor: FileDescriptor(rawValue: readiness), due: due)
    }

    /// Never counts a silence as a stall: at rest a hub reports nothing until the device moves.
    /// A report of a hub at rest that changed since the rest began is motion (`reportedMotion`).
    public func takeResting() throws(SensorError) -> Sample? {
        if !heldBeforeMotion.isEmpty { return heldBeforeMotion.removeFirst() }
        var taken = takeReadyFromLane()
        if taken == nil, try refillAll(waited: false) + readPolledIfDue() > 0 { taken = takeReadyFromLane() }
        guard let (sample, lane) = taken else { return nil }
        if lane < streams.count, let rest = streams[lane].rest, rest.atHub, HubRest.isMotion(sample, since: rest.reference) {
            if !motionReported, let held = heldStill(before: sample) {
                motionReported = true
                heldBeforeMotion = [sample]
                return held
            }
            motionReported = true
        }
        return sample
    }

    /// What a hub's silence meant, as a sample one full-rate period before the report that
    /// ended it: every sensor resting at the hub still read what it last reported.
    ///
    /// Why: a hub at rest says nothing while no value changes beyond its sensitivity, for
    /// seconds. To the fusion that silence would be a gap of unknown motion (longer than
    /// `MotionSettings.maxGap`): the first gyroscope report after it would not be integrated,
    /// and the first accelerometer report would snap the attitude to gravity — the first frame
    /// of a motion would wait for the reports after those (100–350 ms in the lab). The silence
    /// is known stillness instead: within the sensitivity, which is within Stillness's tolerance.
    func heldStill(before report: Sample) -> Sample? {
        var held = Sample(t: report.t)
        for stream in streams {
            guard let rest = stream.rest, rest.atHub, let reference = rest.reference else { continue }
            held.t = min(held.t, report.t - stream.fullRatePeriod)
            held.accel = held.accel ?? reference.accel
            held.gyro = held.gyro ?? reference.gyro
        }
        let newest = streams.compactMap { $0.rest?.reference?.t }.max() ?? .max
        guard held.t < report.t, held.t > newest, held.accel != nil || held.gyro != nil else { return nil }
        return held
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

    /// A HID hub (`atHub`): its report interval is left as it is (only its change sensitivity
    /// is raised: it is silent while still, and reports the first change beyond it within one
    /// full-rate interval; docs/decisions.md "A hub at rest keeps its report interval"), one
    /// scan per wake-up. Any other device:
    /// each rate attribute (one per device, or one per sensor type) to its slowest offered rate
    /// at or above the request; the buffer scans at the fastest of them, with as many scans per
    /// wake-up as the pace and onset budget allow (RestPace.choose).
    static func choose(offered: [[Double]], activeRates: [Double?], activeRate: Double, atHub: Bool,
                       request: RestRequest, wakesThroughDescriptor: Bool) -> StreamRest {
        if atHub {
            let rest = HubRest.restRate(request: request, active: activeRate)
            let rates: [Double?] = activeRates.map { _ in nil }
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
    /// buffer's watermark (nil: leave it) and the hub's sensitivity (true: at rest, false: as
    /// while moving, nil: leave it); the buffer is briefly disabled when a rate or the watermark
    /// changes: they only change while it is (and some drivers refuse a rate change while
    /// buffered). `scanRate` (Hz) is what the buffer then scans at. False when a rate or the
    /// watermark was refused (a refused sensitivity is logged).
    func reconfigure(rates: [Double?], scanRate: Double, watermark: Int?, restSensitivity: Bool?) -> Bool {
        func write(_ attr: String, _ value: String) -> Bool { iio_device_buffer_attr_write(device.pointer, attr, value) >= 0 }
        // A hub's sensitivity: the HID drivers take it while the buffer runs.
        if let restSensitivity, let sensitivity, let refused = sensitivity.set(rest: restSensitivity) {
            logger.warning("\(device.id) (\(device.name)): \(refused)")
        }
        // Rates and the watermark need the buffer disabled. A hub keeps its watermark of 1 at
        // rest, and disabling its buffer would power the sensor down and up again, a round of
        // feature reports each way (the first frame of a motion would wait for them).
        let watermarkKept = sensitivity != nil && wakesPerScan && (watermark ?? 1) == 1
        guard rates.contains(where: { $0 != nil }) || (watermark != nil && !watermarkKept) else { return true }
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
