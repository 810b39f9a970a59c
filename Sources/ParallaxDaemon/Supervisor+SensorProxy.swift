import ParallaxIIO

/// Reopening when iio-sensor-proxy comes or goes, so that the accelerometer's buffer is read by
/// whoever may (BufferClaim, SensorProxyWatch): while sensors of this machine are wanted.
extension Supervisor {
    /// Opens or closes the watch. It lives while local sensors are open or wanted, across the
    /// reopens it causes: a new watch's first news would otherwise start another reopen.
    func updateSensorProxyWatch() {
        if localDevices && (capture != nil || demanded) {
            guard sensorProxy == nil else { return }
            sensorProxy = SensorProxyWatch(loop: loop, logger: logger) { [unowned self] running in
                self.logger.notice("iio-sensor-proxy \(running ? "starting or running" : "stopped")")
                self.reconcileWithSensorProxy()
            }
        } else {
            sensorProxy = nil
        }
    }

    /// Reopens when what is open does not match whether iio-sensor-proxy runs: started, a buffer
    /// it marks and we read goes back to it; stopped, a buffer left to it is ours again. Judged
    /// only on the current capture's own sensors (after it said what it opened) and on what the
    /// watch knows; the open itself asked the bus too (SensorProxyBus.isRunning).
    func reconcileWithSensorProxy() {
        guard capture != nil, captureHasOpened, let running = sensorProxy?.runningOrStarting else { return }
        let accelerometers = sensors.filter { $0.kind == .accelerometer }
        let reopen = running
            ? accelerometers.contains { $0.capture == "buffered" && BufferClaim.isMarked(deviceID: $0.location) }
            : accelerometers.contains { $0.capture.contains(BufferClaim.leftToSensorProxy) }
        guard reopen else { return }
        logger.notice("iio-sensor-proxy \(running ? "starting or running: giving its buffer back" : "stopped: taking its buffer"), reopening the sensors")
        // As an arrival's reopen: the loop never waits for the old capture thread; the new
        // capture's thread does, before it opens (CaptureEnd.swift). A lingering capture is
        // replaced too, and lingers on.
        reopenSensors(evenWithoutDemand: true)
    }
}
