import ParallaxMotion

/// Polled sysfs at rest (docs/power.md): fewer reads. The device keeps its own rate (a read
/// returns its newest value whatever it is); what costs is waking to read, and that slows down.
extension IIOPolledDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        let active = 1e9 / Double(period)
        let rate = min(request.rate, active)
        restPeriod = Int64(1e9 / rate)
        return RestPace(rate: rate, samplesPerWake: 1, wakesThroughDescriptor: false)
    }

    public func leaveRest() throws(SensorError) {
        restPeriod = nil
    }

    public var restWakeup: RestWakeup {
        // The next read is one rest period after the last (scheduled when that one was taken).
        RestWakeup(due: nextDeadline + (restPeriod ?? period))
    }

    public func takeResting() throws(SensorError) -> Sample? {
        guard MonotonicClock.now() >= nextDeadline + (restPeriod ?? period) else { return nil }
        scheduleNextRead()
        return try readNow()
    }
}
