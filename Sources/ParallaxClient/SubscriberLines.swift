// How ParallaxSubscriber reads the daemon's lines in each phase of a connection: the hello
// (protocol version), the reply to subscribe (granted, refused), then offset and state frames.
// Anything that is not valid protocol is counted in `ignoredLines` and changes nothing.

import CLinux
import ParallaxProtocol

extension ParallaxSubscriber {
    func handle(line: [UInt8]) {
        guard let value = try? JSONReader.parse(line), let type = value["type"]?.stringValue else {
            ignoredLines += 1
            return
        }
        let now = plx_monotonic_ns()
        switch phase {
        case .awaitingHello:
            handleHello(value, type: type, now: now)
        case .awaitingSubscribed:
            handleSubscribeReply(value, type: type, now: now)
        case .subscribed:
            handleFrame(value, type: type)
        case .awaitingUnsubscribed, .paused:
            handlePausedLine(value, type: type, now: now)
        case .waiting:
            break
        }
    }

    private func handleHello(_ value: JSONValue, type: String, now: Int64) {
        switch ServerMessage.decode(value) {
        case .hello:
            guard let version = value["protocol"]?.intValue else {
                fail(.protocolViolation("its hello has no protocol version"), now: now)
                return
            }
            guard version == ProtocolConstants.version else {
                fail(.unsupportedProtocol(version: version), now: now)
                return
            }
            if isPaused {
                phase = .awaitingUnsubscribed
                sendUnsubscribe(now: now)
            } else {
                phase = .awaitingSubscribed
                sendSubscribe(now: now)
            }
        case .error(let error):
            fail(.refused(error), now: now)
        default:
            fail(.protocolViolation("the first line was \"\(type)\", not hello"), now: now)
        }
    }

    private func handleSubscribeReply(_ value: JSONValue, type: String, now: Int64) {
        switch ServerMessage.decode(value) {
        case .subscribed(let granted, _, let heading, _):
            phase = .subscribed
            grantedRate = granted
            handshakeDeadline = nil
            if !state.connected { subscribedAt = now }  // a resume keeps the connection's age
            problem = nil
            state.connected = true
            state.heading = self.heading && heading == true
            changed = true
            log?(.info, "subscribed to parallaxd at \(path) (\(granted) Hz, rotation \(rotation)°)")
        case .error(let error) where error.code == .permissionDenied:
            fail(.accessDenied(message: error.message), now: now)
        case .error(let error):
            fail(.refused(error), now: now)
        default:
            ignoredLines += 1  // nothing else is due before the reply (docs/protocol.md, ordering)
        }
    }

    private func handleFrame(_ value: JSONValue, type: String) {
        switch type {
        case "offset":
            guard case .offset(let seq, let t, let x, let y, let vx, let vy, let heading)? = ServerMessage.decode(value),
                Self.isOffset(x), Self.isOffset(y), Self.isVelocity(vx), Self.isVelocity(vy),
                heading.map({ Self.isYaw($0.yaw) && Self.isVelocity($0.vyaw) }) ?? true
            else {
                ignoredLines += 1
                return
            }
            // A yaw this subscriber did not ask for is not offered (another kit's line, a test).
            let yaw = self.heading ? heading : nil
            offset = ParallaxOffset(
                x: x, y: y, vx: vx, vy: vy, t: t, seq: seq, yaw: yaw.map { OffsetHeading.wrapped($0.yaw) }, vyaw: yaw?.vyaw)
            changed = true
        case "state":
            guard let sensor = value["sensor"]?.stringValue, let reduceMotion = value["reduce_motion"]?.boolValue,
                let calibrated = value["calibrated"]?.boolValue
            else {
                ignoredLines += 1
                return
            }
            // A state line without "heading" (a daemon that predates it) keeps what `subscribed` said.
            let heading = self.heading && (value["heading"]?.boolValue ?? state.heading)
            let next = SubscriberState(
                connected: true, sensor: Self.sensorStatus(sensor), reduceMotion: reduceMotion, calibrated: calibrated,
                heading: heading)
            if next != state {
                state = next
                changed = true
            }
        default:
            ignoredLines += 1
        }
    }

    private static func isOffset(_ v: Double) -> Bool { v.isFinite && v >= -1 && v <= 1 }

    /// vx, vy and vyaw on the wire: within ±9999 (docs/protocol.md "offset"), as every kit reads them.
    private static func isVelocity(_ v: Double) -> Bool { v.isFinite && abs(v) <= ProtocolConstants.maxOffsetVelocity }

    /// A yaw as written on the wire: (−π, π] rounded to 4 decimals, so up to ±3.1416.
    private static func isYaw(_ v: Double) -> Bool { v.isFinite && abs(v) <= 3.1416 }

    private static func sensorStatus(_ text: String) -> SensorStatus {
        switch SensorState(rawValue: text) {
        case .ok: return .ok
        case .lost: return .lost
        case .none?: return .none
        case nil: return .unknown
        }
    }
}
