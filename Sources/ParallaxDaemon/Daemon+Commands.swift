import CLinux
import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol

/// What protocol v1 commands do (the decisions are CommandRouter.swift's).
extension Daemon: CommandEffects {
    func reply(_ line: [UInt8], to client: ClientConnection) { write(line, to: client) }

    func subscribed(_ client: ClientConnection, previous: Subscription?, reply: [UInt8]) {
        let rotation = client.subscription?.rotation
        hub.add(client)
        write(reply, to: client)
        write(stateLine(), to: client)
        supervisor.pump()   // batched samples first: the newcomer gets the current offset
        if let previous, previous.rotation != rotation {
            hub.republishLatest()
        } else {
            hub.sendLatest(to: client)
        }
        if previous == nil { updateDemand() }
    }

    func unsubscribed(_ client: ClientConnection, wasSubscribed: Bool, reply: [UInt8]) {
        hub.remove(client)
        write(reply, to: client)
        if wasSubscribed { updateDemand() }
    }

    func recenter() {
        engine.recenter()
        // The re-centred offset shows at the next sample: at full rate, not a rest drain later.
        supervisor.withdrawRest()
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

    /// Reduce motion: one (0, 0) frame, a state line, then silence with the sensors closed; every
    /// subscriber gets the frame before the state line (`Hub.publishFinal`).
    func setReduceMotion(_ on: Bool) {
        guard on != reduceMotion else { return }
        reduceMotion = on
        logger.notice("reduce motion \(on ? "on" : "off")")
        if on {
            supervisor.closeNow()
            hub.publishFinal(t: plx_monotonic_ns(), offset: .zero)
            broadcastState()
        } else {
            engine.reset()
            broadcastState()
            updateDemand()
        }
    }

    func statusReport() -> StatusReport {
        // Samples a resting capture kept from the loop count in the input rate.
        supervisor.pump()
        let now = plx_monotonic_ns()
        return StatusReport(
            version: ProtocolConstants.serverVersion,
            source: supervisor.source,
            sensor: supervisor.state,
            sensors: supervisor.sensors.map { SensorInfo(kind: $0.kind.rawValue, device: $0.device, rate: $0.rate, capture: $0.capture) },
            mode: config.motion.mode.rawValue,
            inputRate: supervisor.sampleTimes.rate(now: now),
            frameRate: frameTimes.rate(now: now),
            subscribers: hub.count,
            clients: server.clientCount,
            reduceMotion: reduceMotion,
            calibrated: calibration != nil,
            uptime: Double(now - startTime) / 1e9,
            frame: supervisor.frameReport(),
            resting: supervisor.isResting)
    }
}
