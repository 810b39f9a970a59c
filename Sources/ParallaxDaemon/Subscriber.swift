import ParallaxMotion

/// Where a subscriber's lines go: the server's end of its connection (`ConnectionLines`,
/// ClientServer.swift). The hub writes only through this and never sees a socket.
protocol SubscriberLines: AnyObject {
    /// Writes a line. Never blocks and never drops it: what the socket does not take now waits
    /// and goes out in order (the server's job, with the stall timer).
    func write(_ line: [UInt8])
    /// Nothing waits to be written: the connection can take a fresh frame now.
    var isDrained: Bool { get }
}

/// One connection's place in the fan-out: what it asked for, what it has been sent, and whether
/// it still waits for its first frame. The hub decides what goes out (Hub.swift); the subscriber
/// keeps the record, so that the hub holds no table about anyone.
///
/// A connection has one subscriber for its whole life (`ClientConnection.subscriber`), through
/// subscribes, unsubscribes and re-subscribes, so the record outlives any one subscription.
final class Subscriber {
    /// The connection's id (ClientConnection.id): keys the hub's set of subscribers.
    let id: Int
    let lines: any SubscriberLines
    /// What it asked for and when its frames fall due; nil while not subscribed.
    var subscription: Subscription?
    /// Seq of the last frame sent (0: none yet). Never reset, so re-subscribing never repeats a
    /// frame: `seq` only grows on a connection.
    private(set) var lastSentSeq: UInt64 = 0
    /// `Hub.Frame.offsetVersion` of the last frame sent: a subscriber without the heading is not
    /// sent frames that only the yaw's change brought.
    private(set) var lastSentOffsetVersion: UInt64 = 0
    /// Since when (monotonic ns) it has waited for its first frame, the current offset
    /// (`Hub.isCurrent`); nil once it has had a frame, or before it subscribed.
    var awaitingCurrentSince: Int64?

    init(id: Int, lines: any SubscriberLines) {
        self.id = id
        self.lines = lines
    }

    /// The client asked for yaw and vyaw on its frames.
    var wantsHeading: Bool { subscription?.wantsHeading == true }

    /// Whether `frame` is news here: a newer seq, and for a subscriber without the heading an
    /// offset that moved since what it was sent.
    func isNew(_ frame: Hub.Frame) -> Bool {
        lastSentSeq < frame.seq && (wantsHeading || lastSentOffsetVersion < frame.offsetVersion)
    }

    /// `frame` went out on `line`: the record moves on and the pacing counts the frame's sample.
    func send(_ frame: Hub.Frame, line: [UInt8]) {
        lastSentSeq = frame.seq
        lastSentOffsetVersion = frame.offsetVersion
        awaitingCurrentSince = nil
        subscription?.pacing.sent(sampleAt: frame.t)
        lines.write(line)
    }
}

/// A client's subscription: what it asked for and when its frames fall due.
struct Subscription {
    /// Hz, after the client's cap.
    let rate: Int
    var rotation: DisplayRotation
    /// The subscribe's `heading`: nil when not named (protocol v1), else what was asked.
    var heading: Bool? = nil
    /// When its frames fall due, in sample time (FramePacing.swift).
    var pacing: FramePacing

    init(rate: Int, rotation: DisplayRotation, heading: Bool? = nil) {
        self.rate = rate
        self.rotation = rotation
        self.heading = heading
        pacing = FramePacing(rate: rate)
    }

    var interval: Int64 { pacing.interval }

    /// The client asked for yaw and vyaw on its frames (and for the frames only the yaw brings).
    var wantsHeading: Bool { heading == true }
}
