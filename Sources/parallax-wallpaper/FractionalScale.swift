// Drawing at device pixels on an output with a fractional scale (1.25, 1.5, …): per surface a
// wp_fractional_scale_v1, through which the compositor says the scale it prefers (in 120ths), and
// a wp_viewport that shows the buffer, drawn at that scale with buffer scale 1, at the surface's
// size in logical pixels. Only where the compositor offers both wp_fractional_scale_manager_v1 and
// wp_viewporter (KWin ≥ 5.27, wlroots ≥ 0.17, Mutter ≥ 44); elsewhere the surface keeps the
// output's integer scale (SurfaceScale).

import CWayland
import CWaylandProtocols
import ParallaxWallpaper

final class FractionalScale {
    private let fractionalScale: OpaquePointer
    private let viewport: OpaquePointer
    /// Runs when the compositor says a (new) preferred scale for the surface.
    var preferredScaleChanged: ((SurfaceScale) -> Void)?
    /// The viewport destination last set (surface units), so an unchanged size costs no request.
    private var destination: (width: Int32, height: Int32) = (0, 0)

    /// nil when the compositor lacks either global (or the user turned it off: WaylandClient).
    init?(client: WaylandClient, surface: OpaquePointer) {
        guard let manager = client.fractionalScaleManager, let viewporter = client.viewporter,
              let fractionalScale = wp_fractional_scale_manager_v1_get_fractional_scale(manager, surface),
              let viewport = wp_viewporter_get_viewport(viewporter, surface)
        else { return nil }
        self.fractionalScale = fractionalScale
        self.viewport = viewport
        wp_fractional_scale_v1_add_listener(fractionalScale, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        wp_viewport_destroy(viewport)
        wp_fractional_scale_v1_destroy(fractionalScale)
    }

    /// Shows the whole buffer at width × height surface units (double-buffered: takes effect with
    /// the next commit, the frame drawn at the new buffer size).
    func show(width: Int32, height: Int32) {
        guard width > 0, height > 0, (width, height) != destination else { return }
        destination = (width, height)
        wp_viewport_set_destination(viewport, width, height)
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wp_fractional_scale_v1_listener> = {
        let listener = UnsafeMutablePointer<wp_fractional_scale_v1_listener>.allocate(capacity: 1)
        listener.initialize(to: wp_fractional_scale_v1_listener(preferred_scale: { data, _, numerator in
            guard let data, let scale = SurfaceScale(preferred: numerator) else { return }
            let me = Unmanaged<FractionalScale>.fromOpaque(data).takeUnretainedValue()
            me.preferredScaleChanged?(scale)
        }))
        return listener
    }()
}
