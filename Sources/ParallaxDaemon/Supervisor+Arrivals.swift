import ParallaxIIO

/// Devices that appear are opened as soon as they are ready, not at the next retry
/// (ArrivalWatch.swift says why). The watch exists only while an arrival could change what is
/// open: sensors wanted from this machine, and none open or none of them a gyroscope. A still
/// device with both open pays nothing.
extension Supervisor {
    /// An arrival could change what is open: sensors wanted, from this machine's devices, and
    /// either none open (a retry waits) or none of the open ones a gyroscope.
    var arrivalsMatter: Bool {
        localDevices && demanded && (capture == nil || !sensors.contains { $0.kind == .gyroscope })
    }

    /// Opens or closes the watch as `arrivalsMatter` says; called wherever it may change.
    func updateArrivalWatch() {
        if arrivalsMatter {
            guard arrivals == nil else { return }
            arrivals = ArrivalWatch(loop: loop, logger: logger) { [unowned self] in self.openAppearedDevices() }
        } else if let watch = arrivals {
            watch.close()
            arrivals = nil
        }
    }

    private func openAppearedDevices() {
        guard arrivalsMatter else { return }
        if capture != nil {
            logger.notice("a new motion device appeared: reopening the sensors to include it")
        } else {
            logger.info("motion devices appeared: opening the sensors now")
        }
        // As a reload's reopen: the loop never waits for the old capture thread (it may be in
        // a read); a buffer it still holds makes the new open fail, and the retry follows.
        // (Arrivals matter only while sensors are wanted: this opens.)
        reopenSensors()
    }
}
