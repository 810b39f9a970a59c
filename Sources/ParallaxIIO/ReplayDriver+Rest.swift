import ParallaxMotion

/// A replay at rest (docs/power.md): the recording's rows come as recorded, but the capture
/// thread looks at them in batches at the rest pace instead of at each row's time.
extension ReplayDriver: RestingSource {
    public func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
        // The recorded rate, as the due times show it (100 Hz until known).
        let recorded = duePeriod > 0 ? 1e9 / duePeriod : 100
        return RestPace.choose(available: [], active: recorded, request: request, wakesThroughDescriptor: false)
    }

    public func leaveRest() throws(SensorError) {}

    public var restWakeup: RestWakeup {
        // The next row's time: the capture thread waits at least a look interval anyway.
        RestWakeup(due: (try? peek())?.1 ?? .max)
    }

    public func takeResting() throws(SensorError) -> Sample? { try takeQueued() }
}
