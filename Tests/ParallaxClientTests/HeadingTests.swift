// The heading in the Swift kit (docs/client-kit.md "Heading"): opt-in on the subscribe line, yaw
// and vyaw on the offset only when asked for and sent, the prediction wraps round, and the
// interpolating effect takes the heading as its third axis.

import CLinux
import Glibc
import ParallaxClient
import Testing

@Suite struct HeadingTests {
    @Test func aHeadingSubscriberAsksForItAndReadsYaw() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 30, heading: true)
        let connection = try #require(daemon.accept(pumping: subscriber))
        let request = try #require(connection.handshake(pumping: subscriber, heading: true))
        #expect(request == #"{"cmd":"subscribe","rate":30,"rotation":0,"heading":true}"#)
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(subscriber.state.heading)

        connection.send(
            #"{"type":"offset","seq":3,"t":5,"x":0.1,"y":0,"vx":0,"vy":0,"yaw":-0.5,"vyaw":1.25}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 3 })
        #expect(subscriber.offset == ParallaxOffset(x: 0.1, y: 0, t: 5, seq: 3, yaw: -0.5, vyaw: 1.25))

        // The daemon lost its gyroscope: the state says so and frames come without yaw.
        connection.send(#"{"type":"state","sensor":"ok","reduce_motion":false,"calibrated":true,"heading":false}"# + "\n",
                        pumping: subscriber)
        #expect(pump(subscriber) { !subscriber.state.heading })
        connection.send(offsetLine(seq: 4, x: 0.2, y: 0), pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 4 })
        #expect(subscriber.offset?.yaw == nil && subscriber.offset?.vyaw == nil)

        // A yaw outside the wire's range or not finite is a bad line.
        let ignored = subscriber.ignoredLines
        connection.send(
            #"{"type":"offset","seq":5,"t":6,"x":0,"y":0,"yaw":7,"vyaw":0}"# + "\n"
                + #"{"type":"offset","seq":6,"t":6,"x":0,"y":0,"yaw":0,"vyaw":1e999}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.ignoredLines == ignored + 2 })
        #expect(subscriber.offset?.seq == 4)
    }

    @Test func withoutTheFlagTheLineIsProtocolV1AndYawIsIgnored() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, rate: 30)
        let connection = try #require(daemon.accept(pumping: subscriber))
        let request = try #require(connection.handshake(pumping: subscriber, heading: true))
        #expect(request == #"{"cmd":"subscribe","rate":30,"rotation":0}"#)
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(!subscriber.state.heading)
        connection.send(#"{"type":"offset","seq":1,"t":5,"x":0.1,"y":0,"yaw":0.5,"vyaw":0}"# + "\n", pumping: subscriber)
        #expect(pump(subscriber) { subscriber.offset?.seq == 1 })
        #expect(subscriber.offset?.yaw == nil)
    }

    @Test func aDaemonWithoutGyroscopeSaysSoInItsReply() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = FakeDaemon(path: directory.file("parallaxd.sock"))
        let subscriber = try ParallaxSubscriber(path: daemon.path, heading: true)
        let connection = try #require(daemon.accept(pumping: subscriber))
        _ = try #require(connection.handshake(pumping: subscriber, heading: false))
        #expect(pump(subscriber) { subscriber.state.connected })
        #expect(!subscriber.state.heading)
    }

    @Test func predictionTurnsTheYawRoundAndNeverGivesNaN() {
        let frame = ParallaxOffset(x: 0, y: 0, t: 1_000_000_000, seq: 1, yaw: 3.0, vyaw: 2)
        let later = frame.predicted(at: 1_100_000_000)  // 3.2 rad is −3.0832 after the turn
        #expect(abs(later.yaw! - (3.2 - 2 * Double.pi)) < 1e-12)
        #expect(later.vyaw == 2)
        let earlier = frame.predicted(at: 900_000_000)
        #expect(abs(earlier.yaw! - 2.8) < 1e-12)
        #expect(ParallaxOffset(x: 0, y: 0, yaw: .nan, vyaw: .infinity).predicted(at: 5).yaw == 0)
        #expect(ParallaxOffset(x: 0, y: 0, yaw: 1, vyaw: 1e308).predicted(at: .max).yaw!.isFinite)
        #expect(ParallaxOffset(x: 0, y: 0).predicted(at: 5).yaw == nil)  // no heading stays none
        #expect(ParallaxOffset(x: 0, y: 0, yaw: 0.5).vyaw == 0)  // a yaw without rate is still
    }

    @Test func theHeadingIsAnAxisOfTheInterpolatingEffect() {
        // A 360° panorama 3600 px wide scrolls left as the screen turns right.
        let pano = InterpolatingMotionEffect(key: "pano.x", axis: .heading, minimum: 1800, maximum: -1800)
        #expect(pano.values(for: ParallaxOffset(x: 0.3, y: 0.1, yaw: 0)) == ["pano.x": .scalar(0)])
        let quarter = pano.values(for: ParallaxOffset(x: 0, y: 0, yaw: Double.pi / 2)).scalar("pano.x")
        #expect(abs(quarter - -900) < 1e-9)
        #expect(pano.values(for: ParallaxOffset(x: 0, y: 0, yaw: Double.pi)).scalar("pano.x") == -1800)
        #expect(pano.values(for: ParallaxOffset(x: 1, y: 1)) == ["pano.x": .scalar(0)])  // no heading
        #expect(pano.values(for: ParallaxOffset(x: 0, y: 0, yaw: .nan)) == ["pano.x": .scalar(0)])
        // x and y effects ignore the heading.
        let x = InterpolatingMotionEffect(key: "x", axis: .horizontal, minimum: -10, maximum: 10)
        #expect(x.values(for: ParallaxOffset(x: 0.5, y: 0, yaw: 2)) == ["x": .scalar(5)])
    }
}
