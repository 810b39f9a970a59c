import CLinux
import ParallaxMotion
import ParallaxProtocol

/// Where fresher frames come from (the daemon: Daemon+Motion.swift). Lines go to each
/// subscriber's own `SubscriberLines`, which the server owns.
protocol FrameRefresher: AnyObject {
    /// Brings the latest frame up to date before the fallback timer delivers it: samples may be
    /// waiting in the capture queue when input stopped short of a due time.
    func refreshFrames()
}

/// Fans frames and state lines out to subscribers.
///
/// Latest-value semantics: the hub keeps only the newest frame. Each subscriber gets it when its
/// rate allows and its socket has drained; a frame that is overtaken before then is skipped (the
/// client sees a gap in `seq`), never queued. Each line is encoded once per display rotation and
/// heading choice.
///
/// Heading (docs/protocol.md "Heading"): subscribers that asked for it get yaw and vyaw on every
/// frame while `headingAvailable`, and also the frames only the yaw's change brought. Those frames
/// do not count for the others: a subscriber without the heading is sent a frame only when the
/// offset moved since the last one it was sent (`offsetVersion`), as if they had not happened.
final class Hub {
    /// The frame subscribers get: its seq (the hub's count of published frames, `Hub.seq`), and
    /// the newest sample's time, offset and velocity (panel axes), the heading, and how many
    /// offset moves it carries.
    struct Frame {
        var seq: UInt64
        var t: Int64
        var offset: ViewerOffset
        var velocity: OffsetVelocity
        var heading: Heading = .zero
        /// Counts the frames whose offset moved (or that were final); frames only the yaw brought
        /// keep the previous count.
        var offsetVersion: UInt64 = 0
    }

    /// Frames published so far, the seq of the latest: the hub counts them itself (`publish`,
    /// `republishLatest`), so seq grows across sensor reopens and engine resets.
    private(set) var seq: UInt64 = 0
    private(set) var latest: Frame?
    /// The latest frame is reduce motion's (0, 0), which holds until reduce motion ends: current
    /// whatever its age (no sample is behind it).
    private var latestIsHeld = false
    private var offsetVersion: UInt64 = 0
    /// Subscribed connections by id; each keeps its own record (Subscriber.swift).
    private var subscribers: [Int: Subscriber] = [:]
    private var encoded: [Int: [UInt8]] = [:]      // line key (rotation, heading) → latest frame's line
    /// A gyroscope is among the sensors (the daemon sets it when sensors open): heading
    /// subscribers' frames carry yaw.
    var headingAvailable = false {
        didSet { if headingAvailable != oldValue { encoded.removeAll(keepingCapacity: true) } }
    }
    private var timer: EventLoop.TimerID?
    private var timerDeadline: Int64 = 0
    private let loop: EventLoop
    private unowned let refresher: any FrameRefresher

    /// Frames handed to subscribers, for the status report's rate.
    private(set) var framesPublished = 0
    /// Smoothed time between published frames (ns): how long a fresh frame takes to come.
    private var publishInterval: Int64 = 10_000_000
    private var lastPublish: Int64 = 0
    /// Smoothed time between the samples of published frames (ns, sample time), and the last one.
    private var samplePeriod: Int64 = 0
    private var lastPublishedT: Int64?
    /// Bounds of the wait for a fresh frame past a client's due time (ns).
    static let freshnessWaitRange: ClosedRange<Int64> = 2_000_000...50_000_000
    /// Oldest sample (ns) a new subscriber's first frame may carry as the current offset. A
    /// frame's `t` is its newest sample's time, and the samples behind the latest frame may be
    /// seconds old: a capture at rest reads a few times a second (a HID hub at rest reports
    /// nothing at all), and closed sensors read nothing. 20 ms is two sample periods at 100 Hz;
    /// an older frame waits for the next sample (`isCurrent`).
    static let currentAge: Int64 = 20_000_000

    init(loop: EventLoop, refresher: any FrameRefresher) {
        self.loop = loop
        self.refresher = refresher
    }

    var count: Int { subscribers.count }

    /// Some subscriber asked for the heading: the engine should emit frames for yaw changes.
    var headingWanted: Bool { subscribers.values.contains { $0.wantsHeading } }

    /// When (monotonic ns) the last frame was published; 0 before any.
    var lastPublishTime: Int64 { lastPublish }
    /// A frame waits for a subscriber that is not due or not drained yet (the fallback timer is
    /// armed), or a new subscriber waits for a current sample.
    var hasPendingDelivery: Bool { timer != nil || awaitsCurrentSample }
    /// A new subscriber waits for its first frame until a current sample comes: the sensors must
    /// deliver one now, not at a rest's pace (`Supervisor.wantCurrentSample`).
    var awaitsCurrentSample: Bool { subscribers.values.contains { $0.awaitingCurrentSince != nil } }

    /// When the loop next needs a fresh sample (a sample time: the first sample taken at or after
    /// it); nil without subscribers.
    ///
    /// Each subscriber needs the sample for its next due point (`FramePacing.need`): one not yet
    /// due needs the first sample at or after its point, even when the point has passed on the
    /// clock (a buffered sample arrives after it was taken: waiting for the next point instead
    /// would skip one). One that owes a point needs the next sample. One waiting on a frame that
    /// has not come (the offset is not moving) gives its point up when the sample comes
    /// (`FramePacing.passed`) and then needs the next point, not every sample. Why: a device at
    /// rest with a compositor subscribed is the common case, and taking samples one by one there
    /// cost 400 wake-ups a second (the capture thread and the loop each per sample) to send
    /// nothing. The price: the first frame of a new motion goes out at the next grid point, at
    /// most one subscription interval after its sample. A new subscriber waiting for a current
    /// sample needs the next one, whatever its rate.
    func nextSampleNeed(now: Int64) -> Int64? {
        let newest = latest?.t
        return subscribers.values.lazy.compactMap { subscriber -> Int64? in
            guard let sub = subscriber.subscription else { return nil }
            if let since = subscriber.awaitingCurrentSince { return since }
            return sub.pacing.need(latest: newest, now: now, drained: subscriber.lines.isDrained)
        }.min()
    }

    /// The earliest need once every subscriber due by a sample taken at `time` has been served
    /// with it: the capture's forecast of the need after the next one (`SampleNeed.following`).
    func earliestDue(afterServingAt time: Int64) -> Int64? {
        subscribers.values.lazy.compactMap { subscriber -> Int64? in
            guard var pacing = subscriber.subscription?.pacing else { return nil }
            if pacing.isDue(sampleAt: time) { pacing.sent(sampleAt: time) }
            return pacing.need(latest: time, now: time)
        }.min()
    }

    /// A subscription (new, or replaced on the same connection). A connection that has had no
    /// frame yet gets the current offset first (`sendLatest`), from a sample at most
    /// `currentAge` old or taken since `now`; one that has keeps what it was sent.
    func add(_ subscriber: Subscriber, now: Int64 = plx_monotonic_ns()) {
        subscribers[subscriber.id] = subscriber
        if subscriber.lastSentSeq == 0 { subscriber.awaitingCurrentSince = now }
    }

    func remove(_ subscriber: Subscriber) {
        subscribers[subscriber.id] = nil
        subscriber.awaitingCurrentSince = nil
    }

    /// Whether `frame` may be a new subscriber's first, "current" frame: its newest sample is at
    /// most `currentAge` old, or was taken after the subscription (the freshest a slow source
    /// such as a remote device can give), or it is reduce motion's held (0, 0).
    private func isCurrent(_ frame: Frame, since: Int64, now: Int64) -> Bool {
        latestIsHeld || frame.t >= since || now - frame.t <= Self.currentAge
    }

    /// A new offset from the engine (or the single (0, 0) frame of reduce motion). With
    /// `deliver: false` it only becomes the latest frame; `deliver()` sends it (the loop takes
    /// samples in batches, and only the batch's newest frame should go out). `offsetMoved: false`:
    /// only the yaw moved, and only heading subscribers need it.
    func publish(t: Int64, offset: ViewerOffset, velocity: OffsetVelocity = .zero, heading: Heading = .zero,
                 offsetMoved: Bool = true, deliver: Bool = true) {
        let now = plx_monotonic_ns()
        if lastPublish > 0 {
            // A long pause (the device rested) says nothing about the input rate: cap it.
            let dt = min(now - lastPublish, 100_000_000)
            publishInterval += (dt - publishInterval) / 8
        }
        lastPublish = now
        if let previous = lastPublishedT, t > previous {
            samplePeriod += (min(t - previous, 100_000_000) - samplePeriod) / 8
        }
        lastPublishedT = t
        latestIsHeld = false
        seq += 1
        if offsetMoved { offsetVersion += 1 }
        latest = Frame(seq: seq, t: t, offset: offset, velocity: velocity, heading: heading, offsetVersion: offsetVersion)
        encoded.removeAll(keepingCapacity: true)
        framesPublished += 1
        if deliver { deliverAll() }
    }

    /// No frame is current any more (the sensors closed): nothing is sent to a new subscriber
    /// until the next `publish`. `seq` keeps counting.
    func forgetLatest() {
        latest = nil
        latestIsHeld = false
        encoded.removeAll(keepingCapacity: true)
        if let timer { loop.cancel(timer); self.timer = nil }
    }

    /// The last frame before silence (reduce motion's (0, 0)): it becomes the latest frame and
    /// goes to every subscriber now, whatever its rate, due time or socket state (a backed-up
    /// socket queues it like a state line). Why not `publish`: that delivers to subscribers that
    /// are due and drained and leaves the rest to later, after the state line that the caller
    /// sends next, which must come after this frame (docs/protocol.md "Ordering guarantees").
    func publishFinal(t: Int64, offset: ViewerOffset) {
        publish(t: t, offset: offset, heading: .zero, deliver: false)
        latestIsHeld = true
        if let timer { loop.cancel(timer); self.timer = nil }
        guard let latest else { return }
        for subscriber in subscribers.values where subscriber.lastSentSeq < latest.seq {
            send(latest, to: subscriber)
        }
    }

    /// A newer sample that moved the offset too little for a frame of its own: the latest frame
    /// takes its values (same seq). Why: the minimum change decides *whether* a frame goes out,
    /// never *which* value; a subscriber that becomes due later gets the newest sample, not the
    /// one that happened to cross the threshold up to a frame period earlier.
    func freshen(t: Int64, offset: ViewerOffset, velocity: OffsetVelocity, heading: Heading = .zero) {
        guard var frame = latest, t >= frame.t else { return }
        frame.t = t
        frame.offset = offset
        frame.velocity = velocity
        frame.heading = heading
        latest = frame
        encoded.removeAll(keepingCapacity: true)
    }

    /// The latest offset again under a new seq (same t): a client that changed its display
    /// rotation needs the current offset in its new axes, and seq must still only grow.
    func republishLatest() {
        guard let latest else { return }
        publish(t: latest.t, offset: latest.offset, velocity: latest.velocity, heading: latest.heading)
    }

    /// Sends the latest frame to every subscriber that is due for it.
    func deliver() {
        deliverAll()
    }

    /// Sends the newest frame to a new subscriber now, whatever its rate (on subscribe, so a
    /// client learns where the layers belong without waiting for the device to move), if it is
    /// current (`isCurrent`); otherwise the subscriber gets the first frame of a current sample
    /// when it comes (`deliver`), and `awaitsCurrentSample` says the sensors must bring one.
    func sendLatest(to subscriber: Subscriber) {
        // (Draining a batch just before may already have delivered it: never send a frame twice.)
        guard let latest, subscriber.subscription != nil, subscriber.lastSentSeq < latest.seq else { return }
        let now = plx_monotonic_ns()
        if let since = subscriber.awaitingCurrentSince, !isCurrent(latest, since: since, now: now) { return }
        send(latest, to: subscriber)
    }

    /// A line for every subscriber (state changes); `headingLine`, when given, to those that
    /// asked for the heading instead.
    func broadcast(_ line: [UInt8], headingLine: [UInt8]? = nil) {
        for subscriber in subscribers.values {
            subscriber.lines.write(subscriber.wantsHeading ? headingLine ?? line : line)
        }
    }

    /// A line for the subscribers that asked for the heading only (a change only they can see).
    func broadcastToHeadingSubscribers(_ line: [UInt8]) {
        for subscriber in subscribers.values where subscriber.wantsHeading {
            subscriber.lines.write(line)
        }
    }

    /// The subscriber's socket drained: it may take the frame it missed.
    func drained(_ subscriber: Subscriber) {
        guard subscribers[subscriber.id] === subscriber else { return }
        if let due = deliver(to: subscriber, now: plx_monotonic_ns()) { armTimer(due) }
    }

    /// `fallback`: the timer fired, no sample came for a due point: a subscriber whose point
    /// has passed by the wait (`fallbackWait`) takes the frame there is.
    private func deliverAll(fallback: Bool = false) {
        let now = plx_monotonic_ns()
        var earliest = Int64.max
        for subscriber in subscribers.values {
            if let due = deliver(to: subscriber, now: now, fallback: fallback) { earliest = min(earliest, due) }
        }
        if earliest != .max { armTimer(earliest) }
    }

    /// How long past a due point the fallback timer waits before it looks again (ns): 1.5 input
    /// periods by the clock between publishes. Its refresh pumps the samples queued by then.
    private var fallbackWait: Int64 {
        min(max(publishInterval * 3 / 2, Self.freshnessWaitRange.lowerBound), Self.freshnessWaitRange.upperBound)
    }

    /// How long input must have been silent before an older frame serves a due point (ns): 1.5
    /// sample periods by the samples' own spacing (frames published in a batch come microseconds
    /// apart on the clock, so `publishInterval` says little about a stalled source).
    private var stallWait: Int64 {
        min(max(samplePeriod * 3 / 2, Self.freshnessWaitRange.lowerBound), Self.freshnessWaitRange.upperBound)
    }

    /// Sends the latest frame if this client is due and drained; otherwise returns when to try
    /// again if no fresher frame comes first.
    ///
    /// Due is decided in sample time (`FramePacing`): the latest frame's newest sample reached the
    /// subscriber's next grid point. While the device moves, input (100–200 Hz) is faster than
    /// a subscription (30–60 Hz), and the frame to send is the first one of a sample at or after
    /// the point, which the loop takes when it comes (`nextSampleNeed`). The timer is only the
    /// fallback for when input stops (the device came to rest), so the final position still
    /// arrives: past the point by `fallbackWait` on the clock, the frame there is goes out.
    private func deliver(to subscriber: Subscriber, now: Int64, fallback: Bool = false) -> Int64? {
        guard let latest, let sub = subscriber.subscription else { return nil }
        guard subscriber.isNew(latest) else {
            // Nothing to send from this sample (the minimum change held it back): a point it
            // reached is given up, so the next frame keeps to the grid.
            if sub.pacing.isDue(sampleAt: latest.t) { subscriber.subscription?.pacing.passed(sampleAt: latest.t) }
            return nil
        }
        guard subscriber.lines.isDrained else { return nil }     // retried from `drained`
        if let since = subscriber.awaitingCurrentSince {
            // A new subscriber: its first frame goes at once, but only from a current sample
            // (the next batch brings one: no timer).
            if isCurrent(latest, since: since, now: now) { send(latest, to: subscriber) }
            return nil
        }
        if !sub.pacing.isDue(sampleAt: latest.t) {
            let point = sub.pacing.nextDue ?? now
            let deadline = point > Int64.max - fallbackWait ? Int64.max : point + fallbackWait
            // Only when input has stopped: a late loop (the machine is busy) pumps the sample
            // for the point in `refreshFrames` first, and an older frame must not serve it.
            guard fallback, now >= deadline, now - lastPublish >= stallWait else {
                return fallback && now >= deadline ? lastPublish + stallWait : deadline
            }
        }
        send(latest, to: subscriber)
        return nil
    }

    /// Encodes `frame` for the subscriber's rotation and heading (once per kind of line) and
    /// sends it.
    private func send(_ frame: Frame, to subscriber: Subscriber) {
        guard let sub = subscriber.subscription else { return }
        // Yaw is about the world's vertical: the same for every display rotation.
        let withHeading = sub.wantsHeading && headingAvailable
        let key = sub.rotation.rawValue * 2 + (withHeading ? 1 : 0)
        let line: [UInt8]
        if let cached = encoded[key] {
            line = cached
        } else {
            let o = frame.offset.rotated(by: sub.rotation)
            let v = frame.velocity.rotated(by: sub.rotation)
            let heading = withHeading ? OffsetHeading(yaw: frame.heading.yaw, vyaw: frame.heading.rate) : nil
            line = ServerMessage.offset(seq: frame.seq, t: frame.t, x: o.x, y: o.y, vx: v.x, vy: v.y, heading: heading).encode()
            encoded[key] = line
        }
        subscriber.send(frame, line: line)
    }

    private func armTimer(_ deadline: Int64) {
        if timer != nil && timerDeadline <= deadline { return }
        if let timer { loop.cancel(timer) }
        timerDeadline = deadline
        timer = loop.schedule(at: deadline) { [unowned self] in
            self.timer = nil
            self.refresher.refreshFrames()
            self.deliverAll(fallback: true)
        }
    }
}
