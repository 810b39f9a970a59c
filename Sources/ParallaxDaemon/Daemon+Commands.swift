import CLinux
import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol

/// Protocol v1 commands (docs/protocol.md): what each does and who may do it.
extension Daemon {
    /// Subscribe rate when the client names none (Hz): iOS updates its motion effects at 30 Hz.
    static let defaultSubscribeRate = 30.0

    func handleLine(_ line: [UInt8], from client: ClientConnection) {
        switch ClientRequest.decode(line: line) {
        case .failure(let error):
            reject(error, from: client)
        case .success(let request):
            let strikes = client.strikes
            handle(request, from: client)
            if !client.isClosed && client.strikes == strikes { requestAnswered(request, for: client) }
        }
    }

    private func handle(_ request: ClientRequest, from client: ClientConnection) {
        let id = request.id
        // Control commands change what every user sees: `[Access] Controllers=` (root and admin groups).
        if request.command.requiresPrivilege && !config.access.mayControl(client.peer) {
            deny(ProtocolError(code: .permissionDenied,
                message: "\(request.command.name) needs \(AccessPolicy.describe(config.access.controllers))", id: id), from: client, request.command.name)
            return
        }
        switch request.command {
        case .subscribe(let rate, let rotationDegrees):
            guard config.access.maySubscribe(client.peer) else {
                deny(ProtocolError(code: .permissionDenied,
                    message: "subscribing to motion data needs \(AccessPolicy.describe(config.access.subscribers))", id: id), from: client, "subscribe")
                return
            }
            let cap = maxRate(for: client)
            let effective = min(cap, max(1, Int((rate ?? Self.defaultSubscribeRate).rounded())))
            let rotation = DisplayRotation(degrees: rotationDegrees ?? 0) ?? .none
            let previous = client.subscription
            let wasSubscribed = previous != nil
            client.subscription = Subscription(rate: effective, rotation: rotation)
            hub.add(client)
            write(ServerMessage.subscribed(rate: effective, rotation: rotation.rawValue, id: id).encode(), to: client)
            write(stateLine(), to: client)
            supervisor.pump()   // batched samples first: the newcomer gets the current offset
            if let previous, previous.rotation != rotation {
                hub.republishLatest()
            } else {
                hub.sendLatest(to: client)
            }
            if !wasSubscribed { updateDemand() }
        case .unsubscribe:
            let wasSubscribed = client.subscription != nil
            client.subscription = nil
            hub.remove(client)
            write(ServerMessage.unsubscribed(id: id).encode(), to: client)
            if wasSubscribed { updateDemand() }
        case .status:
            write(ServerMessage.status(statusReport(), id: id).encode(), to: client)
        case .recenter:
            engine.recenter()
            write(ServerMessage.ok(id: id).encode(), to: client)
        case .setReduceMotion(let on):
            // The reply first, then its consequences (the (0, 0) frame and state lines).
            write(ServerMessage.ok(id: id).encode(), to: client)
            setReduceMotion(on)
        case .calibrate(let seconds):
            startCalibration(seconds: seconds, for: client, id: id)  // CalibrationRun.swift
        }
    }

    func stateLine() -> [UInt8] {
        ServerMessage.state(sensor: supervisor.state, reduceMotion: reduceMotion, calibrated: calibration != nil).encode()
    }

    func broadcastState() { hub.broadcast(stateLine()) }

    /// Sensors are wanted while someone subscribes and motion is not reduced, and while a
    /// calibration runs.
    func updateDemand() {
        supervisor.setDemand((hub.count > 0 && !reduceMotion) || calibrationRun != nil)
    }

    /// Reduce motion: one (0, 0) frame, a state line, then silence with the sensors closed.
    func setReduceMotion(_ on: Bool) {
        guard on != reduceMotion else { return }
        reduceMotion = on
        logger.notice("reduce motion \(on ? "on" : "off")")
        if on {
            supervisor.closeNow()
            hub.publish(t: plx_monotonic_ns(), offset: .zero)
            broadcastState()
        } else {
            engine.reset()
            broadcastState()
            updateDemand()
        }
    }

    func statusReport() -> StatusReport {
        let now = plx_monotonic_ns()
        return StatusReport(
            version: ProtocolConstants.serverVersion,
            source: supervisor.source,
            sensor: supervisor.state,
            sensors: supervisor.sensors.map { SensorInfo(kind: $0.kind.rawValue, device: $0.device, rate: $0.rate) },
            mode: config.motion.mode.rawValue,
            inputRate: supervisor.sampleTimes.rate(now: now),
            frameRate: frameTimes.rate(now: now),
            subscribers: hub.count,
            clients: clients.count,
            reduceMotion: reduceMotion,
            calibrated: calibration != nil,
            uptime: Double(now - startTime) / 1e9,
            frame: supervisor.frameReport())
    }
}
