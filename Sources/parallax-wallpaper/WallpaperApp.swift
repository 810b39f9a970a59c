// Ties the pieces together: one OutputView per output (or the window), the renderer shared by
// all, reduce motion from its three sources, and the loop.

import CWayland
import ParallaxClient
import ParallaxWallpaper
import Glibc

final class WallpaperApp {
    private let options: WallpaperCommandLine
    private let scene: Scene
    private let client: WaylandClient
    private let egl: EGLRenderContext
    private let renderer: SceneRenderer
    private let loop: EventLoop
    private var views: [ObjectIdentifier: OutputView] = [:]
    private var windowView: OutputView?
    private let desktop: DesktopMotionPreference?
    private var framesOfClosedViews = 0

    init(options: WallpaperCommandLine, scene: Scene, images: [LoadedImage]) throws(WaylandError) {
        self.options = options
        self.scene = scene
        client = try WaylandClient(displayName: nil)
        egl = try EGLRenderContext(wayland: client.display)
        renderer = try SceneRenderer(scene: scene, images: images)
        loop = EventLoop(display: client.display)
        // The desktop's preference matters only when the scene leaves it to the system.
        desktop = scene.reduceMotion == .system ? DesktopMotionPreference(log: Self.log) : nil
        desktop?.changed = { [weak self] in self?.reduceMotionChanged() }
        client.outputsChanged = { [weak self] in self?.syncOutputs() }
        loop.sources = { [weak self] in self?.loopSources() ?? [] }
        loop.timeout = { [weak self] in self?.desktop?.timeoutMilliseconds }
        if options.window {
            try makeWindow()
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

    private var allViews: [OutputView] { Array(views.values) + (windowView.map { [$0] } ?? []) }

    /// Runs until a signal or the compositor closes; returns the exit status.
    func run() -> Int32 {
        let ok = loop.run()
        if options.stats {
            let frames = allViews.reduce(framesOfClosedViews) { $0 + $1.surface.framesDrawn }
            Self.log("stats: frames=\(frames) wakeups=\(loop.wakeups)")
        }
        if !ok { Self.log("the compositor closed the connection") }
        return ok ? 0 : 1
    }

    private func makeView(role: WallpaperSurface.Role, rotation: Int) throws(WaylandError) -> OutputView {
        let surface = try WallpaperSurface(client: client, egl: egl, role: role)
        let view = OutputView(surface: surface, smoothing: scene.smoothing) { [weak self] in self?.reduceMotion ?? false }
        let stats = options.stats
        surface.draw = { [weak self, unowned view, unowned surface] width, height, scale, shownAt in
            guard let self else { return }
            let offset = view.offsetForFrame(at: shownAt)
            renderer.draw(width: width, height: height, scale: scale, offset: offset)
            if stats {
                Self.log("frame \(surface.framesDrawn + 1) \(width)x\(height) x=\(offset.x) y=\(offset.y)")
            }
        }
        surface.afterFrame = { [weak self, unowned view, unowned surface] in
            if stats, let self {
                Self.log("frame-time \(surface.framesDrawn) \(Double(surface.lastFrameDuration) / 1e6) ms wakeups=\(loop.wakeups)")
            }
            view.update()
        }
        if scene.reduceMotion != .on {
            view.subscribe(path: options.socket, rate: scene.rate, rotation: rotation, log: Self.log)
        }
        view.update()
        return view
    }

    private func makeWindow() throws(WaylandError) {
        let view = try makeView(role: .window, rotation: 0)
        view.surface.closed = { [weak self] in self?.loop.stop() }
        windowView = view
    }

    /// Makes a background surface for each output that should have one, drops those whose output
    /// went away, and resubscribes where an output's rotation changed.
    private func syncOutputs() {
        guard !options.window else { return }
        let wanted = client.outputs.filter { $0.isReady && (options.output == nil || $0.name == options.output) }
        let wantedIDs = Set(wanted.map(ObjectIdentifier.init))
        for (id, view) in views where !wantedIDs.contains(id) {
            framesOfClosedViews += view.surface.framesDrawn
            views[id] = nil
        }
        for output in wanted {
            let id = ObjectIdentifier(output)
            if let view = views[id] {
                view.surface.setScale(output.scale)
                if scene.reduceMotion != .on {
                    view.subscribe(path: options.socket, rate: scene.rate, rotation: output.rotationDegrees, log: Self.log)
                }
                view.update()
                continue
            }
            do {
                let view = try makeView(role: .background(output), rotation: output.rotationDegrees)
                view.surface.closed = { [weak self, unowned view] in
                    self?.framesOfClosedViews += view.surface.framesDrawn
                    self?.views[id] = nil
                }
                views[id] = view
            } catch {
                Self.log(error.description)
                loop.stop()
            }
        }
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
        if let desktop, desktop.fileDescriptor >= 0 {
            sources.append(LoopSource(descriptor: desktop.fileDescriptor, events: desktop.pollEvents) { _ in desktop.process() })
        }
        return sources
    }
}
