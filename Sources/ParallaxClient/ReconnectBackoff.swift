// The reconnect schedule, the same as libparallax's and the Python module's (docs/client-kit.md,
// "Reconnecting"): delays start at `initialRetryDelay` and double per failed connection up to
// `maximumRetryDelay`, each spread by ±`retryJitter` so subscribers that lost the same daemon do
// not all knock at once. A subscription that lasted `stableSubscription` was a working daemon and
// starts the schedule over; a shorter one counts as a failure, so a daemon that crashes right
// after serving each client is retried ever more slowly, not ten times a second.

/// Doubling reconnect delays with jitter (ms).
struct ReconnectBackoff<Generator: RandomNumberGenerator> {
    /// The next delay before jitter (ms).
    private(set) var nominal = ParallaxSubscriber.initialRetryDelay
    private var generator: Generator

    init(generator: Generator) {
        self.generator = generator
    }

    /// The delay before the next attempt (ms, jittered); the nominal delay then doubles.
    mutating func nextDelay() -> Int64 {
        let jitter = ParallaxSubscriber.retryJitter
        let factor = Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        let delay = Int64((Double(nominal) * factor).rounded())
        nominal = min(nominal * 2, ParallaxSubscriber.maximumRetryDelay)
        return delay
    }

    /// Back to the first delay (after a subscription that lasted).
    mutating func reset() {
        nominal = ParallaxSubscriber.initialRetryDelay
    }
}
