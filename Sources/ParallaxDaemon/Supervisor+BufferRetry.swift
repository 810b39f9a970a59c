import CLinux
import ParallaxIIO

/// No polled fallback for good: a capture that polls because its buffer failed in a way that may
/// pass (`SourceAbilities.bufferingFailed`: a trigger slow to start, a hub still waking after a
/// resume) is opened again after the wait `bufferRetry` gives (BufferRetryBackoff.swift), which
/// grows while buffering keeps failing and starts over once it works. `status` and the journal
/// say why it polls and when buffering is tried again.
extension Supervisor {
    /// After a capture said what it opened: schedules the next try when it polls in place of a
    /// buffer, and says so in its sensors' descriptions.
    func planBufferRetry(_ abilities: SourceAbilities) {
        cancelBufferRetry()
        guard let why = abilities.bufferingFailed else {
            bufferRetry.reset()
            return
        }
        let delay = bufferRetry.take()
        let seconds = delay / 1_000_000_000
        logger.notice("polled because \(why): buffered capture is tried again in \(seconds) s")
        revise(sensors.map { sensor in
            var sensor = sensor
            if sensor.capture.hasPrefix("polled: ") { sensor.capture += "; buffered tried again in \(seconds) s" }
            return sensor
        })
        bufferRetryTimer = loop.schedule(at: plx_monotonic_ns() + delay) { [unowned self] in
            self.bufferRetryTimer = nil
            guard self.capture != nil, self.demanded else { return }
            self.logger.notice("trying buffered capture again")
            self.replaceCapture(opening: .toBufferAgain)
        }
    }

    func cancelBufferRetry() {
        if let bufferRetryTimer { loop.cancel(bufferRetryTimer); self.bufferRetryTimer = nil }
    }
}
