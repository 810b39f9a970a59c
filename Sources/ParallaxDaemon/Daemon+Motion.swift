import ParallaxMotion

/// Samples → engine → hub.
extension Daemon {
    func handle(_ sample: Sample) {
        guard !reduceMotion else { return }
        var sample = sample
        if let bias = calibration?.gyroBias, let gyro = sample.gyro {
            sample.gyro = gyro - bias
        }
        guard let frame = engine.update(sample) else { return }
        frameTimes.record(frame.t)
        hub.publish(t: frame.t, offset: frame.offset)
    }
}
