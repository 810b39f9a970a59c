import Testing
@testable import ParallaxDaemon

/// The supervisor's lifecycle as a value: made-up clocks in, actions out (SensorLifecycle.swift).
@Suite struct SensorLifecycleTests {
    typealias Action = SensorLifecycle.Action
    static let linger: Int64 = 2_000_000_000
    static let first = SensorLifecycle.firstRetryDelay

    @Test func demandOpensAndItsEndLingersThenCloses() {
        var life = SensorLifecycle(linger: Self.linger)
        #expect(life.demand(true, isOpen: false, now: 0) == [.open])
        #expect(life.demand(true, isOpen: true, now: 1) == [], "the same demand twice decides nothing")
        #expect(life.demand(false, isOpen: true, now: 10) == [.armLinger(at: 10 + Self.linger)])
        #expect(life.lingerEnded(isOpen: true) == [.close])
        // Demand that ends with nothing open leaves nothing to linger over.
        #expect(life.demand(true, isOpen: false, now: 20) == [.open])
        #expect(life.demand(false, isOpen: false, now: 30) == [])
    }

    @Test func demandBackWithinTheLingerKeepsWhatIsOpen() {
        var life = SensorLifecycle(linger: Self.linger)
        _ = life.demand(true, isOpen: false, now: 0)
        _ = life.demand(false, isOpen: true, now: 10)
        #expect(life.demand(true, isOpen: true, now: 20) == [.cancelLinger])
        // A linger timer that fires late, after demand came back, closes nothing.
        #expect(life.lingerEnded(isOpen: true) == [])
    }

    @Test func aHoldForANewcomerMovesTheLingersEnd() {
        var life = SensorLifecycle(linger: Self.linger)
        #expect(life.keepOpen(until: 5_000_000_000) == [], "a hold opens nothing and arms nothing by itself")
        _ = life.demand(true, isOpen: false, now: 0)
        #expect(life.demand(false, isOpen: true, now: 1_000_000_000) == [.armLinger(at: 5_000_000_000)])
        #expect(life.keepOpen(until: 0) == [.armLinger(at: 1_000_000_000 + Self.linger)], "lifting the hold")
        #expect(life.keepOpen(until: 9_000_000_000) == [.armLinger(at: 9_000_000_000)])
    }

    @Test func failuresAreRetriedWithADoublingDelayOnlyWhileWanted() {
        var life = SensorLifecycle(linger: Self.linger)
        #expect(life.failed(retryable: true, now: 0) == [], "nobody wants the sensors: no retry")
        _ = life.demand(true, isOpen: false, now: 0)
        var delays: [Int64] = []
        var now: Int64 = 0
        for _ in 0..<8 {
            guard case .armRetry(let at)? = life.failed(retryable: true, now: now).first else {
                Issue.record("no retry armed")
                return
            }
            delays.append(at - now)
            now = at
            #expect(life.retryDue(isOpen: false, awaitingDevices: false) == [.open])
        }
        #expect(delays == [Self.first, 2 * Self.first, 4 * Self.first, 8 * Self.first, 16 * Self.first,
                           SensorLifecycle.maxRetryDelay, SensorLifecycle.maxRetryDelay, SensorLifecycle.maxRetryDelay])
        // An open that works starts the wait over.
        life.opened()
        #expect(life.failed(retryable: true, now: now) == [.armRetry(at: now + Self.first)])
        #expect(life.failed(retryable: false, now: now) == [], "an invalid source is never retried")
    }

    @Test func aWaitingRetryDecidesTheOpen() {
        var life = SensorLifecycle(linger: Self.linger)
        _ = life.demand(true, isOpen: false, now: 0)
        _ = life.failed(retryable: true, now: 0)
        // Demand ending drops the retry; coming back while a retry waits leaves the open to it.
        #expect(life.demand(false, isOpen: false, now: 1) == [.cancelRetry])
        #expect(life.demand(true, isOpen: false, now: 2) == [.open])
        _ = life.failed(retryable: true, now: 3)
        #expect(life.demand(true, isOpen: false, now: 4) == [], "a retry waits: it opens, not the demand")
        // Devices udev is still setting up are the arrival watch's to open.
        #expect(life.retryDue(isOpen: false, awaitingDevices: true) == [])
        _ = life.failed(retryable: true, now: 11)
        #expect(life.retryDue(isOpen: true, awaitingDevices: false) == [], "something opened meanwhile")
    }

    @Test func aReopenStartsTheRetryOverAndOpensOnlyWhatIsWanted() {
        var life = SensorLifecycle(linger: Self.linger)
        _ = life.demand(true, isOpen: false, now: 0)
        for _ in 0..<3 { _ = life.failed(retryable: true, now: 0) }
        #expect(life.reopen() == [.cancelRetry, .reopen])
        #expect(life.failed(retryable: true, now: 100) == [.armRetry(at: 100 + Self.first)])
        _ = life.retryDue(isOpen: false, awaitingDevices: false)
        _ = life.demand(false, isOpen: true, now: 200)
        #expect(life.reopen() == [.close], "a lingering capture only closes")
        #expect(life.reopen(evenWithoutDemand: true) == [.reopen], "unless it is to be replaced")
    }

    @Test func closingNowWantsNothingAndStopsBothTimers() {
        var life = SensorLifecycle(linger: Self.linger)
        _ = life.demand(true, isOpen: false, now: 0)
        _ = life.demand(false, isOpen: true, now: 1)
        #expect(life.closeNow() == [.cancelLinger, .close])
        #expect(!life.demanded)
        _ = life.demand(true, isOpen: false, now: 2)
        _ = life.failed(retryable: true, now: 3)
        #expect(life.closeNow() == [.cancelRetry, .close])
        #expect(life.lingerEnded(isOpen: false) == [] && life.retryDue(isOpen: false, awaitingDevices: false) == [])
    }

    @Test func aSleepDropsTheRetryAndSaysTheSensorsAreStillWanted() {
        var life = SensorLifecycle(linger: Self.linger)
        #expect(life.goingToSleep() == ([], false))
        _ = life.demand(true, isOpen: false, now: 0)
        for _ in 0..<4 { _ = life.failed(retryable: true, now: 0) }
        let (actions, retryWasDue) = life.goingToSleep()
        #expect(actions == [.cancelRetry] && retryWasDue)
        life.resumed()
        #expect(life.failed(retryable: true, now: 50) == [.armRetry(at: 50 + Self.first)])
    }
}
