// The engine: samples in, viewer-offset frames out (architecture.md "Seams"). Pure, no I/O.

/// Turns sensor samples into viewer-offset frames. Value type with no allocation per sample;
/// owned by one thread (the event loop).
///
/// Time handling (all from sample timestamps, CLOCK_MONOTONIC ns):
/// - Each sensor has its own interval since its previous reading, so accelerometer and gyroscope
///   may arrive together or in separate samples, at different rates. The first reading has interval 0.
/// - Zero or negative intervals (repeated or backwards timestamps) integrate nothing; the
///   clock is then re-synchronised to the new timestamp, so a jump back does not freeze output.
/// - An interval longer than `maxGap` is a gap: the gyroscope is not integrated over it, other
///   time steps are clamped to `maxGap`, and an attitude neither sensor followed snaps to gravity.
/// - Non-finite or absurd components (|a| > 1000 m/s², |ω| > 100 rad/s) are ignored.
/// The offset is always finite and within [−1, 1].
public struct MotionEngine: Sendable {
    private var _settings: MotionSettings
    private var filter: AttitudeFilter
    private var attitudeOffset = AttitudeOffset()
    private var rateOffset = RateIntegrator()
    private var lastEmitted: ViewerOffset?
    private var lastEmittedYaw = 0.0
    /// Rate mode's reference for the heading (attitude mode uses the offset's reference).
    private var headingReference: Quaternion?
    private var lastAccelTime: Int64?
    private var lastGyroTime: Int64?

    /// Latest offset, whether or not it was emitted.
    public private(set) var current: ViewerOffset = .zero
    /// Rate of change of `current` at the latest sample (offset units per second): from the fused
    /// rotation rate, 0 while the device is still, without a gyroscope, and right after re-centring.
    public private(set) var velocity: OffsetVelocity = .zero
    /// Yaw about the world's vertical against the reference pose, and its rate (Heading.swift),
    /// kept while `headingWanted`. Attitude mode: the offset's reference, re-centred with it; rate
    /// mode: a reference of its own from when the heading was first wanted (or `recenter()`),
    /// re-centred by the same law when `recenter` is on. 0 before the first frame.
    public private(set) var heading: Heading = .zero
    /// Keep the heading, and emit a frame also when only the yaw moved (by
    /// `Heading.minimumChange`). Off unless someone wants the heading: then the engine costs and
    /// emits exactly what it did before the heading existed.
    public var headingWanted = false {
        didSet {
            guard headingWanted != oldValue else { return }
            if headingWanted { refreshHeading() } else { heading = .zero; headingReference = nil }
        }
    }
    /// Count of frames emitted. Kept across `reset()` so subscribers never see it go backwards.
    public private(set) var seq: UInt64 = 0
    /// True once a frame has been emitted since start or `reset()`: `current` is then an offset
    /// worth publishing (before it, there is no resting pose yet).
    public var isPublishing: Bool { lastEmitted != nil }
    /// Timestamp (ns) of the latest sample, nil before the first.
    public private(set) var lastSampleTime: Int64?

    public init(settings: MotionSettings = MotionSettings()) {
        _settings = settings.validated()
        filter = AttitudeFilter(settings: _settings)
    }

    /// Settings (validated on assignment). Changing them keeps the attitude, the reference and
    /// the clocks; changing the mode re-centres (offset → 0, a frame follows if that is a change).
    public var settings: MotionSettings {
        get { _settings }
        set {
            let new = newValue.validated()
            let modeChanged = new.mode != _settings.mode
            if new.directionalLock != _settings.directionalLock { attitudeOffset.releaseLock() }
            _settings = new
            filter.settings = new
            if modeChanged { recenter() }
        }
    }

    /// Device→earth attitude, earth Z up (identity before the first plausible accelerometer reading).
    public var attitude: Quaternion { filter.attitude }
    /// True once the attitude has been set from the accelerometer.
    public var isInitialized: Bool { filter.isInitialized }
    /// Attitude-mode reference ("resting pose"), nil before initialisation.
    public var referenceAttitude: Quaternion? { attitudeOffset.reference }
    /// Learned gyroscope bias (rad/s, device frame).
    public var gyroscopeBias: Vector3 { filter.gyroscopeBias }
    /// Attitude mode: the raw offset has moved less than 0.01 for 0.52 s (iOS's idle).
    public var isIdle: Bool { attitudeOffset.isIdle }
    /// The attitude filter's state, for diagnostics and tests.
    public var attitudeFilter: AttitudeFilter { filter }

    /// Feeds one sample. Returns a frame when the offset moved by at least `minimumChange` on x
    /// or y since the last emitted frame (or came back to exactly (0, 0)); the first frame
    /// (offset 0) comes as soon as there is a reference (attitude mode: first plausible
    /// accelerometer reading; rate mode: first usable reading).
    public mutating func update(_ sample: Sample) -> MotionFrame? {
        let t = sample.t
        let accel = SensorLimits.usableAccel(sample.accel)
        let gyro = SensorLimits.usableGyro(sample.gyro)

        // Why: real time, never per sample; gaps are not integrated, short steps are.
        let gap = Self.seconds(from: lastSampleTime, to: t)
        let step = min(gap, _settings.maxGap)
        lastSampleTime = t
        var accelInterval = 0.0
        if accel != nil {
            accelInterval = Self.seconds(from: lastAccelTime, to: t)
            lastAccelTime = t
        }
        var gyroInterval = 0.0
        if gyro != nil {
            gyroInterval = Self.seconds(from: lastGyroTime, to: t)
            lastGyroTime = t
        }

        let previous = filter.attitude
        filter.update(accel: accel, accelInterval: accelInterval, gyro: gyro, gyroInterval: gyroInterval, elapsed: gap)

        switch _settings.mode {
        case .attitude:
            guard filter.isInitialized else { return nil }
            // Why: the first settled attitude is the user's resting pose; announce it with (0, 0).
            guard attitudeOffset.reference != nil else {
                attitudeOffset.start(at: filter.attitude)
                current = .zero
                velocity = .zero
                heading = .zero
                return emit(t: t, offsetMoved: true)
            }
            current = attitudeOffset.update(
                attitude: filter.attitude, previous: previous, dt: step, gap: gap, settings: _settings)
            velocity = attitudeVelocity()
            if headingWanted, let reference = attitudeOffset.reference {
                heading = Heading.of(reference: reference, current: filter.attitude, rate: filter.rotationRate)
            }

        case .rate:
            // Why: rate mode starts with the first usable reading of either sensor.
            guard gyro != nil || filter.isInitialized || lastEmitted != nil else { return nil }
            if gyro != nil, let rate = filter.rotationRate, gyroInterval <= _settings.maxGap {
                rateOffset.integrate(
                    gyro: rate, interval: gyroInterval, threshold: _settings.rateThreshold,
                    gain: _settings.rateGain * _settings.sensitivity)
            }
            rateOffset.relax(rate: _settings.rateReturn, interval: step)
            current = rateOffset.offset
            velocity = filter.rotationRate.map {
                OffsetVelocity.rate(
                    gyro: $0, offset: current, threshold: _settings.rateThreshold,
                    gain: _settings.rateGain * _settings.sensitivity, returnRate: _settings.rateReturn)
            } ?? .zero
            if headingWanted { heading = rateModeHeading(dt: step) }
        }
        return emitIfMoved(t: t)
    }

    /// Makes the current pose the resting pose: attitude mode reference := current attitude;
    /// rate mode integrated offset := 0. The offset becomes (0, 0).
    public mutating func recenter() {
        if filter.isInitialized {
            attitudeOffset.start(at: filter.attitude)
            headingReference = filter.attitude
        }
        rateOffset.recenter()
        current = .zero
        velocity = .zero
        heading = .zero
    }

    /// The system slept: the device may lie in another pose now, and neither sensor followed the
    /// way there. Everything restarts as after `reset()` (the attitude from the next plausible
    /// accelerometer reading: no sweep from the pose before the sleep, and a first frame at once
    /// whatever `minimumChange` says), except attitude mode's reference with re-centring off:
    /// that is the user's chosen resting pose, and the first frame gives the new pose against it.
    /// With re-centring on, the new pose is the resting pose (iOS absorbs a pose that changed
    /// while nothing was reported the same way: `AttitudeOffset.staleTime`).
    /// `keepingReference`: the reference stays whatever re-centring says, for sensors reopened
    /// while nothing moved unseen (another try at buffering, milliseconds out of sight): a new
    /// resting pose there would jump the picture to centre under a user holding the device tilted.
    public mutating func restartAttitude(keepingReference: Bool = false) {
        let kept = _settings.mode == .attitude && (keepingReference || !_settings.recenter) ? attitudeOffset.reference : nil
        reset()
        if let kept { attitudeOffset.start(at: kept) }
    }

    /// Forgets attitude, reference, offsets and clocks (sensors reopened). Settings, `seq` and
    /// the learned gyroscope bias stay.
    public mutating func reset() {
        let keptSeq = seq
        let keptHeadingWanted = headingWanted
        var keptFilter = filter
        keptFilter.reset()
        self = MotionEngine(settings: _settings)
        filter = keptFilter
        seq = keptSeq
        headingWanted = keptHeadingWanted
    }

    /// Attitude mode's velocity; what the directional lock holds back of an axis does not move it.
    private func attitudeVelocity() -> OffsetVelocity {
        guard let rate = filter.rotationRate, let reference = attitudeOffset.reference else { return .zero }
        var v = OffsetVelocity.attitude(
            reference: reference, current: filter.attitude, rate: rate, offset: current,
            saturationAngle: _settings.saturationAngle, sensitivity: _settings.sensitivity)
        if _settings.directionalLock {
            let holding = attitudeOffset.lockHolding
            v = OffsetVelocity(x: v.x * (1 - holding.x), y: v.y * (1 - holding.y))
        }
        return v
    }

    /// The heading of the current attitude, at once (the heading was just wanted: a subscriber
    /// must not get yaw 0 for a device that lies still until its next sample).
    private mutating func refreshHeading() {
        switch _settings.mode {
        case .attitude:
            if let reference = attitudeOffset.reference {
                heading = Heading.of(reference: reference, current: filter.attitude, rate: filter.rotationRate)
            }
        case .rate:
            heading = rateModeHeading(dt: 0)
        }
    }

    /// Rate mode's heading: from the attitude against a reference of its own (the first
    /// attitude), re-centred like attitude mode's when `recenter` is on; 0 before the attitude.
    private mutating func rateModeHeading(dt: Double) -> Heading {
        guard filter.isInitialized else { return .zero }
        guard var reference = headingReference else {
            headingReference = filter.attitude
            return .zero
        }
        if _settings.recenter {
            reference = Recentering.step(reference: reference, toward: filter.attitude, dt: dt)
            headingReference = reference
        }
        return Heading.of(reference: reference, current: filter.attitude, rate: filter.rotationRate)
    }

    private mutating func emitIfMoved(t: Int64) -> MotionFrame? {
        guard let last = lastEmitted else { return emit(t: t, offsetMoved: true) }
        let m = _settings.minimumChange
        // Why: a return to exactly (0, 0) (re-centring done) is always worth telling.
        let backToCentre = current == .zero && last != .zero
        let offsetMoved = abs(current.x - last.x) >= m || abs(current.y - last.y) >= m || backToCentre
        var yawMoved = false
        if headingWanted {
            let turned = abs(Heading.wrapped(heading.yaw - lastEmittedYaw))
            yawMoved = turned >= Heading.minimumChange || heading.yaw == 0 && lastEmittedYaw != 0
        }
        guard offsetMoved || yawMoved else { return nil }
        return emit(t: t, offsetMoved: offsetMoved)
    }

    /// `offsetMoved`: x or y moved enough for a frame (false: only the yaw did, and clients
    /// without the heading need not hear of it).
    private mutating func emit(t: Int64, offsetMoved: Bool) -> MotionFrame {
        seq &+= 1
        if offsetMoved { lastEmitted = current }
        lastEmittedYaw = heading.yaw
        return MotionFrame(seq: seq, t: t, offset: current, velocity: velocity, attitude: filter.attitude,
                           heading: heading, offsetMoved: offsetMoved)
    }

    /// Seconds from `last` to `t`; 0 for the first reading, for repeated or backwards times and
    /// for differences that overflow.
    @inline(__always)
    static func seconds(from last: Int64?, to t: Int64) -> Double {
        guard let last else { return 0 }
        let (d, overflow) = t.subtractingReportingOverflow(last)
        guard !overflow, d > 0 else { return 0 }
        return Double(d) * nanosecondsToSeconds
    }

    static let nanosecondsToSeconds = 1e-9
}
