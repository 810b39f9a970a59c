import Logging
import ParallaxMotion

/// Plays a trace file as if it were live sensors: samples come at their recorded spacing
/// (divided by `speed`), with timestamps moved onto this machine's monotonic clock.
///
/// Timestamps keep the *recorded* spacing at any speed, so the engine sees the recorded motion
/// (a gyroscope integrated over compressed time would turn a quarter as far at 4×). At speeds
/// above 1 they therefore run ahead of the clock; at 1 they are the times the samples come out.
public final class ReplayDriver: SensorDriver {
    /// Replay speed factor: 1 = real time.
    public static let defaultSpeed = 1.0

    public let sensors: [SensorDescription]
    private let reader: TraceReader
    private let speed: Double
    private let loop: Bool
    /// Monotonic time (ns) at which the current pass started playing (paces the sleeps).
    private var wallOrigin: Int64 = 0
    /// Timestamp (ns) the current pass's first sample gets (the recorded spacing follows it).
    private var stampOrigin: Int64 = 0
    private var firstTraceTime: Int64?
    private var lastOutputTime: Int64 = 0
    private var passes = 0

    public init(path: String, speed: Double = ReplayDriver.defaultSpeed, loop: Bool, logger: Logger) throws(SensorError) {
        reader = try TraceReader(path: path)
        self.speed = speed > 0 && speed.isFinite ? speed : 1
        self.loop = loop
        // Read ahead one sample to learn which sensors the trace has and validate its header now:
        // a bad file is an error at open, not a silent stream of nothing.
        guard let first = try reader.next() else {
            throw SensorError(.invalidSource, "trace \(path) holds no samples")
        }
        pending = first
        var sensors = [SensorDescription(kind: .accelerometer, device: "replay", location: path, rate: 0)]
        if first.gyro != nil { sensors.append(SensorDescription(kind: .gyroscope, device: "replay", location: path, rate: 0)) }
        self.sensors = sensors
        logger.info("replaying \(path) at \(self.speed)× speed\(loop ? ", looping" : "")")
    }

    private var pending: Sample?

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        let next: Sample?
        if let pending { next = pending } else { next = try nextFromFile() }
        pending = nil
        guard var sample = next else { return nil }
        if firstTraceTime == nil {
            firstTraceTime = sample.t
            wallOrigin = MonotonicClock.now()
            // A later pass starts one nominal sample after the previous pass's last stamp.
            stampOrigin = passes == 0 ? wallOrigin : lastOutputTime + 10_000_000
        }
        let recorded = sample.t - firstTraceTime!
        let due = wallOrigin + Int64(Double(recorded) / speed)
        guard MonotonicClock.sleep(until: due, shouldStop: shouldStop) else { return nil }
        sample.t = max(stampOrigin + recorded, lastOutputTime + 1)
        lastOutputTime = sample.t
        return sample
    }

    private func nextFromFile() throws(SensorError) -> Sample? {
        if let s = try reader.next() { return s }
        guard loop else { return nil }
        try reader.rewind()
        passes += 1
        firstTraceTime = nil
        return try reader.next()
    }

    public func close() {}
}
