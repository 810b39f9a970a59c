import CLinux
import Glibc
import ParallaxMotion
import ParallaxProtocol
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// The heading in the hub and the router (docs/protocol.md "Heading"): yaw only on the lines of
/// subscribers that asked and only while a gyroscope provides it, the same in every rotation;
/// frames only the yaw brought reach nobody else; replies echo the flag only when it was named.
@Suite struct HubHeadingTests {
    typealias Output = HubTests.RecordingOutput

    static func subscriber(_ output: Output, _ id: Int, rotation: DisplayRotation = .none, heading: Bool? = nil) -> Subscriber {
        let subscriber = output.subscriber(id, rotation: rotation)
        subscriber.subscription?.heading = heading
        return subscriber
    }

    static func headings(_ output: Output, for client: Int) -> [OffsetHeading?] {
        output.lines.compactMap { line in
            guard line.client == client, case .offset(_, _, _, _, _, _, let heading) = line.message else { return nil }
            return heading
        }
    }

    @Test func yawGoesOnlyToHeadingSubscribersAndIgnoresTheirRotation() throws {
        let loop = try EventLoop()
        let output = Output()
        let hub = Hub(loop: loop, refresher: output)
        hub.headingAvailable = true
        hub.add(Self.subscriber(output, 1), now: HubTests.anyFrameIsCurrent)
        hub.add(Self.subscriber(output, 2, heading: true), now: HubTests.anyFrameIsCurrent)
        hub.add(Self.subscriber(output, 3, rotation: .clockwise270, heading: true), now: HubTests.anyFrameIsCurrent)
        hub.add(Self.subscriber(output, 4, heading: false), now: HubTests.anyFrameIsCurrent)
        #expect(hub.headingWanted)
        hub.publish(t: 5, offset: ViewerOffset(x: 0.5, y: 0), heading: Heading(yaw: 0.75, rate: -0.5))
        let expected = OffsetHeading(yaw: 0.75, vyaw: -0.5)
        #expect(Self.headings(output, for: 1) == [nil])
        #expect(Self.headings(output, for: 2) == [expected])
        #expect(Self.headings(output, for: 3) == [expected])
        #expect(Self.headings(output, for: 4) == [nil])
        #expect(output.offsets(for: 3).first?.x == 0 && output.offsets(for: 3).first?.y == 0.5)  // x, y do turn
    }

    @Test func withoutAGyroscopeNoFrameCarriesYaw() throws {
        let loop = try EventLoop()
        let output = Output()
        let hub = Hub(loop: loop, refresher: output)
        let client = Self.subscriber(output, 1, heading: true)
        hub.add(client, now: HubTests.anyFrameIsCurrent)
        hub.publish(t: 5, offset: ViewerOffset(x: 0.5, y: 0), heading: Heading(yaw: 0.75, rate: 0))
        #expect(Self.headings(output, for: 1) == [nil])
        // The gyroscope appears: the next frame carries yaw (the cached line is not reused).
        hub.headingAvailable = true
        client.subscription?.pacing = FramePacing(rate: 60)
        hub.republishLatest()
        #expect(Self.headings(output, for: 1) == [nil, OffsetHeading(yaw: 0.75, vyaw: 0)])
    }

    @Test func framesOnlyTheYawBroughtReachNobodyElse() throws {
        let loop = try EventLoop()
        let output = Output()
        let hub = Hub(loop: loop, refresher: output)
        hub.headingAvailable = true
        let plain = Self.subscriber(output, 1)
        let heading = Self.subscriber(output, 2, heading: true)
        hub.add(plain, now: HubTests.anyFrameIsCurrent)
        hub.add(heading, now: HubTests.anyFrameIsCurrent)
        hub.publish(t: 1, offset: ViewerOffset(x: 0.1, y: 0))
        for client in [plain, heading] { client.subscription?.pacing = FramePacing(rate: 60) }
        hub.publish(t: 2, offset: ViewerOffset(x: 0.1, y: 0), heading: Heading(yaw: 0.2, rate: 1), offsetMoved: false)
        #expect(output.offsets(for: 1).map(\.seq) == [1])
        #expect(output.offsets(for: 2).map(\.seq) == [1, 2])
        // The offset moves again: both get the newest frame, the plain one with a gap in seq.
        for client in [plain, heading] { client.subscription?.pacing = FramePacing(rate: 60) }
        hub.publish(t: 3, offset: ViewerOffset(x: 0.3, y: 0), heading: Heading(yaw: 0.3, rate: 1))
        #expect(output.offsets(for: 1).map(\.seq) == [1, 3])
        #expect(output.offsets(for: 2).map(\.seq) == [1, 2, 3])
        // A yaw-only frame that overtakes an offset move before the plain subscriber is due still
        // brings it that move (latest value: the newest offset).
        let later = plx_monotonic_ns() + 10_000_000_000
        for client in [plain, heading] { client.subscription?.pacing.sent(sampleAt: later) }
        hub.publish(t: 4, offset: ViewerOffset(x: 0.6, y: 0), heading: Heading(yaw: 0.3, rate: 0))
        hub.publish(t: 5, offset: ViewerOffset(x: 0.6, y: 0), heading: Heading(yaw: 0.5, rate: 0), offsetMoved: false)
        for client in [plain, heading] { client.subscription?.pacing = FramePacing(rate: 60) }
        hub.deliver()
        #expect(output.offsets(for: 1).map(\.seq) == [1, 3, 5] && output.offsets(for: 1).last?.x == 0.6)
    }

    @Test func reduceMotionsFinalFrameHasYawZero() throws {
        let loop = try EventLoop()
        let output = Output()
        let hub = Hub(loop: loop, refresher: output)
        hub.headingAvailable = true
        hub.add(Self.subscriber(output, 1, heading: true), now: HubTests.anyFrameIsCurrent)
        hub.publish(t: 1, offset: ViewerOffset(x: 0.4, y: 0), heading: Heading(yaw: -1, rate: 2))
        hub.publishFinal(t: 2, offset: .zero)
        #expect(Self.headings(output, for: 1) == [OffsetHeading(yaw: -1, vyaw: 2), .zero])
    }

    @Test func stateLinesCarryHeadingOnlyForThoseWhoAsked() throws {
        let loop = try EventLoop()
        let output = Output()
        let hub = Hub(loop: loop, refresher: output)
        hub.add(Self.subscriber(output, 1), now: HubTests.anyFrameIsCurrent)
        hub.add(Self.subscriber(output, 2, heading: true), now: HubTests.anyFrameIsCurrent)
        let plain = ServerMessage.state(sensor: .ok, reduceMotion: false, calibrated: false)
        let withHeading = ServerMessage.state(sensor: .ok, reduceMotion: false, calibrated: false, heading: false)
        hub.broadcast(plain.encode(), headingLine: withHeading.encode())
        hub.broadcastToHeadingSubscribers(withHeading.encode())
        #expect(output.lines.filter { $0.client == 1 }.map(\.message) == [plain])
        #expect(output.lines.filter { $0.client == 2 }.map(\.message) == [withHeading, withHeading])
    }

    @Test func theSubscribedReplyEchoesHeadingOnlyWhenNamed() {
        let effects = CommandRouterTests.RecordingEffects()
        let router = CommandRouterTests.router(effects)
        let v1 = CommandRouterTests.send(#"{"cmd":"subscribe","rate":30}"#, as: CommandRouterTests.user, to: router)
        _ = CommandRouterTests.send(#"{"cmd":"subscribe","rate":30,"heading":true}"#, as: CommandRouterTests.user, to: router)
        _ = CommandRouterTests.send(#"{"cmd":"subscribe","rate":30,"heading":false}"#, as: CommandRouterTests.user, to: router)
        effects.headingAvailable = false
        let refused = CommandRouterTests.send(#"{"cmd":"subscribe","rate":30,"heading":true}"#, as: CommandRouterTests.user, to: router)
        let bad = CommandRouterTests.send(#"{"cmd":"subscribe","heading":"yes"}"#, as: CommandRouterTests.user, to: router)
        #expect(effects.log.filter { $0.hasPrefix("subscribed") } == [
            #"subscribed new {"type":"subscribed","rate":30,"rotation":0}"#,
            #"subscribed new {"type":"subscribed","rate":30,"rotation":0,"heading":true}"#,
            #"subscribed new {"type":"subscribed","rate":30,"rotation":0,"heading":false}"#,
            #"subscribed new {"type":"subscribed","rate":30,"rotation":0,"heading":false}"#,
        ])
        #expect(v1.subscriber.wantsHeading == false && refused.subscriber.wantsHeading == true)
        #expect(bad.strikes == 1 && bad.subscriber.subscription == nil)
    }
}
