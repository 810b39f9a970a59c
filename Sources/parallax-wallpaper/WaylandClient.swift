// The connection to the compositor and the globals parallax-wallpaper binds: wl_compositor,
// zwlr_layer_shell_v1 (background surfaces), xdg_wm_base (--window), wp_presentation (when the
// frame is really shown, for prediction), wp_fractional_scale_manager_v1 and wp_viewporter (device
// pixels on a fractionally scaled output: FractionalScale.swift) and every wl_output. Outputs may come and go at any time;
// the owner hears about them through `outputsChanged`. A global only phoc offers says the
// compositor is Phosh's (`isPhoc`: the wallpaper then goes in the bottom layer).

import CWayland
import CWaylandProtocols

/// Why the compositor cannot be used.
struct WaylandError: Error, CustomStringConvertible {
    var description: String
}

final class WaylandClient {
    /// Versions asked for (the compositor may offer less; we take the smaller).
    private static let compositorVersion: UInt32 = 4
    private static let outputVersion: UInt32 = 4      // 4: the `name` event, for --output
    private static let layerShellVersion: UInt32 = 4
    private static let wmBaseVersion: UInt32 = 2
    private static let presentationVersion: UInt32 = 1
    private static let viewporterVersion: UInt32 = 1
    private static let fractionalScaleVersion: UInt32 = 1
    /// Set to 0, the wallpaper ignores fractional scales and draws at the output's integer scale,
    /// which the compositor then resamples (to compare, or to work around a compositor's bug).
    static let fractionalScaleSwitch = "PARALLAX_WALLPAPER_FRACTIONAL_SCALE"

    let display: OpaquePointer
    private var registry: OpaquePointer?
    private(set) var compositor: OpaquePointer?
    private(set) var layerShell: OpaquePointer?
    private(set) var wmBase: OpaquePointer?
    private(set) var presentation: OpaquePointer?
    private(set) var viewporter: OpaquePointer?
    private(set) var fractionalScaleManager: OpaquePointer?
    /// The clock wp_presentation times are in (a clockid_t); CLOCK_MONOTONIC is what we can use.
    fileprivate(set) var presentationClock: UInt32?
    private(set) var outputs: [WaylandOutput] = []
    /// phoc (Phosh's compositor) offers its own zphoc_layer_shell_effects_v1 to every client.
    static let phocGlobal = "zphoc_layer_shell_effects_v1"
    private(set) var isPhoc = false
    /// Called when an output appeared (once its first `done` came) or went away.
    var outputsChanged: (() -> Void)?

    init(displayName: String?) throws(WaylandError) {
        guard let display = wl_display_connect(displayName) else {
            let name = displayName ?? "$WAYLAND_DISPLAY"
            throw WaylandError(description: "cannot connect to the Wayland compositor (\(name)); is one running, and WAYLAND_DISPLAY / XDG_RUNTIME_DIR set?")
        }
        self.display = display
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, Self.registryListener, Unmanaged.passUnretained(self).toOpaque())
        // Two round trips: the globals, then the first events of what we bound (output modes,
        // names, the presentation clock).
        guard wl_display_roundtrip(display) >= 0, wl_display_roundtrip(display) >= 0 else {
            throw WaylandError(description: "the compositor closed the connection during setup")
        }
        guard compositor != nil else { throw WaylandError(description: "the compositor offers no wl_compositor") }
    }

    var fileDescriptor: Int32 { wl_display_get_fd(display) }

    // MARK: registry

    fileprivate func global(name: UInt32, interface: String, version: UInt32) {
        func bind(_ type: UnsafePointer<wl_interface>, _ wanted: UInt32) -> OpaquePointer? {
            OpaquePointer(wl_registry_bind(registry, name, type, min(version, wanted)))
        }
        switch interface {
        case "wl_compositor":
            compositor = bind(plx_wl_compositor_interface(), Self.compositorVersion)
        case "zwlr_layer_shell_v1":
            layerShell = bind(plx_zwlr_layer_shell_v1_interface(), Self.layerShellVersion)
        case "xdg_wm_base":
            wmBase = bind(plx_xdg_wm_base_interface(), Self.wmBaseVersion)
            xdg_wm_base_add_listener(wmBase, Self.wmBaseListener, nil)
        case "wp_presentation":
            presentation = bind(plx_wp_presentation_interface(), Self.presentationVersion)
            wp_presentation_add_listener(presentation, Self.presentationListener, Unmanaged.passUnretained(self).toOpaque())
        case "wp_viewporter":
            viewporter = bind(plx_wp_viewporter_interface(), Self.viewporterVersion)
        case "wp_fractional_scale_manager_v1":
            guard WallpaperCommandLine.environment(Self.fractionalScaleSwitch) != "0" else { return }
            fractionalScaleManager = bind(plx_wp_fractional_scale_manager_v1_interface(), Self.fractionalScaleVersion)
        case Self.phocGlobal:
            isPhoc = true
        case "wl_output":
            guard let proxy = bind(plx_wl_output_interface(), Self.outputVersion) else { return }
            let output = WaylandOutput(proxy: proxy, globalName: name, version: min(version, Self.outputVersion))
            output.ready = { [weak self] in self?.outputsChanged?() }
            outputs.append(output)
        default:
            break
        }
    }

    fileprivate func globalRemoved(name: UInt32) {
        guard let index = outputs.firstIndex(where: { $0.globalName == name }) else { return }
        let output = outputs.remove(at: index)
        output.release()
        outputsChanged?()
    }

    nonisolated(unsafe) private static let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
        let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let data, let interface else { return }
                Unmanaged<WaylandClient>.fromOpaque(data).takeUnretainedValue()
                    .global(name: name, interface: String(cString: interface), version: version)
            },
            global_remove: { data, _, name in
                guard let data else { return }
                Unmanaged<WaylandClient>.fromOpaque(data).takeUnretainedValue().globalRemoved(name: name)
            }))
        return listener
    }()

    /// xdg_wm_base pings to see whether the client is alive; answering is all it takes.
    nonisolated(unsafe) private static let wmBaseListener: UnsafeMutablePointer<xdg_wm_base_listener> = {
        let listener = UnsafeMutablePointer<xdg_wm_base_listener>.allocate(capacity: 1)
        listener.initialize(to: xdg_wm_base_listener(ping: { _, base, serial in xdg_wm_base_pong(base, serial) }))
        return listener
    }()

    nonisolated(unsafe) private static let presentationListener: UnsafeMutablePointer<wp_presentation_listener> = {
        let listener = UnsafeMutablePointer<wp_presentation_listener>.allocate(capacity: 1)
        listener.initialize(to: wp_presentation_listener(clock_id: { data, _, clock in
            guard let data else { return }
            Unmanaged<WaylandClient>.fromOpaque(data).takeUnretainedValue().presentationClock = clock
        }))
        return listener
    }()
}
