// How often the attitude filter needs the accelerometer when the gyroscope runs at full rate to
// correct the gyroscope's drift (docs/motion.md "Accelerometer rate"): the floor under the rate
// of a capture that reads the accelerometer through sysfs (every read a round trip to a HID
// sensor hub). That capture reads faster (IIOSettings.defaultPolledAccelerometerRate, 25 Hz) for
// what the gain does not cover: the motion's linear acceleration, sampled by sparse readings.

extension MotionSettings {
    /// Accelerometer readings per second per 1/s of `filterGain` (dimensionless): 16, so that one
    /// reading corrects at most gain/rate = 1/16 of the tilt error. The sampled correction then decays per reading by 1 − 1/16
    /// where the continuous law decays by e^(−1/16): within 3 % of the same time constant, and the
    /// rate is 16·2π ≈ 100 × the correction's corner frequency gain/2π (docs/motion.md).
    static let gravityReferenceReadingsPerGain = 16.0

    /// Accelerometer rate (Hz, readings per second) the attitude filter needs with these settings
    /// while the gyroscope runs at full rate: `gravityReferenceReadingsPerGain` × `filterGain`, and
    /// at least 1/`maxGap` (a reading that comes more than `maxGap` after the previous one while
    /// the device moves counts for `maxGap` only, which would lower the gain). 8 Hz with the
    /// defaults (Fusion's gain 0.5/s; 1/maxGap = 5 Hz). Settings are validated first.
    ///
    /// Source: docs/motion.md "Accelerometer rate" (the derivation, and what it costs on real
    /// recordings). At rest (the gyroscope stationary) any slower rate keeps the gain: a reading
    /// then stands for its whole interval. During the start-up ramp (gain 10 → 0.5 over 3 s) the
    /// rate is under 16 × the ramped gain; the correction is then capped at the error itself.
    public var gravityReferenceRate: Double {
        let s = validated()
        return max(Self.gravityReferenceReadingsPerGain * s.filterGain, 1 / s.maxGap)
    }
}
