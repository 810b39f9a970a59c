import ParallaxIIO

/// Reopening when iio-sensor-proxy comes or goes, so that the accelerometer's buffer is read by
/// whoever may (BufferClaim, SensorProxyWatch): while sensors of this machine are open.
extension Supervisor {
    /// Opens or closes the watch: it exists while local sensors are open.
    func updateSensorProxyWatch() {
        if localDevices && capture != nil {
            guard sensorProxy == nil else { return }
            sensorProxy = SensorProxyWatch(loop: loop, logger: logger) { [unowned self] running in
                self.sensorProxyChanged(running: running)
            }
        } else {
            sensorProxy = nil
        }
    }

    private func sensorProxyChanged(running: Bool) {
        guard capture != nil else { return }
        let accelerometers = sensors.filter { $0.kind == .accelerometer }
        // Started: a buffer it marks and we read goes back to it. Stopped: a buffer left to it
        // is ours again.
        let reopen = running
            ? accelerometers.contains { $0.capture == "buffered" && BufferClaim.isMarked(deviceID: $0.location) }
            : accelerometers.contains { $0.capture.contains(BufferClaim.leftToSensorProxy) }
        logger.notice("iio-sensor-proxy \(running ? "started" : "stopped")\(reopen ? ": reopening the sensors" : "")")
        guard reopen else { return }
        if let retryTimer { loop.cancel(retryTimer); self.retryTimer = nil }
        retryDelay = Self.firstRetryDelay
        // As an arrival's reopen: the loop never waits for the old capture thread; a buffer it
        // still holds makes the new open fail, and the first retry follows.
        closeCapture()
        open()
    }
}
