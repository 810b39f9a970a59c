import CLinux
import ParallaxIIO

/// Across a system sleep (docs/operations.md "Suspend and resume"): a sleep is not a loss.
///
/// With logind (the installed service): on PrepareForSleep(true) the sensors close while the
/// system is still awake, under a delay inhibitor that logind waits for (SleepWatch), so the
/// kernel powers the devices down with nothing in flight and a hub's firmware is told while it
/// still listens; on PrepareForSleep(false) they open again. Without logind, or when its news
/// did not come: CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC (SleepClock), looked at with
/// every batch of samples, and an open capture is closed and opened again at once.
///
/// Either way the new open writes again everything the kernel or the firmware may have reset
/// (power and reporting state, sensitivity, rate, trigger), nothing queued before the sleep is
/// read, and the attitude restarts from the accelerometer (`SensorsOpening.afterSleep`):
/// no sweep from the pose before the sleep, and no frame of it after.
extension Supervisor {
    /// Opens or closes the logind watch: it lives while sensors of this machine are open or wanted
    /// (a replay or a remote context does not sleep with it).
    func updateSleepWatch() {
        if localDevices && (capture != nil || demanded || asleep) {
            guard sleepWatch == nil else { return }
            sleepWatch = SleepWatch(loop: loop, logger: logger) { [unowned self] going in
                going ? self.systemGoingToSleep() : self.systemBack()
            }
        } else {
            sleepWatch = nil
        }
    }

    /// logind: the system is about to sleep.
    func systemGoingToSleep() {
        asleep = true
        if dropRetryForSleep() { openAfterSleep = true }
        cancelBufferRetry()
        if capture != nil {
            logger.notice("the system is going to sleep: closing the sensors")
            openAfterSleep = true
            // Waits for the capture to let go: the devices must be closed before the inhibitor
            // goes (LoopCapture closes on the loop anyway).
            closeCapture(wait: true)
        } else {
            logger.info("the system is going to sleep")
        }
        // Frozen, the loop cannot ping the watchdog: a slow suspend must not read as a hang.
        Systemd.overrideWatchdog(Systemd.watchdogIntervalAcrossSleep)
        sleepWatch?.releaseInhibitor()
    }

    /// logind: the system is back (or the sleep failed).
    func systemBack() {
        guard asleep else { return }
        asleep = false
        Systemd.overrideWatchdog(nil)
        sleepWatch?.takeInhibitor()
        let slept = sleepClock.slept(boottime: plx_boottime_ns(), monotonic: plx_monotonic_ns())
        sleepClock.rebase(boottime: plx_boottime_ns(), monotonic: plx_monotonic_ns())
        let reopen = openAfterSleep && demanded
        openAfterSleep = false
        logger.notice("resumed\(Self.describe(slept)) (logind)\(reopen ? ": opening the sensors afresh" : "")")
        noteResumed()
        bufferRetry.reset()
        // (The watch stays until the next close or open decides: this runs inside its callback.)
        guard reopen else { return }
        replaceCapture(opening: .afterSleep)
    }

    /// Whether the system slept since the last batch (the clocks): if it did, the capture was
    /// opened afresh and whatever the old one queued is stale.
    func reopenedAfterSleep() -> Bool {
        guard let slept = sleepClock.slept(boottime: plx_boottime_ns(), monotonic: plx_monotonic_ns()) else { return false }
        guard capture != nil else { return false }
        logger.notice("resumed\(Self.describe(slept)) (the clocks): opening the sensors afresh")
        bufferRetry.reset()
        // Lingering sensors stay closed: the next open is a fresh one anyway.
        reopenSensors(opening: .afterSleep)
        return true
    }

    private static func describe(_ slept: Int64?) -> String {
        slept.map { " after \(Double($0 / 1_000_000) / 1000) s asleep" } ?? ""
    }
}
