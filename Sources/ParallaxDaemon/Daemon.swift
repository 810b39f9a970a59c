import CLinux
import Glibc
import Logging
import ParallaxConfig
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// The running daemon, the composition root of its parts (docs/architecture.md "Inside the
/// daemon"): the server (socket and connections), the command router, the hub and the sensor
/// supervisor, each given this daemon as the other end of its seam at construction; the daemon
/// itself holds the motion state between them (engine, reduce motion, calibration) and the
/// process's lifecycle (readiness, reload, shutdown). Everything runs on the event-loop thread.
public final class Daemon {
    let logger = Logger(label: "parallaxd")
    let loop: EventLoop
    var config: DaemonConfig
    /// The command line's values, applied over every config read (at start and on reload).
    let overrides: ConfigOverrides
    let configPath: String
    let configRequired: Bool

    // The parts. `lazy` only because `self` may be handed to them once every stored property
    // is set; `init` builds them at its end, in dependency order, and they are never replaced.
    /// The socket and every connection; what they bring comes here (`ServerEvents`, Daemon+Clients.swift).
    private(set) lazy var server = ClientServer(loop: loop, listener: listener, reserve: reserve,
                                                settings: ClientServer.Settings(config), events: self)
    /// Protocol v1 commands; their effects come here (`CommandEffects`, Daemon+Commands.swift).
    private(set) lazy var router = CommandRouter(settings: CommandRouter.Settings(config), effects: self)
    /// Frames to subscribers; it asks this daemon for fresher ones (`FrameRefresher`,
    /// Daemon+Motion.swift) and writes to the server's `ConnectionLines`.
    private(set) lazy var hub = Hub(loop: loop, refresher: self)
    /// Sensors opened on demand; its events come here (`SensorEvents`, Daemon+Motion.swift).
    private(set) lazy var supervisor = Supervisor(
        loop: loop, wakeup: sensorWakeup, events: self, logger: Logger(label: "parallaxd.sensors"),
        source: config.source.description, localDevices: config.source.readsLocalDevices,
        readsOnLoop: config.source.readsOnLoop, factory: makeFactory(config), linger: config.linger, rest: RestSettings(config))
    let sensorWakeup: SensorWakeup
    /// The open sensors' fusion frame: the online check and its report (FrameMonitor.swift).
    let frameMonitor = FrameMonitor(logger: Logger(label: "parallaxd.sensors"))
    /// The bound socket and the spare descriptor taken before it, for `server`.
    private let listener: Listener
    private let reserve: DescriptorReserve

    // Motion state between the parts (Daemon+Motion.swift, Daemon+Commands.swift, CalibrationRun.swift).
    var engine: MotionEngine
    var reduceMotion: Bool
    var calibration: Calibration?
    /// The calibration in progress, if any (CalibrationRun.swift).
    var calibrationRun: CalibrationRun?
    /// A measured calibration is being written to disk, off the loop (CalibrationRun.swift).
    var savingCalibration = false
    var frameTimes = RateMeter()

    // Lifecycle.
    let startTime = plx_monotonic_ns()
    var exitCode: Int32 = 0
    /// READY=1 has been sent; the timer that sends it if the sensors take too long to answer.
    var announcedReady = false
    var readinessFallback: EventLoop.TimerID?
    /// Connections greeted and not yet heard from, with when their hold on the sensors ends (ns).
    var newcomers: [Int: Int64] = [:]

    /// Longest wait for the first sensor outcome before READY=1 is sent anyway (ns).
    static let readinessWait: Int64 = 3_000_000_000

    /// How long a connection just accepted keeps open sensors open before its first command
    /// (ns): a client greeted usually subscribes within milliseconds, but on a loaded small
    /// machine (the lab's emulated CPU beside two burners) it took more than the 2 s linger.
    static let newcomerGrace: Int64 = 5_000_000_000

    /// Sets everything up and binds (or adopts) the socket; does not serve yet. `config` has
    /// `overrides` applied already.
    public init(config: DaemonConfig, overrides: ConfigOverrides = ConfigOverrides(), configPath: String,
                configRequired: Bool) throws {
        self.config = config
        self.overrides = overrides
        self.configPath = configPath
        self.configRequired = configRequired
        loop = try EventLoop()
        engine = MotionEngine(settings: config.motion)
        reduceMotion = config.reduceMotion
        var reserve = DescriptorReserve()
        reserve.acquire()
        self.reserve = reserve
        switch Listener.open(path: config.socketPath, mode: config.socketMode) {
        case .success(let l): listener = l
        case .failure(let e): throw e
        }
        sensorWakeup = try SensorWakeup()
        // Before serving, so the first checks know the groups (the only NSS wait the loop has).
        GroupDirectory.shared.resolveNow(config.access.groupNames)
        // The parts that report to this daemon, built now that it exists, in dependency order.
        _ = server
        _ = router
        _ = hub
        _ = supervisor
        loadCalibration()
    }

    func makeFactory(_ config: DaemonConfig) -> @Sendable () throws(SensorError) -> any SensorDriver {
        config.source.driverFactory(iio: config.iioSettings, replaySpeed: config.replaySpeed,
                                    replayLoop: config.replayLoop, logger: Logger(label: "parallaxd.sensors"))
    }

    /// Serves until SIGTERM or SIGINT; returns the process exit code.
    public func run() throws -> Int32 {
        let raw = plx_signalfd_standard()
        guard raw >= 0 else { throw ListenerError("cannot set up signal handling") }
        let signals = FileDescriptor(rawValue: raw)
        _ = try loop.watch(signals, events: PLX_EPOLLIN) { [unowned self] _ in
            while case let signo = plx_signalfd_read(signals.rawValue), signo > 0 {
                self.handleSignal(signo)
            }
        }
        _ = try loop.watch(sensorWakeup.fd, events: PLX_EPOLLIN) { [unowned self] _ in self.supervisor.samplesReady() }
        startWatchdog()
        logger.notice("parallaxd \(ProtocolConstants.serverVersion) serving on \(server.listener.description), source \(config.source)")
        // Clients are accepted (and READY=1 sent) once the first look at the sensors has an
        // outcome: their first frame, or none to be had. Until then connections wait in the
        // listening socket's queue (socket activation: the client that started the service),
        // so the first state line a client gets is a fact, not a guess, and its first offset is
        // at hand when it subscribes. A slow source (a remote iiod) does not hold serving back
        // for more than `readinessWait`.
        if reduceMotion {
            announceReady()
        } else {
            // Learn what sensors there are now (`sensorsFirstOutcome`); `announceReady` then
            // lets them close after the linger unless someone subscribes.
            supervisor.setDemand(true)
            if !announcedReady {
                readinessFallback = loop.schedule(at: plx_monotonic_ns() + Self.readinessWait) { [unowned self] in self.announceReady() }
            }
        }
        if exitCode == 0 { loop.run() }
        shutdown()
        return exitCode
    }

    /// Serves clients and sends READY=1, once; the look at start-up is over (its sensors linger).
    func announceReady() {
        guard !announcedReady else { return }
        announcedReady = true
        // An idle daemon wakes for nothing: the fallback timer goes once readiness is sent.
        if let readinessFallback { loop.cancel(readinessFallback) }
        do {
            try server.start()
        } catch {
            logger.critical("cannot serve on \(server.listener.description): \(error)")
            exitCode = 1
            loop.stop()
            return
        }
        updateDemand()
        Systemd.notify("READY=1\nSTATUS=\(servingStatus)\nMAINPID=\(getpid())")
        // What only starting needed goes from the resident set (StartupCodePages), a moment
        // after the start and off the loop: reading /proc/self/smaps walks every mapping's page
        // tables, 35 ms on this machine's debug build and 0.3–1.6 s on the lab's emulated CPU
        // under load, and on the loop the client that started the service waited that long for
        // its hello while unread scans piled up.
        loop.schedule(at: plx_monotonic_ns() + Self.startupPagesDelay) { [logger] in
            let released = BackgroundTask.detached {
                _ = plx_set_thread_name(StartupCodePages.threadName)
                switch StartupCodePages.release() {
                case .success(let kib): logger.debug("let go of \(kib) KiB of start-up code pages")
                case .failure(let error): logger.debug("start-up code pages kept (/proc/self/smaps: \(error))")
                }
            }
            if !released { logger.debug("start-up code pages kept (no thread to let go of them on)") }
        }
    }

    /// How long after READY=1 the start-up code pages go (ns): after the client that started
    /// the service has been served its first frame, before a benchmark's first memory reading.
    static let startupPagesDelay: Int64 = 1_000_000_000

    private func handleSignal(_ signo: Int32) {
        switch signo {
        case SIGTERM, SIGINT:
            logger.notice("received \(signo == SIGTERM ? "SIGTERM" : "SIGINT"), shutting down")
            loop.stop()
        case SIGHUP:
            reload()
        default:
            break
        }
    }

    private func shutdown() {
        Systemd.notify("STOPPING=1\nSTATUS=shutting down")
        server.close()
        supervisor.closeNow(wait: true)
        logger.info("stopped")
    }

    private func startWatchdog() {
        guard let interval = Systemd.watchdogInterval() else { return }
        // Ping at half the interval from the loop itself: a stuck loop stops pinging and
        // systemd restarts us.
        func ping() {
            Systemd.notify("WATCHDOG=1")
            loop.schedule(at: plx_monotonic_ns() + interval / 2) { ping() }
        }
        ping()
    }

    /// SIGHUP: re-read the config; a bad one is refused and the running one kept.
    func reload() {
        // RELOADING=1 with the time it began (systemd ≥ 253 wants MONOTONIC_USEC=), READY=1 when
        // done: `systemctl reload` waits for it. STATUS= says how it went.
        Systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(plx_monotonic_ns() / 1000)\nSTATUS=reloading configuration")
        let load = ConfigLoader.load(path: configPath, required: configRequired)
        for w in load.warnings { logger.warning("\(w)") }
        guard load.errors.isEmpty else {
            for e in load.errors { logger.error("\(e)") }
            logger.error("reload refused: the configuration has errors; keeping the running one")
            Systemd.notify("READY=1\nSTATUS=\(servingStatus); reload refused: \(load.errors[0])")
            return
        }
        defer { notifyServing(ready: true) }
        let new = overrides.applied(to: load.config)
        if new.socketPath != config.socketPath {
            logger.warning("Socket= changed: takes effect at the next restart")
        }
        if new.socketMode != config.socketMode { server.listener.setMode(new.socketMode) }
        DaemonLogLevel.level = new.logLevel
        engine.settings = new.motion
        let opening = SensorOpening(new)
        if opening != SensorOpening(config), supervisor.capture != nil {
            logger.notice("[Sensor] settings changed: reopening the sensors")
        }
        supervisor.reconfigure(source: new.source.description, localDevices: new.source.readsLocalDevices,
                               readsOnLoop: new.source.readsOnLoop, factory: makeFactory(new),
                               reopen: opening != SensorOpening(config), linger: new.linger, rest: RestSettings(new))
        let reduceChanged = new.reduceMotion != config.reduceMotion
        config = new
        router.settings = CommandRouter.Settings(new)
        server.settings = ClientServer.Settings(new)
        // Off the loop; the last answers stand until the new ones are in.
        GroupDirectory.shared.refresh(new.access.groupNames)
        loadCalibration()
        if reduceChanged { setReduceMotion(new.reduceMotion) }
        logger.notice("configuration reloaded")
    }

    /// Reads the calibration file (at start, on reload, after calibrating); subscribers hear of
    /// a change of `calibrated` in a state line.
    func loadCalibration() {
        let was = calibration != nil
        switch Calibration.load(path: config.calibrationFile) {
        case .success(let c):
            if calibration != c, let c { logger.info("calibration from \(config.calibrationFile): gyro bias \(CalibrationFile.triple(c.gyroBias, decimals: 6)) rad/s") }
            calibration = c
        case .failure(let issue):
            logger.error("ignoring the calibration file: \(issue)")
            calibration = nil
        }
        if was != (calibration != nil) { broadcastState() }
    }
}
