// Ties the pieces together: one OutputView per output (or the window), the renderer shared by
// all, reduce motion from its three sources, the loop, and SIGHUP: the scene is read again and,
// when it is usable, replaces the one shown from the next frame on (its images are decoded and
// uploaded before the swap, so no frame is ever blank or partial); a scene with errors is refused
// with file:line messages and the old one stays.

import CWayland
import ParallaxClient
import ParallaxWallpaper
import Glibc

/// Why the wallpaper could not start.
enum StartFailure: Error {
    case compositor(WaylandError)
    /// The scene's images could not be read (file:line messages).
    case scene([SceneIssue])
    /// The desktop's shell draws the background itself (KDE Plasma): not an error, nothing to do.
    case shellDrawsDesktop
}

final class WallpaperApp {
    let options: WallpaperCommandLine
    private var scene: Scene
    private let client: WaylandClient
    private let egl: EGLRenderContext
    private var renderer: SceneRenderer
    private var programs: ScenePrograms?
    private let textureLimit: Int
    /// The outputs the scene's images were decoded for (an output larger than all of them makes
    /// the images decode again, sharper).
    private var decodedFor: [OutputGeometry]
    private let loop: EventLoop
    private var views: [ObjectIdentifier: OutputView] = [:]
    private var windowView: OutputView?
    private(set) var desktop: DesktopMotionPreference?
    /// The session bus (nil without one) and what the desktop's shell says there.
    private let session: MessageBus?
    /// The system bus (nil without one) and logind's word on the lock there.
    private let system: MessageBus?
    var busTimeoutMilliseconds: Int32? { [session, system].compactMap { $0?.timeoutMilliseconds }.min() }
    private(set) var shell: DesktopShellWatch?
    private(set) var logind: LogindSessionWatch?
    /// The lock as last applied to the views (WallpaperApp+Shell's rule).
    var screenLocked = false
    private var framesOfClosedViews = 0
    /// Motion to photon of the views that are gone (--stats).
    private var presentationOfClosedViews: [PresentationProbe.Source: PresentationSummary] = [:]

    init(options: WallpaperCommandLine, scene: Scene) throws(StartFailure) {
        self.options = options
        self.scene = scene
        do {
            client = try WaylandClient(displayName: nil)
            egl = try EGLRenderContext(wayland: client.display)
        } catch {
            throw .compositor(error)
        }
        session = MessageBus(.session, log: Self.log)
        shell = session.map { DesktopShellWatch(session: $0) }
        system = MessageBus(.system, log: Self.log)
        logind = system.map { LogindSessionWatch(system: $0, log: Self.log) }
        // Asked before any surface exists: under Plasma not even one frame covers its desktop.
        if !options.window, shell?.plasmaShellRunning == true { throw .shellDrawsDesktop }
        textureLimit = ScenePrograms.maximumTextureSize()
        decodedFor = client.outputs.compactMap(\.geometry)
        let loaded = ImageSet.load(scene: scene, file: options.scenePath, outputs: decodedFor, textureLimit: textureLimit)
        guard loaded.errors.isEmpty else { throw .scene(loaded.errors) }
        renderer = SceneRenderer(scene: scene, images: loaded.images)
        loop = EventLoop(display: client.display)
        loop.hangUp = { [weak self] in self?.reload() }
        makeDesktopPreference()
        followShell()
        if client.isPhoc && !options.window {
            Self.log("phoc: drawing in the layer-shell bottom layer, above phosh's own background and under its bars")
        }
        client.outputsChanged = { [weak self] in self?.syncOutputs() }
        loop.sources = { [weak self] in self?.loopSources() ?? [] }
        loop.timeout = { [weak self] in self?.loopTimeout() }
        // Visibility judgements, then a frame waiting for its moment (WallpaperSurface.drawAt) is
        // drawn once it has come.
        loop.afterWakeup = { [weak self] in
            self?.checkVisibility()
            self?.allViews.forEach { $0.surface.drawIfDue() }
        }
        if options.window {
            do {
                try makeWindow()
            } catch {
                throw .compositor(error)
            }
        }
        syncOutputs()
        if !options.window && views.isEmpty {
            if let name = options.output {
                Self.log("no output named \(name) yet (outputs: \(client.outputs.compactMap(\.name).joined(separator: ", "))); waiting for it")
            } else {
                Self.log("no outputs yet; waiting for one")
            }
        }
    }

    static func log(_ message: String) {
        var line = "parallax-wallpaper: " + message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    var reduceMotion: Bool {
        switch scene.reduceMotion {
        case .on: return true
        case .off: return false
        case .system:
            let daemon = allViews.contains { $0.subscriber?.state.reduceMotion == true }
            return daemon || desktop?.reduceMotion == true
        }
    }

    var allViews: [OutputView] { Array(views.values) + (windowView.map { [$0] } ?? []) }

    /// Ends the loop; run() then returns 0 (a shell that draws the desktop itself appeared).
    func stop() { loop.stop() }

    /// Runs until a signal or the compositor closes; returns the exit status.
    func run() -> Int32 {
        let ok = loop.run()
        if options.stats {
            let frames = allViews.reduce(framesOfClosedViews) { $0 + $1.surface.framesDrawn }
            Self.log("stats: frames=\(frames) wakeups=\(loop.wakeups)")
            for line in presentationLines(open: allViews, closed: presentationOfClosedViews) { Self.log("stats: " + line) }
        }
        if !ok { Self.log("the compositor closed the connection") }
        return ok ? 0 : 1
    }

    /// The desktop's preference matters only when the scene leaves reduce motion to the system.
    private func makeDesktopPreference() {
        guard desktop == nil, scene.reduceMotion == .system, let session else { return }
        desktop = DesktopMotionPreference(session: session, log: Self.log)
        desktop?.changed = { [weak self] in self?.reduceMotionChanged() }
    }

    private func makeView(role: WallpaperSurface.Role, rotation: Int) throws(WaylandError) -> OutputView {
        let surface = try WallpaperSurface(client: client, egl: egl, role: role, layer: client.isPhoc ? .bottom : .background)
        let view = OutputView(surface: surface, smoothing: scene.smoothing) { [weak self] in self?.reduceMotion ?? false }
        view.setCoveredByShell(screenLocked)
        let stats = options.stats
        if stats { attachProbe(to: view) }
        surface.draw = { [weak self, unowned view, unowned surface] width, height, scale, shownAt in
            guard let self, let programs = preparedPrograms() else { return }
            let offset = view.offsetForFrame(at: shownAt)
            let yaw = offset.yaw     // nil: no heading (no gyroscope, no daemon, reduce motion)
            renderer.draw(width: width, height: height, scale: scale, offset: offset, yaw: yaw, programs: programs)
            if stats {
                Self.log("frame \(surface.framesDrawn + 1) \(width)x\(height) x=\(offset.x) y=\(offset.y)" + (yaw.map { " yaw=\($0)" } ?? ""))
            }
        }
        surface.afterFrame = { [weak self, unowned view, unowned surface] in
            if stats, let self {
                Self.log("frame-time \(surface.framesDrawn) \(Double(surface.lastFrameDuration) / 1e6) ms wakeups=\(loop.wakeups)")
            }
            view.update()
        }
        surface.visibilityChanged = { [weak self, unowned view] change in
            self?.visibilityChanged(view, change)
        }
        subscribe(view, rotation: rotation)
        view.update()
        return view
    }

    /// Subscribes `view` as the scene wants (rate, heading), or not at all with ReduceMotion=on.
    private func subscribe(_ view: OutputView, rotation: Int) {
        if scene.reduceMotion == .on {
            view.unsubscribe()
        } else {
            view.subscribe(path: options.socket, rate: scene.rate, rotation: rotation, heading: scene.wantsHeading, log: Self.log)
        }
    }

    /// The GL programs, compiled on the first frame (a surface is current then).
    private func preparedPrograms() -> ScenePrograms? {
        if let programs { return programs }
        do {
            programs = try ScenePrograms()
        } catch {
            Self.log(error.description)
        }
        return programs
    }

    /// SIGHUP: reads the scene file again and shows it from the next frame, or keeps the old one.
    private func reload() {
        let path = options.scenePath
        let load = SceneParser.load(path: path)
        for warning in load.warnings { Self.log("warning: \(warning)") }
        guard load.errors.isEmpty else {
            refuse(load.errors, path: path)
            return
        }
        guard show(load.scene, path: path) else { return }
        Self.log("SIGHUP: showing \(path) again (\(load.scene.items.count) layers, meshes and panels)")
    }

    /// Decodes the scene's images for the outputs there are and swaps it in; false (and the old
    /// scene kept) when an image cannot be read.
    @discardableResult
    private func show(_ newScene: Scene, path: String) -> Bool {
        let outputs = client.outputs.compactMap(\.geometry)
        let loaded = ImageSet.load(scene: newScene, file: path, outputs: outputs, textureLimit: textureLimit)
        guard loaded.errors.isEmpty else {
            refuse(loaded.errors, path: path)
            return false
        }
        // The old renderer's textures go with it; the new ones are uploaded already, so the next
        // frame of every output is the whole new scene.
        renderer = SceneRenderer(scene: newScene, images: loaded.images)
        scene = newScene
        decodedFor = outputs
        makeDesktopPreference()
        for view in allViews {
            view.setSmoothing(scene.smoothing)
            subscribe(view, rotation: view.rotation)
            view.redraw()
        }
        return true
    }

    private func refuse(_ problems: [SceneIssue], path: String) {
        for problem in problems { Self.log(problem.description) }
        Self.log("SIGHUP: \(path) has errors; still showing the previous scene")
    }

    private func makeWindow() throws(WaylandError) {
        let view = try makeView(role: .window, rotation: 0)
        view.surface.closed = { [weak self] in self?.loop.stop() }
        windowView = view
    }

    /// Makes a background surface for each output that should have one, drops those whose output
    /// went away, and resubscribes where an output's rotation changed.
    private func syncOutputs() {
        decodeForNewOutputs()
        guard !options.window else { return }
        let wanted = client.outputs.filter { $0.isReady && (options.output == nil || $0.name == options.output) }
        let wantedIDs = Set(wanted.map(ObjectIdentifier.init))
        for (id, view) in views where !wantedIDs.contains(id) {
            framesOfClosedViews += view.surface.framesDrawn
            view.probe.map { presentationOfClosedViews[$0.source, default: PresentationSummary()].merge($0.summary) }
            views[id] = nil
        }
        for output in wanted {
            let id = ObjectIdentifier(output)
            if let view = views[id] {
                view.surface.setScale(output.scale)
                view.surface.setOutputRefresh(millihertz: output.refreshMillihertz)
                subscribe(view, rotation: output.rotationDegrees)
                view.update()
                continue
            }
            do {
                let view = try makeView(role: .background(output), rotation: output.rotationDegrees)
                view.surface.closed = { [weak self, unowned view] in
                    self?.framesOfClosedViews += view.surface.framesDrawn
                    view.probe.map { self?.presentationOfClosedViews[$0.source, default: PresentationSummary()].merge($0.summary) }
                    self?.views[id] = nil
                }
                views[id] = view
            } catch {
                Self.log(error.description)
                loop.stop()
            }
        }
    }

    /// An output larger than every one the images were decoded for: decode them again for it.
    private func decodeForNewOutputs() {
        let larger = client.outputs.compactMap(\.geometry).contains { output in
            !decodedFor.contains { $0.width >= output.width && $0.height >= output.height && $0.scale >= output.scale }
        }
        if larger { show(scene, path: options.scenePath) }
    }

    private func reduceMotionChanged() {
        for view in allViews { view.update() }
    }

    private func loopSources() -> [LoopSource] {
        var sources: [LoopSource] = []
        for view in allViews {
            guard let subscriber = view.subscriber else { continue }
            sources.append(LoopSource(descriptor: subscriber.fileDescriptor) { [weak self] _ in
                guard subscriber.dispatch() else { return }
                // Another output's daemon state can switch reduce motion for every view.
                if let self { for other in allViews { other.update() } }
            })
        }
        for bus in [session, system].compactMap({ $0 }) where bus.fileDescriptor >= 0 {
            sources.append(LoopSource(descriptor: bus.fileDescriptor, events: bus.pollEvents) { _ in bus.process() })
        }
        return sources
    }
}
