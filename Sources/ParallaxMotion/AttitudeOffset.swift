// Attitude mode after the filter: the reference and its iOS rules, the mapping, the lock.

/// From the fused attitude to the attitude-mode offset, as UIKit's motion effects do it:
/// - the reference re-centres toward the current pose (`Recentering`), when `recenter` is on;
/// - after stale input (no sample for `staleTime`) a jump of the offset by `staleJump` or more is
///   absorbed by shifting the reference, so the picture does not leap (re-centring on);
/// - when idle with the device flipped over, the reference jumps (`Recentering.flipped`);
/// - the directional lock holds one axis during a mostly one-directional motion (option).
struct AttitudeOffset: Sendable {
    /// s; iOS treats input this old as stale.
    static let staleTime = 0.25
    /// Offset units; after stale input, iOS absorbs jumps at least this large.
    static let staleJump = 0.02

    /// Reference ("resting pose", device→earth); nil until the first attitude.
    private(set) var reference: Quaternion?
    /// The mapped offset before the lock at the previous update.
    private var raw = ViewerOffset.zero
    private var idle = IdleDetector()
    private var lock = DirectionalLock()

    var isIdle: Bool { idle.isIdle }
    /// Fraction (0…1) of each axis's motion the directional lock holds back now (0 without lock).
    var lockHolding: ViewerOffset { lock.holding }

    /// Makes `attitude` the resting pose; the offset is (0, 0) and nothing is held or idle.
    mutating func start(at attitude: Quaternion) {
        reference = attitude
        raw = .zero
        idle.reset()
        lock.reset()
    }

    /// Forgets everything (before the first attitude again).
    mutating func clear() {
        self = AttitudeOffset()
    }

    /// Drops what the lock holds (the lock was switched off or on).
    mutating func releaseLock() {
        lock.reset()
    }

    /// The offset for `attitude`, `previous` being the attitude one update ago, `dt` the step
    /// (s, gaps clamped) and `gap` the unclamped time since the previous sample (s).
    @inline(__always)
    mutating func update(attitude: Quaternion, previous: Quaternion, dt: Double, gap: Double, settings s: MotionSettings) -> ViewerOffset {
        guard var ref = reference else {
            start(at: attitude)
            return .zero
        }
        if s.recenter {
            // Why: the pose changed while nothing was reported; iOS keeps the picture still and
            // moves the reference by the same rotation (R' = A·A_prev⁻¹·R keeps R⁻¹·A).
            if gap >= Self.staleTime {
                let candidate = map(ref, attitude, s)
                if max(abs(candidate.x - raw.x), abs(candidate.y - raw.y)) >= Self.staleJump {
                    ref = (attitude * previous.conjugate * ref).normalized()
                }
            }
            ref = Recentering.step(reference: ref, toward: attitude, dt: dt)
        }
        var now = map(ref, attitude, s)
        idle.update(now, dt: dt)
        if s.recenter, idle.isIdle, let flipped = Recentering.flipped(reference: ref, toward: attitude) {
            ref = flipped
            now = map(ref, attitude, s)
            raw = now  // a jump of the reference is not a motion for the lock
            idle.reset()
        }
        reference = ref
        let out: ViewerOffset
        if s.directionalLock {
            // Why: what the lock held drains at iOS's re-centring speed near the centre.
            let release = Recentering.baseRate * s.sensitivity / s.saturationAngle
            out = lock.apply(raw: now, previous: raw, dt: dt, releaseRate: release)
        } else {
            out = now
        }
        raw = now
        return out
    }

    @inline(__always)
    private func map(_ reference: Quaternion, _ attitude: Quaternion, _ s: MotionSettings) -> ViewerOffset {
        OffsetMapping.offset(reference: reference, current: attitude, saturationAngle: s.saturationAngle, sensitivity: s.sensitivity)
    }
}
