/// When the sensors open, linger, close and are retried: the supervisor's lifecycle as one value.
/// Each input returns the actions to take, in order; the supervisor carries them out (its timers,
/// the capture: Supervisor.swift) and reports back what happened. Nothing here touches a device,
/// a timer or the clock.
///
/// Why: demand, the linger, the hold for a newcomer and the retry's back-off decide together
/// whether a capture should exist. Written as timer callbacks beside the capture's mechanics,
/// the same steps (cancel the retry, start its wait over, close, open) were spelled out at every
/// cause of a reopen, and each could drift from the others.
struct SensorLifecycle: Equatable {
    /// What the supervisor does for a decision.
    enum Action: Equatable {
        /// Open a capture (none is open).
        case open
        /// Close the open capture, if any.
        case close
        /// Close the open capture, if any, and open a new one.
        case reopen
        /// (Re)arm the linger's timer for this time (CLOCK_MONOTONIC ns); it calls `lingerEnded`.
        case armLinger(at: Int64)
        case cancelLinger
        /// Arm the retry's timer for this time (CLOCK_MONOTONIC ns); it calls `retryDue`.
        case armRetry(at: Int64)
        case cancelRetry
    }

    /// Delay before the first retry after a loss (ns); doubles up to `maxRetryDelay`.
    static let firstRetryDelay: Int64 = 500_000_000
    /// Longest delay between retries (ns): a device that comes back is found within 10 s.
    static let maxRetryDelay: Int64 = 10_000_000_000

    /// How long open sensors stay open after demand ends (ns).
    var linger: Int64
    /// Someone needs samples (subscribers and motion not reduced, a calibration, start-up).
    private(set) var demanded = false
    /// The delay the next retry waits (ns).
    private(set) var retryDelay = Self.firstRetryDelay
    /// The retry's timer is armed.
    private(set) var retrying = false
    /// The linger's timer is armed.
    private(set) var lingering = false
    /// When the current linger ends (ns).
    private var lingerEnds: Int64 = 0
    /// The linger closes nothing before this (ns; 0: no hold): `keepOpen(until:)`.
    private var keptOpenUntil: Int64 = 0

    /// - Parameter linger: ns the sensors stay open after demand ends.
    init(linger: Int64) {
        self.linger = linger
    }

    /// Demand begins or ends. Beginning: the linger is off, and a capture opens unless one is
    /// open or a retry waits (the retry opens it). Ending: a waiting retry is dropped (an idle
    /// daemon makes no wake-ups) and open sensors linger.
    mutating func demand(_ wanted: Bool, isOpen: Bool, now: Int64) -> [Action] {
        guard wanted != demanded else { return [] }
        demanded = wanted
        if wanted {
            var actions = cancelLinger()
            if !isOpen && !retrying { actions.append(.open) }
            return actions
        }
        var actions = cancelRetry()
        guard isOpen else { return actions }
        lingerEnds = now + linger
        lingering = true
        actions.append(.armLinger(at: lingerDeadline))
        return actions
    }

    /// Open sensors stay open until `deadline` (ns) at least, even without demand; 0 lifts the
    /// hold. Never opens. A linger under way moves to the later of its end and the hold's.
    mutating func keepOpen(until deadline: Int64) -> [Action] {
        keptOpenUntil = deadline
        return lingering ? [.armLinger(at: lingerDeadline)] : []
    }

    /// The linger's timer fired: sensors still open and still not wanted close.
    mutating func lingerEnded(isOpen: Bool) -> [Action] {
        lingering = false
        return !demanded && isOpen ? [.close] : []
    }

    /// Close now and want nothing (reduce motion, shutdown).
    mutating func closeNow() -> [Action] {
        demanded = false
        return cancelLinger() + cancelRetry() + [.close]
    }

    /// The open sensors must be opened afresh (new settings, a device appeared, iio-sensor-proxy
    /// came or went, the clocks say the system slept): a failure before says nothing about the
    /// new open, so the retry's wait starts over. Without demand what is open only closes,
    /// unless `evenWithoutDemand` (a lingering capture is replaced, and lingers on).
    mutating func reopen(evenWithoutDemand: Bool = false) -> [Action] {
        retryDelay = Self.firstRetryDelay
        return cancelRetry() + [demanded || evenWithoutDemand ? .reopen : .close]
    }

    /// The capture said what it opened: the next loss is retried soon again.
    mutating func opened() {
        retryDelay = Self.firstRetryDelay
    }

    /// The capture failed (or could not start). A source that can never work (`retryable`
    /// false: an invalid `Source=`) and an unwanted one are not retried; otherwise the retry
    /// waits the current delay, and the next one twice as long, up to `maxRetryDelay`.
    mutating func failed(retryable: Bool, now: Int64) -> [Action] {
        guard demanded, retryable else { return [] }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.maxRetryDelay)
        retrying = true
        return [.armRetry(at: now + delay)]
    }

    /// The retry's timer fired. Devices being set up are opened by the arrival watch once udev
    /// is done with them (`awaitingDevices`): an open now would meet their nodes before udev's
    /// rules (EACCES).
    mutating func retryDue(isOpen: Bool, awaitingDevices: Bool) -> [Action] {
        retrying = false
        return demanded && !isOpen && !awaitingDevices ? [.open] : []
    }

    /// The system goes to sleep: a waiting retry is dropped; whether one was waiting (and still
    /// wanted) is returned, so that the sensors open after the sleep instead.
    mutating func goingToSleep() -> (actions: [Action], retryWasDue: Bool) {
        let wasRetrying = retrying
        return (cancelRetry(), wasRetrying && demanded)
    }

    /// The system is back: devices the sleep reset say nothing of a failure before it.
    mutating func resumed() {
        retryDelay = Self.firstRetryDelay
    }

    /// The linger's end, or the hold's, whichever is later (ns).
    private var lingerDeadline: Int64 { max(lingerEnds, keptOpenUntil) }

    private mutating func cancelLinger() -> [Action] {
        guard lingering else { return [] }
        lingering = false
        return [.cancelLinger]
    }

    private mutating func cancelRetry() -> [Action] {
        guard retrying else { return [] }
        retrying = false
        return [.cancelRetry]
    }
}
