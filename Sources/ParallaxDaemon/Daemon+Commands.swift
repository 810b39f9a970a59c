import CLinux
import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol

/// What protocol v1 commands do (the decisions are CommandRouter.swift's).
extension Daemon: CommandEffects {
    func reply(_ line: [UInt8], to client: ClientConnection) { write(line, to: client) }

    func subscribed(_ client: ClientConnection, previous: Subscription?, reply: [UInt8]) {
        let subscriber = client.subscriber
        let rotation = subscriber.subscription?.rotation
        hub.add(subscriber)
        updateHeadingFrames()
        write(reply, to: client)
        write(stateLine(heading: subscriber.wantsHeading ? true : nil), to: client)
        supervisor.pump()   // batched samples first: the newcomer gets the current offset
        if let previous, previous.rotation != rotation {
            hub.republishLatest()
        } else {
            hub.sendLatest(to: subscriber)
        }
        if previous == nil { updateDemand() }
        // No current sample yet (the sensors rest, or are still opening): the first frame waits
        // for the next one, which the capture must deliver now, not at its rest pace.
        if hub.awaitsCurrentSample { supervisor.wantCurrentSample() }
    }

    func unsubscribed(_ client: ClientConnection, wasSubscribed: Bool, reply: [UInt8]) {
        hub.remove(client.subscriber)
        updateHeadingFrames()
        write(reply, to: client)
        if wasSubscribed { updateDemand() }
    }

    var headingAvailable: Bool { hub.headingAvailable }

    /// The engine keeps the heading and emits frames for yaw changes only while someone asked for
    /// it, so that without such a subscriber every frame is one protocol v1 would have sent.
    func updateHeadingFrames() {
        let wanted = hub.headingWanted
        guard wanted != engine.headingWanted else { return }
        engine.headingWanted = wanted
        // The frame a newcomer gets at once must carry the heading of now, not 0.
        if wanted, engine.isPublishing, let t = engine.lastSampleTime {
            hub.freshen(t: t, offset: engine.current, velocity: engine.velocity, heading: engine.heading)
        }
    }

    func recenter() {
        engine.recenter()
        // The re-centred offset shows at the next sample: at full rate, not a rest drain later.
        supervisor.withdrawRest()
    }

    /// The state line; with `heading: true` (for a subscriber that asked for the heading) it says
    /// whether its frames carry yaw now; nil: protocol v1's line.
    func stateLine(heading: Bool? = nil) -> [UInt8] {
        ServerMessage.state(sensor: supervisor.state, reduceMotion: reduceMotion, calibrated: calibration != nil,
                            heading: heading.map { $0 && hub.headingAvailable }).encode()
    }

    func broadcastState() { hub.broadcast(stateLine(), headingLine: stateLine(heading: true)) }

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
            sensors: supervisor.sensors.map { SensorInfo(kind: $0.kind.rawValue, device: $0.device, rate: $0.rate, capture: $0.capture,
                                                                trigger: $0.trigger, choice: $0.choice,
                                                                limits: $0.limits.map(\.description), location: $0.location) },
            mode: config.motion.mode.rawValue,
            inputRate: supervisor.sampleTimes.rate(now: now),
            frameRate: frameTimes.rate(now: now),
            subscribers: hub.count,
            clients: server.clientCount,
            reduceMotion: reduceMotion,
            calibrated: calibration != nil,
            uptime: Double(now - startTime) / 1e9,
            frame: frameMonitor.report(),
            resting: supervisor.isResting,
            open: supervisor.capture != nil)
    }
}
