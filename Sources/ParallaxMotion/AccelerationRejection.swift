// Acceleration rejection with recovery (x-io Fusion), counted in seconds instead of samples.

/// Decides whether an accelerometer reading that disagrees with the attitude is ignored.
///
/// Fusion's rule in time units: a reading beyond the threshold is ignored and adds its interval
/// to a trigger; one within it subtracts nine intervals. When the trigger reaches the timeout
/// (readings rejected for over 90 % of the time), recovery starts: every reading is used until
/// the trigger is back at 0. The trigger stays within [0, timeout].
struct AccelerationRejection: Sendable {
    /// Seconds of net rejection, 0…timeout.
    private(set) var trigger = 0.0
    /// True while recovering (the accelerometer is used whatever it says).
    private(set) var isRecovering = false

    /// Fusion's weight of an accepted reading against a rejected one (90 % rejection balances).
    static let acceptedWeight = 9.0

    /// True when the reading should be ignored. `exceeds`: its disagreement is over the threshold.
    @inline(__always)
    mutating func ignores(exceeds: Bool, interval: Double, timeout: Double) -> Bool {
        trigger += exceeds ? interval : -Self.acceptedWeight * interval
        trigger = min(max(trigger, 0), timeout)
        if trigger >= timeout { isRecovering = true }
        if trigger <= 0 { isRecovering = false }
        return exceeds && !isRecovering
    }

    mutating func reset() {
        self = AccelerationRejection()
    }
}
