import CLinux
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

/// Samples → engine → hub: the daemon's side of the supervisor's and the hub's seams.
extension Daemon: SensorEvents, FrameRefresher {
    func sensorsOpened(_ opening: SensorsOpening) {
        frameMonitor.opened(supervisor.sensors)
        switch opening {
        case .fresh: engine.reset()
        case .afterSleep: engine.restartAttitude()
        case .toBufferAgain: engine.restartAttitude(keepingReference: true)
        }
        // A different set of sensors may have brought or taken the gyroscope: the heading
        // subscribers hear it (a state line only they get; the others' lines do not change).
        let available = supervisor.sensors.contains { $0.kind == .gyroscope }
        if available != hub.headingAvailable {
            hub.headingAvailable = available
            hub.broadcastToHeadingSubscribers(stateLine(heading: true))
        }
    }

    /// A new subscriber must not get an offset from sensors that have closed as the current one
    /// (its sample may be minutes old, the device moved since): it gets the first frame of the
    /// reopened sensors instead, which the reset engine publishes whatever MinimumChange says.
    func sensorsClosed() { hub.forgetLatest() }

    func sensorStateChanged(_ state: SensorState) {
        logger.info("sensor state: \(state.rawValue)")
        // Sensors that opened and failed before their first frame: that is the outcome.
        if state != .ok { announceReady() }
        broadcastState()
        notifyServing()
    }

    /// Opened sensors are an outcome once their first frame is in (`sampleBatchEnded`): a
    /// client served then gets it as the current offset at once. A failure is one now.
    func sensorsFirstOutcome() {
        if supervisor.state != .ok { announceReady() }
    }

    func sampleBatchEnded() {
        hub.deliver()
        if !announcedReady && hub.latest != nil { announceReady() }
    }

    func mayRest(quietFor: Int64) -> Bool {
        calibrationRun == nil && !hub.hasPendingDelivery && plx_monotonic_ns() - hub.lastPublishTime >= quietFor
    }

    func refreshFrames() { supervisor.pump() }

    func sensorSample(_ sample: Sample) {
        // A calibration in progress sees every sample as the sensor gave it (CalibrationRun.swift).
        if calibrationRun != nil { calibrationSample(sample) }
        guard !reduceMotion else { return }
        let sample = frameMonitor.checked(calibration?.corrected(sample) ?? sample)  // FrameMonitor.swift
        guard let frame = engine.update(sample) else {
            if engine.isPublishing {
                hub.freshen(t: sample.t, offset: engine.current, velocity: engine.velocity, heading: engine.heading)
            }
            return
        }
        frameTimes.record(frame.t)
        hub.publish(t: frame.t, offset: frame.offset, velocity: frame.velocity, heading: frame.heading,
                    offsetMoved: frame.offsetMoved, deliver: false)
    }

    /// Longest a batch of samples waits when no subscriber is due soon (ns): calibration progress
    /// and the status report's rates stay current, at 10 wake-ups a second.
    static let maxSampleBatch: Int64 = 100_000_000

    /// The longest batch (ns) while a greeted connection has not spoken yet: it is about to
    /// subscribe, and its first frame goes at once only if the latest sample is within
    /// `Hub.currentAge` (20 ms) when its subscribe is read. With 100 ms batches a subscribe
    /// found up to 100 samples to fuse first, 22 ms of work on the lab's emulated CPU under load,
    /// and the frame waited for the next sample instead.
    static let newcomerSampleBatch: Int64 = Hub.currentAge / 2

    /// When the loop next needs fresh samples (`Hub.nextSampleNeed`), and the need after that
    /// one, so the capture can plan ahead (SamplePacing.swift).
    ///
    /// Needs are sample times (FramePacing's grid), so the longest batch is bounded in sample time
    /// too: from the newest sample when its time runs ahead of the clock (a replay faster than
    /// recorded), or a grid point far ahead in sample time would be cut to 100 ms of the clock,
    /// already behind the samples, and every batch would send one frame.
    func nextSampleNeed() -> SampleNeed {
        let now = plx_monotonic_ns()
        let sampleClock = max(now, hub.latest?.t ?? now)
        guard let due = hub.nextSampleNeed(now: sampleClock) else {
            return SampleNeed(need: now + (awaitsNewcomer(now: now) ? Self.newcomerSampleBatch : Self.maxSampleBatch))
        }
        let need = min(due, sampleClock + Self.maxSampleBatch)
        let following = hub.earliestDue(afterServingAt: need).map { min($0, need + Self.maxSampleBatch) }
        return SampleNeed(need: need, following: following)
    }
}
