// Run-time gyroscope bias estimation while the device is still (x-io Fusion's FusionBias), with real dt.

/// Detects stationary periods and learns the gyroscope's offset during them.
///
/// Like Fusion: the device is stationary while every bias-corrected axis stays under
/// `stationaryRate`; once stationary for `stationaryPeriod`, each further reading pulls the offset
/// toward itself with a first-order low-pass of corner `biasCutoff` (a high-pass on the gyroscope).
/// Unlike Fusion:
/// - the step uses each reading's real interval instead of a fixed sample rate;
/// - what was learned in the last `onsetGuard` seconds is provisional and dropped when motion
///   follows: a motion starts slowly (under the threshold for a few tenths of a second) and
///   Fusion would learn that start as bias, leaving ≈0.1–0.2° of tilt error for the whole
///   next motion (measured on synthetic hand motion, docs/motion.md);
/// - the stationary time is also what still re-anchoring waits for.
struct GyroBias: Sendable {
    /// s; learning younger than this is undone if motion follows.
    static let onsetGuard = 1.0

    /// Learned offset (rad/s, device frame), subtracted from every reading.
    private(set) var offset = Vector3.zero
    /// How long (s) the device has been stationary; 0 while it moves.
    private(set) var stationaryTime = 0.0
    /// The offset as it was `pendingAge` seconds ago, before the provisional learning.
    private var committed = Vector3.zero
    private var pendingAge = 0.0

    /// The reading with the offset removed; learns from it when stationary long enough.
    /// `interval` (s) is the time the reading covers (0 or a gap: detection only, no time passes).
    @inline(__always)
    mutating func correct(_ rate: Vector3, interval: Double, settings s: MotionSettings) -> Vector3 {
        let corrected = rate - offset
        let limit = s.stationaryRate
        // Why: one axis over the threshold is motion (Fusion tests each axis, not the norm).
        guard abs(corrected.x) <= limit, abs(corrected.y) <= limit, abs(corrected.z) <= limit else {
            stationaryTime = 0
            offset = committed  // the motion's slow start was not bias
            pendingAge = 0
            return corrected
        }
        guard interval > 0, interval <= s.maxGap else { return corrected }
        if s.biasEstimation, stationaryTime >= s.stationaryPeriod {
            // Why: 2π·fc·dt is the discrete first-order low-pass step; capped at 1 so that a
            // huge cutoff or interval jumps to the reading instead of overshooting it.
            let step = min(2 * Double.pi * s.biasCutoff * interval, 1)
            offset += corrected * step
            pendingAge += interval
            if pendingAge >= Self.onsetGuard {
                committed = offset
                pendingAge = 0
            }
        }
        stationaryTime += interval
        return corrected
    }

    /// Forgets the stationary time (the device was lost or restarted) and what is provisional,
    /// but keeps the committed offset, a property of the sensor rather than of the session.
    mutating func interrupt() {
        stationaryTime = 0
        offset = committed
        pendingAge = 0
    }
}
