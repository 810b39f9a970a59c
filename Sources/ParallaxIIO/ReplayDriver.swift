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
        var sensors = [SensorDescription(kind: .accelerometer, device: "replay", location: path, rate: 0, capture: "replay")]
        if first.gyro != nil { sensors.append(SensorDescription(kind: .gyroscope, device: "replay", location: path, rate: 0, capture: "replay")) }
        self.sensors = sensors
        _ = try peek()
        logger.info("replaying \(path) at \(self.speed)× speed\(loop ? ", looping" : "")")
    }

    /// The next sample, read ahead, and the monotonic time it is due (once its pass has started).
    private var pending: Sample?
    private var pendingDue: Int64?
    /// Due time of the sample last returned, and the smoothed spacing of due times (ns), for
    /// forecasting when the next ones come (`QueuedSampleSource`).
    private var lastDue: Int64 = 0
    /// The file has no more samples and does not loop.
    private var ended = false
    var duePeriod = 0.0

    public func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        guard let (sample, due) = try peek() else { return nil }
        guard MonotonicClock.sleep(until: due, shouldStop: shouldStop) else { return nil }
        return take(sample, due: due)
    }

    /// The next sample and its due time, reading it from the file if needed.
    func peek() throws(SensorError) -> (Sample, Int64)? {
        if pending == nil {
            pending = try nextFromFile()
            pendingDue = nil
        }
        guard let sample = pending else { return nil }
        if let pendingDue { return (sample, pendingDue) }
        if firstTraceTime == nil {
            firstTraceTime = sample.t
            // The first pass starts when the file is opened (peek runs from init), so samples
            // fall due while the capture thread sleeps, as a kernel buffer fills. A later pass
            // starts one nominal sample (10 ms) after the previous pass's last one.
            wallOrigin = passes == 0 ? MonotonicClock.now() : lastDue.saturatingAdding(Int64(saturating: 10_000_000 / speed))
            stampOrigin = passes == 0 ? wallOrigin : lastOutputTime.saturatingAdding(10_000_000)
        }
        // A trace's stamps may be any Int64 (in order): spans saturate; one beyond ~292 years is
        // never due, which is what it means.
        let span = sample.t.saturatingSubtracting(firstTraceTime!)
        let due = wallOrigin.saturatingAdding(Int64(saturating: Double(span) / speed))
        pendingDue = due
        return (sample, due)
    }

    private func take(_ sample: Sample, due: Int64) -> Sample {
        pending = nil
        pendingDue = nil
        var out = sample
        out.t = max(stampOrigin.saturatingAdding(sample.t.saturatingSubtracting(firstTraceTime!)),
                    lastOutputTime.saturatingAdding(1))
        lastOutputTime = out.t
        if lastDue > 0, due > lastDue {
            let spacing = Double(due - lastDue)
            duePeriod = duePeriod == 0 ? spacing : duePeriod + (spacing - duePeriod) / 8
        }
        lastDue = due
        return out
    }

    private func nextFromFile() throws(SensorError) -> Sample? {
        if let s = try reader.next() { return s }
        guard loop else { ended = true; return nil }
        try reader.rewind()
        passes += 1
        firstTraceTime = nil
        return try reader.next()
    }

    public func close() {}
}

extension ReplayDriver: QueuedSampleSource {
    /// A recording loses nothing however long it is left unread; a second keeps status current.
    public var queueSpan: Int64 { 1_000_000_000 }

    /// The last sample's stamp: the daemon's needs are sample times (FramePacing's grid), and a
    /// replay's stamps run `speed` times ahead of its due times on the clock.
    public var lastSampleArrival: Int64 { lastOutputTime }

    public var hasEnded: Bool { ended && pending == nil }

    public func expectedArrival(ofSampleAt time: Int64) -> Int64 {
        // `time` is a sample time (the recorded spacing from `stampOrigin`); its sample is due
        // `speed` times sooner on the clock. Before the first sample, or for one already handed
        // over, the answer is the time itself (at speed 1 the two clocks are one).
        guard lastDue > 0, duePeriod > 0 else { return time }
        guard time > lastOutputTime else { return min(time, lastDue) }
        // The recorded spacing, extended from the last sample: exact for a steady recording.
        // Rounded up: waking a nanosecond early would cost a second wake-up for the sample.
        let wall = Double(time.saturatingSubtracting(lastOutputTime)) / speed
        let steps = (wall / duePeriod).rounded(.up)
        return lastDue.saturatingAdding(Int64(saturating: (steps * duePeriod).rounded(.up)))
    }

    public func takeQueued() throws(SensorError) -> Sample? {
        guard let (sample, due) = try peek(), due <= MonotonicClock.now() else { return nil }
        return take(sample, due: due)
    }
}

extension ReplayDriver: PollableSource {
    /// The next row's due time: a recording's rows are readable at their time, never before.
    public var nextReadable: Int64 { (try? peek())?.1 ?? .max }
}
