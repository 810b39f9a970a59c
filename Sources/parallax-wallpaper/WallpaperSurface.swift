// One place the wallpaper is shown: a wlr-layer-shell surface on one output (the BACKGROUND layer,
// or BOTTOM on phoc: WallpaperSurface.Layer) that takes no input, or an xdg-shell toplevel
// (--window). It owns the wl_surface, its role object, the wl_egl_window and EGLSurface, and the
// frame pacing: a frame is drawn only when asked for (`requestRedraw`) and at most one per frame
// callback, so a still picture costs nothing; while frames follow each other, as late before the
// compositor's next composition as its DrawSchedule allows.

import CLinux
import CWayland
import CWaylandProtocols
import Glibc
import ParallaxWallpaper

final class WallpaperSurface {
    /// Window size before the compositor picks one (surface units), for --window.
    static let defaultWindowWidth: Int32 = 960
    static let defaultWindowHeight: Int32 = 540

    enum Role {
        case background(WaylandOutput)
        case window
    }

    /// The layer-shell layer a background surface goes in. Both lie under every window.
    enum Layer {
        /// Where wallpapers go: under everything.
        case background
        /// One above: on phoc, phosh maps its own background in the background layer, and phoc
        /// stacks the one mapped last on top; in the bottom layer the wallpaper stays above it
        /// whichever started first, restarted or mapped on a new output, and still under phosh's
        /// bars, app grid and lock screen (top and overlay layers) and every window.
        case bottom

        var shellValue: UInt32 {
            switch self {
            case .background: return ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND.rawValue
            case .bottom: return ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM.rawValue
            }
        }
    }

    let role: Role
    let surface: OpaquePointer
    private var layerSurface: OpaquePointer?
    private var xdgSurface: OpaquePointer?
    private var toplevel: OpaquePointer?
    private let egl: EGLRenderContext
    private var eglWindow: OpaquePointer?
    private var eglSurface: EGLSurface?
    let pacer: FramePacer

    /// Size in surface units (what the compositor configured) and device pixels per unit: the
    /// output's integer scale, or the compositor's preferred fractional one (`fractional`).
    private(set) var width: Int32 = 0
    private(set) var height: Int32 = 0
    private(set) var scale = SurfaceScale.integer(1)
    /// The preferred fractional scale and the viewport it is drawn through; nil where the
    /// compositor offers no wp_fractional_scale_v1 or wp_viewporter.
    private var fractional: FractionalScale?
    private(set) var isConfigured = false
    /// The compositor closed the surface (output gone, window closed): the owner drops it.
    private(set) var isClosed = false

    /// Draws one frame into the current EGL surface: pixel width, height, device pixels per
    /// logical pixel, and the CLOCK_MONOTONIC time (ns) the frame is expected on screen.
    var draw: ((_ width: Int32, _ height: Int32, _ scale: Double, _ shownAt: Int64) -> Void)?
    /// Runs when the compositor closed the surface or the window.
    var closed: (() -> Void)?
    /// Runs after each frame was committed (the owner may ask for the next one).
    var afterFrame: (() -> Void)?
    /// Whether the compositor shows the surface, judged from its frame callbacks
    /// (WallpaperSurface+Visibility.swift); `visibilityChanged` hears each change.
    var visibility = SurfaceVisibility()
    var visibilityChanged: ((VisibilityChange) -> Void)?

    private var needsRedraw = false
    /// No frame at all while true (the shell's lock screen covers the output, though the
    /// compositor may still configure the surface or answer its callbacks); what was asked for
    /// meanwhile is drawn when it ends.
    var drawingWithheld = false {
        didSet { if !drawingWithheld { drawIfDue() } }
    }
    private var frameCallback: OpaquePointer?
    /// When the compositor composites and how long frames take: when to draw a due frame.
    private var schedule = DrawSchedule()
    /// A due frame waits until then (CLOCK_MONOTONIC ns) to be drawn; the loop wakes for it.
    private var drawAt: Int64?
    /// Set to 0, a due frame is drawn as soon as the frame callback allows instead of as late as
    /// still makes the next composition (to compare, BENCHMARKS.md "Motion to photon", or for a
    /// compositor that does not composite on a steady refresh).
    static let drawLateSwitch = "PARALLAX_WALLPAPER_DRAW_LATE"
    private static let drawsLate = WallpaperCommandLine.environment(drawLateSwitch) != "0"
    /// Frames drawn so far (for --stats and the benchmarks).
    private(set) var framesDrawn = 0
    /// Wall time of the last frame from the start of drawing to the end of eglSwapBuffers (ns).
    private(set) var lastFrameDuration: Int64 = 0

    init(client: WaylandClient, egl: EGLRenderContext, role: Role, layer: Layer = .background) throws(WaylandError) {
        guard let compositor = client.compositor, let surface = wl_compositor_create_surface(compositor) else {
            throw WaylandError(description: "cannot create a wl_surface")
        }
        self.role = role
        self.surface = surface
        self.egl = egl
        pacer = FramePacer(presentation: client.presentation, clock: client.presentationClock)
        let me = Unmanaged.passUnretained(self).toOpaque()
        switch role {
        case .background(let output):
            guard let shell = client.layerShell else {
                throw WaylandError(description: "the compositor has no wlr-layer-shell (zwlr_layer_shell_v1); use --window")
            }
            layerSurface = zwlr_layer_shell_v1_get_layer_surface(
                shell, surface, output.proxy, layer.shellValue, "parallax-wallpaper")
            let edges = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM.rawValue
                | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT.rawValue | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT.rawValue
            zwlr_layer_surface_v1_set_anchor(layerSurface, edges)
            zwlr_layer_surface_v1_set_size(layerSurface, 0, 0)
            // -1: cover the whole output, panels and bars included, as a wallpaper does.
            zwlr_layer_surface_v1_set_exclusive_zone(layerSurface, -1)
            zwlr_layer_surface_v1_add_listener(layerSurface, Self.layerListener, me)
            // No input region: pointer and touch go to what lies below (a shell's desktop, its
            // icons) or nowhere, never to the wallpaper, which has nothing to do with them.
            guard let region = wl_compositor_create_region(compositor) else {
                throw WaylandError(description: "cannot create a wl_region")
            }
            wl_surface_set_input_region(surface, region)
            wl_region_destroy(region)
            scale = .integer(output.scale)
            schedule.outputRefresh(millihertz: output.refreshMillihertz)
        case .window:
            guard let wmBase = client.wmBase else {
                throw WaylandError(description: "the compositor has no xdg-shell (xdg_wm_base)")
            }
            xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
            xdg_surface_add_listener(xdgSurface, Self.xdgSurfaceListener, me)
            toplevel = xdg_surface_get_toplevel(xdgSurface)
            xdg_toplevel_add_listener(toplevel, Self.toplevelListener, me)
            xdg_toplevel_set_title(toplevel, "parallax-wallpaper")
            xdg_toplevel_set_app_id(toplevel, "parallax-wallpaper")
            width = Self.defaultWindowWidth
            height = Self.defaultWindowHeight
        }
        if let fractional = FractionalScale(client: client, surface: surface) {
            // Until the compositor says its preferred scale: the integer one, through the viewport.
            scale = .fractional(UInt32(scale.bufferScale) * SurfaceScale.fractionalDenominator)
            fractional.preferredScaleChanged = { [unowned self] preferred in apply(preferred) }
            self.fractional = fractional
        }
        wl_surface_set_buffer_scale(surface, scale.bufferScale)
        // The first commit without a buffer asks the compositor for a configure.
        wl_surface_commit(surface)
    }

    deinit {
        if let frameCallback { wl_callback_destroy(frameCallback) }
        if let eglSurface { egl.destroy(eglSurface) }
        if let eglWindow { wl_egl_window_destroy(eglWindow) }
        fractional = nil
        if let layerSurface { zwlr_layer_surface_v1_destroy(layerSurface) }
        if let toplevel { xdg_toplevel_destroy(toplevel) }
        if let xdgSurface { xdg_surface_destroy(xdgSurface) }
        wl_surface_destroy(surface)
    }

    /// Asks for a frame: drawn now when no frame is on its way to the screen, else right after
    /// the compositor's next frame callback. Any number of requests before then make one frame.
    func requestRedraw() {
        needsRedraw = true
        drawIfDue()
    }

    /// The output's integer scale changed; takes effect with the next frame. Ignored under a
    /// fractional scale: the compositor says the preferred scale for the surface itself.
    func setScale(_ newScale: Int32) {
        guard fractional == nil, newScale >= 1 else { return }
        apply(.integer(newScale))
    }

    /// The output's current mode changed its refresh (mHz; 0 unknown): the draw schedule's floor.
    func setOutputRefresh(millihertz: Int32) {
        schedule.outputRefresh(millihertz: millihertz)
    }

    private func apply(_ newScale: SurfaceScale) {
        guard newScale != scale else { return }
        scale = newScale
        wl_surface_set_buffer_scale(surface, scale.bufferScale)
        resize()
    }

    /// The compositor's refresh period as its frame callbacks show it (ns; 60 Hz until measured).
    var refreshPeriod: Int64 { schedule.period }

    /// Milliseconds until a due frame is to be drawn (rounded up); nil when none waits.
    var drawTimeoutMilliseconds: Int32? {
        guard needsRedraw, !drawingWithheld, let drawAt else { return nil }
        return Int32(clamping: max(drawAt - plx_monotonic_ns() + 999_999, 0) / 1_000_000)
    }

    /// Draws the due frame if it is time (the loop calls this after every wake-up).
    func drawIfDue() {
        guard needsRedraw, !drawingWithheld, isConfigured, frameCallback == nil, !isClosed, let eglSurface else { return }
        let now = plx_monotonic_ns()
        if let drawAt, now < drawAt { return }
        if drawAt == nil, Self.drawsLate, let later = schedule.drawAt(now: now) {
            drawAt = later
            return
        }
        drawAt = nil
        guard egl.makeCurrent(eglSurface) else { return }
        needsRedraw = false
        frameCallback = wl_surface_frame(surface)
        wl_callback_add_listener(frameCallback, Self.frameListener, Unmanaged.passUnretained(self).toOpaque())
        visibility.callbackRequested(at: plx_monotonic_ns())
        pacer.frameWillCommit(surface: surface)
        let started = plx_monotonic_ns()
        let buffer = scale.bufferSize(width: width, height: height)
        draw?(buffer.width, buffer.height, scale.factor, pacer.expectedPresentationTime())
        if egl.swap(eglSurface) { framesDrawn += 1 }
        lastFrameDuration = plx_monotonic_ns() - started
        schedule.drew(duration: lastFrameDuration)
        afterFrame?()
    }

    fileprivate func frameDone(milliseconds: UInt32) {
        schedule.composited(at: plx_monotonic_ns())
        pacer.frameCallbackDone(milliseconds: milliseconds)
        if let frameCallback { wl_callback_destroy(frameCallback) }
        frameCallback = nil
        report(visibility.callbackDone())
        drawIfDue()
    }

    fileprivate func configure(width newWidth: Int32, height newHeight: Int32) {
        if newWidth > 0 { width = newWidth }
        if newHeight > 0 { height = newHeight }
        isConfigured = true
        report(visibility.configured(at: plx_monotonic_ns()))
        resize()
    }

    private func resize() {
        guard isConfigured, width > 0, height > 0 else { return }
        let buffer = scale.bufferSize(width: width, height: height)
        if scale.needsViewport { fractional?.show(width: width, height: height) }
        if let eglWindow {
            wl_egl_window_resize(eglWindow, buffer.width, buffer.height, 0, 0)
        } else {
            eglWindow = wl_egl_window_create(surface, buffer.width, buffer.height)
            if let eglWindow { eglSurface = try? egl.makeSurface(window: eglWindow) }
        }
        needsRedraw = true
        drawIfDue()
    }

    fileprivate func close() {
        isClosed = true
        closed?()
    }

    // MARK: listeners

    private static func of(_ data: UnsafeMutableRawPointer?) -> WallpaperSurface? {
        data.map { Unmanaged<WallpaperSurface>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let layerListener: UnsafeMutablePointer<zwlr_layer_surface_v1_listener> = {
        let listener = UnsafeMutablePointer<zwlr_layer_surface_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: zwlr_layer_surface_v1_listener(
            configure: { data, layer, serial, width, height in
                zwlr_layer_surface_v1_ack_configure(layer, serial)
                of(data)?.configure(width: Int32(clamping: width), height: Int32(clamping: height))
            },
            closed: { data, _ in of(data)?.close() }))
        return listener
    }()

    nonisolated(unsafe) private static let xdgSurfaceListener: UnsafeMutablePointer<xdg_surface_listener> = {
        let listener = UnsafeMutablePointer<xdg_surface_listener>.allocate(capacity: 1)
        listener.initialize(to: xdg_surface_listener(configure: { data, xdgSurface, serial in
            xdg_surface_ack_configure(xdgSurface, serial)
            guard let me = of(data) else { return }
            me.configure(width: me.pendingWidth, height: me.pendingHeight)
        }))
        return listener
    }()

    /// The toplevel's size from its last configure (0 = our choice), applied on xdg_surface.configure.
    private var pendingWidth: Int32 = 0
    private var pendingHeight: Int32 = 0

    nonisolated(unsafe) private static let toplevelListener: UnsafeMutablePointer<xdg_toplevel_listener> = {
        let listener = UnsafeMutablePointer<xdg_toplevel_listener>.allocate(capacity: 1)
        listener.initialize(to: xdg_toplevel_listener(
            configure: { data, _, width, height, _ in
                of(data)?.pendingWidth = width
                of(data)?.pendingHeight = height
            },
            close: { data, _ in of(data)?.close() },
            configure_bounds: { _, _, _, _ in },
            wm_capabilities: { _, _, _ in }))
        return listener
    }()

    nonisolated(unsafe) private static let frameListener: UnsafeMutablePointer<wl_callback_listener> = {
        let listener = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_callback_listener(done: { data, _, time in of(data)?.frameDone(milliseconds: time) }))
        return listener
    }()
}
