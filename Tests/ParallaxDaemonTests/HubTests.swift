import CLinux
import Glibc
import ParallaxMotion
import ParallaxProtocol
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// The hub alone, with each subscriber's lines recorded instead of written to sockets (the seam
/// `SubscriberLines`): latest-value delivery by due time, per-rotation lines, the fallback timer
/// that refreshes before it delivers, and never the same frame twice.
@Suite struct HubTests {
    /// Every subscriber's lines, and the daemon's side of `FrameRefresher`.
    final class RecordingOutput: FrameRefresher {
        var lines: [(client: Int, message: ServerMessage)] = []
        var refreshes = 0
        /// Called by `refreshFrames`, as the daemon would drain samples there.
        var onRefresh: () -> Void = {}

        /// Lines for subscriber `id`, recorded here; drained unless `connection` (a real socket)
        /// says it is backed up.
        final class Lines: SubscriberLines {
            let id: Int
            unowned let output: RecordingOutput
            let connection: ClientConnection?
            init(id: Int, output: RecordingOutput, connection: ClientConnection?) {
                self.id = id
                self.output = output
                self.connection = connection
            }
            func write(_ line: [UInt8]) {
                if let message = ServerMessage.decode(line: line.dropLast().map { $0 }) { output.lines.append((id, message)) }
            }
            var isDrained: Bool { connection?.isDrained ?? true }
        }

        /// A subscriber whose lines are recorded here.
        func subscriber(_ id: Int, rate: Int = 60, rotation: DisplayRotation = .none, due: Int64 = 0,
                        drainedBy connection: ClientConnection? = nil) -> Subscriber {
            let subscriber = Subscriber(id: id, lines: Lines(id: id, output: self, connection: connection))
            subscriber.subscription = Subscription(rate: rate, rotation: rotation)
            if due > 0 { subscriber.subscription?.pacing.sent(sampleAt: due - 1) }
            return subscriber
        }

        func refreshFrames() {
            refreshes += 1
            onRefresh()
        }

        func offsets(for client: Int) -> [(seq: UInt64, x: Double, y: Double)] {
            lines.compactMap { line in
                guard line.client == client, case .offset(let seq, _, let x, let y, _, _, _) = line.message else { return nil }
                return (seq, x, y)
            }
        }
    }

    /// The subscribe time to give `Hub.add` so that the made-up sample times of these tests
    /// (t = 1, 5, …) count as current for a new subscriber's first frame (`Hub.isCurrent`: a
    /// sample taken after the subscribe); the first-frame rules have their own tests
    /// (Tests/integration/test_first_frame.py).
    static let anyFrameIsCurrent = Int64.min

    @Test func aDueSubscriberGetsTheFrameInItsOwnAxes() throws {
        let loop = try EventLoop()
        let output = RecordingOutput()
        let hub = Hub(loop: loop, refresher: output)
        hub.add(output.subscriber(1), now: Self.anyFrameIsCurrent)
        hub.add(output.subscriber(2, rotation: .clockwise90), now: Self.anyFrameIsCurrent)
        hub.publish(t: 5, offset: ViewerOffset(x: 0.5, y: -0.25))
        let plain = output.offsets(for: 1)
        let turned = output.offsets(for: 2)
        #expect(plain.count == 1 && turned.count == 1)
        #expect(plain.first?.x == 0.5 && plain.first?.y == -0.25)
        // docs/frames.md: an output turned 90° clockwise gets (y, −x).
        #expect(turned.first?.x == -0.25 && turned.first?.y == -0.5)
        #expect(plain.first?.seq == 1 && turned.first?.seq == 1)
    }

    @Test func aFrameIsNeverSentTwiceAndFresheningKeepsItsSeq() throws {
        let loop = try EventLoop()
        let output = RecordingOutput()
        let hub = Hub(loop: loop, refresher: output)
        let client = output.subscriber(1)
        hub.add(client, now: Self.anyFrameIsCurrent)
        hub.publish(t: 5, offset: ViewerOffset(x: 0.1, y: 0.1))
        hub.sendLatest(to: client)
        #expect(output.offsets(for: 1).count == 1)
        hub.freshen(t: 6, offset: ViewerOffset(x: 0.2, y: 0.2), velocity: .zero)
        #expect(hub.latest?.seq == 1)
        #expect(hub.latest?.offset == ViewerOffset(x: 0.2, y: 0.2))
        // An older sample never replaces a newer one.
        hub.freshen(t: 4, offset: ViewerOffset(x: 0.9, y: 0.9), velocity: .zero)
        #expect(hub.latest?.offset == ViewerOffset(x: 0.2, y: 0.2))
        hub.sendLatest(to: client)
        #expect(output.offsets(for: 1).count == 1)
    }

    @Test func aSubscriberNotYetDueGetsTheFreshestFrameFromTheFallbackTimer() throws {
        let loop = try EventLoop()
        let output = RecordingOutput()
        let hub = Hub(loop: loop, refresher: output)
        let due = plx_monotonic_ns() + 10_000_000
        let client = output.subscriber(1)
        hub.add(client, now: Self.anyFrameIsCurrent)
        hub.publish(t: 4, offset: ViewerOffset(x: 0.05, y: 0))   // its first frame, at once
        // Its next point is 10 ms or more away in sample time; the next sample never comes.
        client.subscription?.pacing = FramePacing(rate: 60)
        client.subscription?.pacing.sent(sampleAt: due)
        hub.publish(t: 5, offset: ViewerOffset(x: 0.1, y: 0))
        #expect(output.offsets(for: 1).map(\.x) == [0.05])
        // The refresh before delivery brings in a newer sample, which is what goes out.
        output.onRefresh = {
            hub.freshen(t: 6, offset: ViewerOffset(x: 0.3, y: 0), velocity: .zero)
            loop.schedule(at: 0) { loop.stop() }
        }
        loop.schedule(at: plx_monotonic_ns() + EventLoopTests.guardTimeout) { loop.stop() }
        loop.run()
        #expect(output.refreshes == 1)
        #expect(output.offsets(for: 1).map(\.x) == [0.05, 0.3])
        #expect(plx_monotonic_ns() >= due)
    }

    @Test func theNextSampleNeedIsTheEarliestDueOrTheNextGridPoint() throws {
        let loop = try EventLoop()
        let output = RecordingOutput()   // the hub holds it unowned
        let hub = Hub(loop: loop, refresher: output)
        #expect(hub.nextSampleNeed(now: 1_000) == nil)
        let first = output.subscriber(1, rate: 50), second = output.subscriber(2, rate: 50)
        hub.add(first, now: Self.anyFrameIsCurrent)
        hub.add(second, now: Self.anyFrameIsCurrent)
        // A new subscriber needs the next sample, whatever its rate.
        #expect(hub.nextSampleNeed(now: 1_000) == .min)
        hub.publish(t: 1, offset: ViewerOffset(x: 0.1, y: 0))   // their first frames
        for (client, due) in [(first, Int64(2_000_000_000)), (second, 1_500_000_000)] {
            client.subscription?.pacing = FramePacing(rate: 50)
            client.subscription?.pacing.sent(sampleAt: due - 1)
        }
        #expect(hub.nextSampleNeed(now: 1_000_000_000) == 1_500_000_000)
        // Both points passed on the clock but no sample reached them yet (a buffered sample
        // arrives after it was taken): still the first sample at or after the earliest point.
        #expect(hub.nextSampleNeed(now: 2_005_000_000) == 1_500_000_000)
    }

    /// Reduce motion's last frame goes to every subscriber before the state line that follows it:
    /// one due, one whose next frame is seconds away, one whose socket is backed up.
    @Test func theFinalFrameReachesEverySubscriberBeforeTheStateLine() throws {
        let loop = try EventLoop()
        let output = RecordingOutput()
        let hub = Hub(loop: loop, refresher: output)
        let now = plx_monotonic_ns()
        let due = output.subscriber(1, rate: 60, due: 0)
        let notDue = output.subscriber(2, rate: 1, due: now + 5_000_000_000)
        let (daemonSide, clientSide) = ClientConnectionTests.socketPair()
        defer { close(clientSide) }
        let socket = ClientConnection(id: 3, fd: FileDescriptor(rawValue: daemonSide), peer: ClientConnectionTests.peer,
                                      lines: ClientConnectionTests.NoLines())
        defer { socket.close() }
        let backedUp = output.subscriber(3, drainedBy: socket)
        // The peer reads nothing: fill its socket until output waits in the connection.
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 16384)
        while case .done = socket.send(filler) {}
        #expect(!backedUp.lines.isDrained)
        for client in [due, notDue, backedUp] { hub.add(client, now: Self.anyFrameIsCurrent) }
        hub.publish(t: 1, offset: ViewerOffset(x: 0.4, y: 0.2))
        hub.publishFinal(t: 2, offset: .zero)
        hub.broadcast(ServerMessage.state(sensor: .none, reduceMotion: true, calibrated: false).encode())
        for id in 1...3 {
            let mine = output.lines.filter { $0.client == id }.map(\.message)
            guard mine.count >= 2, case .offset(let seq, _, let x, let y, let vx, let vy, _) = mine[mine.count - 2],
                  case .state(_, true, _, _) = mine[mine.count - 1] else {
                Issue.record("client \(id): not the (0, 0) frame then the state line: \(mine)")
                continue
            }
            #expect(seq == hub.seq && x == 0 && y == 0 && vx == 0 && vy == 0, "client \(id)")
        }
        // Nothing is left to deliver later.
        #expect(!hub.hasPendingDelivery)
    }
}
