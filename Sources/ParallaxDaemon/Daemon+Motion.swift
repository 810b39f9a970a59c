import ParallaxMotion

/// Samples → engine → hub.
extension Daemon {
    func handle(_ sample: Sample) {
        // A calibration in progress sees every sample as the sensor gave it (CalibrationRun.swift).
        if calibrationRun != nil { calibrationSample(sample) }
        guard !reduceMotion else { return }
        let sample = calibration?.corrected(sample) ?? sample
        guard let frame = engine.update(sample) else { return }
        frameTimes.record(frame.t)
        hub.publish(t: frame.t, offset: frame.offset)
    }
}
