import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol

/// What commands do to the rest of the daemon, and how refusals count (the daemon:
/// Daemon+Commands.swift). Everything on the loop thread.
protocol CommandEffects: AnyObject {
    /// Writes a line to the client (replies and state lines are never dropped).
    func reply(_ line: [UInt8], to client: ClientConnection)
    /// A bad request: an error reply that counts against the client.
    func reject(_ error: ProtocolError, from client: ClientConnection)
    /// A request the peer's credentials do not allow (`what` names it for the log).
    func deny(_ error: ProtocolError, from client: ClientConnection, _ what: String)
    /// A request was answered, not refused: the connection is in use.
    func requestAnswered(_ request: ClientRequest, for client: ClientConnection)
    /// The client's subscription is set (it was `previous`) and acknowledged with `reply`: the
    /// hub takes it, it hears the state and the current offset, the sensors are wanted.
    func subscribed(_ client: ClientConnection, previous: Subscription?, reply: [UInt8])
    /// The client's subscription ended (`wasSubscribed`: it had one); acknowledged with `reply`.
    func unsubscribed(_ client: ClientConnection, wasSubscribed: Bool, reply: [UInt8])
    func statusReport() -> StatusReport
    /// Offset frames can carry the heading now: a gyroscope is among the sensors.
    var headingAvailable: Bool { get }
    func recenter()
    func setReduceMotion(_ on: Bool)
    /// Starts a calibration for the client (CalibrationRun.swift); it replies itself.
    func startCalibration(seconds: Double?, for client: ClientConnection, id: JSONValue?)
}

/// Protocol v1 commands (docs/protocol.md): a line is decoded, checked against who may do what,
/// and turned into replies and effects. The one place each command is decided.
final class CommandRouter {
    /// Subscribe rate when the client names none (Hz): iOS updates its motion effects at 30 Hz.
    static let defaultSubscribeRate = 30.0

    /// What the router decides by: the access lists and the rate caps (`[Access]`), replaced on reload.
    struct Settings: Equatable {
        var access: AccessPolicy
        /// Cap for unprivileged subscribers and for root (Hz).
        var maxRate: Int
        var privilegedMaxRate: Int

        init(_ config: DaemonConfig) {
            access = config.access
            maxRate = config.maxRate
            privilegedMaxRate = config.privilegedMaxRate
        }

        func maxRate(for peer: PeerCredentials) -> Int { peer.isRoot ? privilegedMaxRate : maxRate }
    }

    /// The rate a subscriber gets (Hz): `requested` rounded to a whole Hz, at least 1, at most
    /// `cap`. Clamped while still a Double: any finite rate may come off the wire (1e300), and
    /// converting one beyond Int's range would trap.
    static func effectiveRate(requested: Double, cap: Int) -> Int {
        let whole = requested.rounded()
        // NaN cannot come from the decoder (it refuses non-finite numbers); it would get the floor.
        guard whole >= 1 else { return min(cap, 1) }
        return whole < Double(cap) ? Int(whole) : cap
    }

    var settings: Settings
    private unowned let effects: any CommandEffects

    init(settings: Settings, effects: any CommandEffects) {
        self.settings = settings
        self.effects = effects
    }

    func handleLine(_ line: [UInt8], from client: ClientConnection) {
        switch ClientRequest.decode(line: line) {
        case .failure(let error):
            effects.reject(error, from: client)
        case .success(let request):
            let strikes = client.strikes
            handle(request, from: client)
            if !client.isClosed && client.strikes == strikes { effects.requestAnswered(request, for: client) }
        }
    }

    private func handle(_ request: ClientRequest, from client: ClientConnection) {
        let id = request.id
        // Control commands change what every user sees: `[Access] Controllers=` (root and admin groups).
        if request.command.requiresPrivilege && !settings.access.mayControl(client.peer) {
            effects.deny(ProtocolError(code: .permissionDenied,
                message: "\(request.command.name) needs \(AccessPolicy.describe(settings.access.controllers))", id: id), from: client, request.command.name)
            return
        }
        switch request.command {
        case .subscribe(let rate, let rotationDegrees, let heading):
            guard settings.access.maySubscribe(client.peer) else {
                effects.deny(ProtocolError(code: .permissionDenied,
                    message: "subscribing to motion data needs \(AccessPolicy.describe(settings.access.subscribers))", id: id), from: client, "subscribe")
                return
            }
            let cap = settings.maxRate(for: client.peer)
            let effective = Self.effectiveRate(requested: rate ?? Self.defaultSubscribeRate, cap: cap)
            let rotation = DisplayRotation(degrees: rotationDegrees ?? 0) ?? .none
            let previous = client.subscriber.subscription
            client.subscriber.subscription = Subscription(rate: effective, rotation: rotation, heading: heading)
            // The reply names the heading only for a client that named it: true when asked for and
            // a gyroscope provides it.
            let granted = heading.map { $0 && effects.headingAvailable }
            effects.subscribed(client, previous: previous,
                               reply: ServerMessage.subscribed(rate: effective, rotation: rotation.rawValue, heading: granted, id: id).encode())
        case .unsubscribe:
            let wasSubscribed = client.subscriber.subscription != nil
            client.subscriber.subscription = nil
            effects.unsubscribed(client, wasSubscribed: wasSubscribed, reply: ServerMessage.unsubscribed(id: id).encode())
        case .status:
            effects.reply(ServerMessage.status(effects.statusReport(), id: id).encode(), to: client)
        case .recenter:
            effects.recenter()
            effects.reply(ServerMessage.ok(id: id).encode(), to: client)
        case .setReduceMotion(let on):
            // The reply first, then its consequences (the (0, 0) frame and state lines).
            effects.reply(ServerMessage.ok(id: id).encode(), to: client)
            effects.setReduceMotion(on)
        case .calibrate(let seconds):
            effects.startCalibration(seconds: seconds, for: client, id: id)
        }
    }
}
