import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// Command routing alone, its effects recorded instead of carried out (the seam
/// `CommandEffects`): decoding, who may do what, the rate cap, and replies in their order.
@Suite struct CommandRouterTests {
    final class RecordingEffects: CommandEffects {
        var log: [String] = []
        var headingAvailable = true

        func reply(_ line: [UInt8], to client: ClientConnection) { log.append("reply \(text(line))") }
        func reject(_ error: ProtocolError, from client: ClientConnection) {
            client.strikes += 1
            log.append("reject \(error.code.rawValue)")
        }
        func deny(_ error: ProtocolError, from client: ClientConnection, _ what: String) {
            client.strikes += 1
            log.append("deny \(what): \(error.message)")
        }
        func requestAnswered(_ request: ClientRequest, for client: ClientConnection) { log.append("answered \(request.command.name)") }
        func subscribed(_ client: ClientConnection, previous: Subscription?, reply: [UInt8]) {
            log.append("subscribed \(previous == nil ? "new" : "again") \(text(reply))")
        }
        func unsubscribed(_ client: ClientConnection, wasSubscribed: Bool, reply: [UInt8]) {
            log.append("unsubscribed \(wasSubscribed) \(text(reply))")
        }
        func statusReport() -> StatusReport {
            StatusReport(version: "test", source: "auto", sensor: .none, sensors: [], mode: "attitude", inputRate: 0,
                         frameRate: 0, subscribers: 0, clients: 1, reduceMotion: false, calibrated: false, uptime: 1, frame: nil)
        }
        func recenter() { log.append("recenter") }
        func setReduceMotion(_ on: Bool) { log.append("reduce motion \(on)") }
        func startCalibration(seconds: Double?, for client: ClientConnection, id: JSONValue?) { log.append("calibrate \(seconds ?? 0)") }

        private func text(_ line: [UInt8]) -> String { String(decoding: line.dropLast(), as: UTF8.self) }
    }

    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
    static let user = PeerCredentials(pid: 2, uid: 1000, gid: 1000)

    /// Anyone may subscribe; only root may control; caps 60 Hz and 240 Hz (root).
    static func router(_ effects: RecordingEffects) -> CommandRouter {
        var config = DaemonConfig()
        config.access.subscribers = [.everyone]
        config.access.controllers = [.root]
        return CommandRouter(settings: CommandRouter.Settings(config), effects: effects)
    }

    static func send(_ line: String, as peer: PeerCredentials, to router: CommandRouter, client: ClientConnection? = nil) -> ClientConnection {
        let client = client ?? ClientConnection(id: 1, fd: FileDescriptor(rawValue: -1), peer: peer, lines: ClientConnectionTests.NoLines())
        router.handleLine(Array(line.utf8), from: client)
        return client
    }

    @Test func aSubscriptionIsCappedByWhoAsksAndAnswered() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        let user = Self.send(#"{"cmd":"subscribe","rate":500,"rotation":90}"#, as: Self.user, to: router)
        #expect(user.subscriber.subscription?.rate == 60)
        #expect(user.subscriber.subscription?.rotation == .clockwise90)
        let root = Self.send(#"{"cmd":"subscribe","rate":500}"#, as: Self.root, to: router)
        #expect(root.subscriber.subscription?.rate == 240)
        // No rate: the default; again on the same connection: a resubscription.
        _ = Self.send(#"{"cmd":"subscribe","id":7}"#, as: Self.user, to: router, client: user)
        #expect(user.subscriber.subscription?.rate == 30)
        #expect(effects.log == [
            #"subscribed new {"type":"subscribed","rate":60,"rotation":90}"#, "answered subscribe",
            #"subscribed new {"type":"subscribed","rate":240,"rotation":0}"#, "answered subscribe",
            #"subscribed again {"type":"subscribed","rate":30,"rotation":0,"id":7}"#, "answered subscribe",
        ])
    }

    /// Any finite positive rate the decoder lets through is clamped, never converted as is: a
    /// rate beyond Int's range (1e300) would trap the daemon in the conversion.
    @Test func extremeRatesAreClampedNotConverted() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        let cases: [(line: String, peer: PeerCredentials, rate: Int)] = [
            (#"{"cmd":"subscribe","rate":1e300}"#, Self.user, 60),
            (#"{"cmd":"subscribe","rate":1.7976931348623157e308}"#, Self.root, 240),
            (#"{"cmd":"subscribe","rate":9223372036854775808}"#, Self.user, 60),
            (#"{"cmd":"subscribe","rate":5e-324}"#, Self.user, 1),
            (#"{"cmd":"subscribe","rate":1e-300}"#, Self.root, 1),
            (#"{"cmd":"subscribe","rate":0.5}"#, Self.user, 1),
            (#"{"cmd":"subscribe","rate":59.5}"#, Self.user, 60),
        ]
        for (line, peer, rate) in cases {
            let client = Self.send(line, as: peer, to: router)
            #expect(client.subscriber.subscription?.rate == rate, "\(line)")
            #expect(effects.log.suffix(2).first == #"subscribed new {"type":"subscribed","rate":\#(rate),"rotation":0}"#, "\(line)")
        }
    }

    /// The decoder refuses what cannot be clamped sensibly: zero, negative, and numbers JSON
    /// cannot hold as a Double (1e400); each is a bad_request, and the router stays usable.
    @Test func unusableRatesAreRejected() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        let client = Self.send(#"{"cmd":"subscribe","rate":0}"#, as: Self.user, to: router)
        for line in [#"{"cmd":"subscribe","rate":-1e300}"#, #"{"cmd":"subscribe","rate":1e400}"#,
                     #"{"cmd":"subscribe","rate":-0.0}"#, #"{"cmd":"subscribe","rate":"NaN"}"#] {
            _ = Self.send(line, as: Self.user, to: router, client: client)
        }
        #expect(effects.log == Array(repeating: "reject bad_request", count: 5))
        #expect(client.subscriber.subscription == nil)
        _ = Self.send(#"{"cmd":"subscribe","rate":1e300}"#, as: Self.user, to: router, client: client)
        #expect(client.subscriber.subscription?.rate == 60)
    }

    /// `seconds` outside 1…120 (or beyond a Double) and ids of any size are answered, not trapped on.
    @Test func extremeSecondsAndIdsAreAnswered() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        for line in [#"{"cmd":"calibrate","seconds":1e300}"#, #"{"cmd":"calibrate","seconds":-1e300}"#,
                     #"{"cmd":"calibrate","seconds":1e400}"#, #"{"cmd":"calibrate","seconds":0.999}"#,
                     #"{"cmd":"subscribe","rotation":1e300}"#, #"{"cmd":"subscribe","rotation":90.5}"#] {
            _ = Self.send(line, as: Self.root, to: router)
        }
        #expect(effects.log == Array(repeating: "reject bad_request", count: 6))
        effects.log.removeAll()
        _ = Self.send(#"{"cmd":"calibrate","seconds":120}"#, as: Self.root, to: router)
        _ = Self.send(#"{"cmd":"status","id":1e300}"#, as: Self.user, to: router)
        _ = Self.send(#"{"cmd":"recenter","id":-9223372036854775809}"#, as: Self.root, to: router)
        _ = Self.send(#"{"cmd":"recenter","id":9007199254740993}"#, as: Self.root, to: router)
        #expect(effects.log.first == "calibrate 120.0")
        #expect(effects.log.contains { $0.hasPrefix(#"reply {"type":"status","#) && $0.hasSuffix(#""id":1e+300}"#) })
        #expect(effects.log.contains(#"reply {"type":"ok","id":-9.223372036854776e+18}"#))
        #expect(effects.log.contains(#"reply {"type":"ok","id":9007199254740992.0}"#))
    }

    @Test func controlCommandsNeedTheControllersList() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        for line in [#"{"cmd":"recenter"}"#, #"{"cmd":"set","reduce_motion":true}"#, #"{"cmd":"calibrate"}"#] {
            _ = Self.send(line, as: Self.user, to: router)
        }
        #expect(effects.log == ["deny recenter: recenter needs root", "deny set: set needs root", "deny calibrate: calibrate needs root"])
        effects.log.removeAll()
        _ = Self.send(#"{"cmd":"recenter","id":"r"}"#, as: Self.root, to: router)
        _ = Self.send(#"{"cmd":"set","reduce_motion":true}"#, as: Self.root, to: router)
        _ = Self.send(#"{"cmd":"calibrate","seconds":5}"#, as: Self.root, to: router)
        #expect(effects.log == [
            "recenter", #"reply {"type":"ok","id":"r"}"#, "answered recenter",
            // The reply before its consequences.
            #"reply {"type":"ok"}"#, "reduce motion true", "answered set",
            "calibrate 5.0", "answered calibrate",
        ])
    }

    @Test func badLinesAreRejectedAndNotAnswered() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        let client = Self.send("not json", as: Self.user, to: router)
        _ = Self.send(#"{"cmd":"fly"}"#, as: Self.user, to: router, client: client)
        #expect(client.strikes == 2)
        #expect(effects.log.allSatisfy { $0.hasPrefix("reject ") })
        #expect(effects.log.count == 2)
    }

    @Test func unsubscribeAndStatusAnswer() {
        let effects = RecordingEffects()
        let router = Self.router(effects)
        let client = Self.send(#"{"cmd":"unsubscribe"}"#, as: Self.user, to: router)
        _ = Self.send(#"{"cmd":"status","id":1}"#, as: Self.user, to: router, client: client)
        #expect(effects.log.first == #"unsubscribed false {"type":"unsubscribed"}"#)
        #expect(effects.log.contains { $0.hasPrefix(#"reply {"type":"status","#) && $0.hasSuffix(#""id":1}"#) })
        #expect(effects.log.last == "answered status")
    }
}
