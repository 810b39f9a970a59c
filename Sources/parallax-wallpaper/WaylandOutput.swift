// One wl_output: its name (for --output), transform (→ the subscription's `rotation`), scale
// (buffer pixels per surface unit) and current mode (size and refresh). Values are taken on
// `done`, which closes each batch of changes.

import CWayland
import ParallaxWallpaper

final class WaylandOutput {
    let proxy: OpaquePointer
    /// The registry name, to recognise the output in global_remove.
    let globalName: UInt32
    let version: UInt32
    /// The connector name from wl_output v4 (e.g. "HEADLESS-1", "DSI-1"); nil before v4.
    private(set) var name: String?
    private(set) var transform = WL_OUTPUT_TRANSFORM_NORMAL
    private(set) var scale: Int32 = 1
    /// Current mode in output pixels (before the transform).
    private(set) var modeWidth: Int32 = 0
    private(set) var modeHeight: Int32 = 0
    /// Current mode's refresh in mHz (wl_output's unit); 0 where the compositor does not say.
    private(set) var refreshMillihertz: Int32 = 0
    /// True after the first `done`: the values above are the compositor's.
    private(set) var isReady = false
    /// Runs after each `done` (the first and every change).
    var ready: (() -> Void)?

    private var pending = Pending()
    private struct Pending {
        var name: String?
        var transform: wl_output_transform?
        var scale: Int32?
        var width: Int32?
        var height: Int32?
        var refresh: Int32?
    }

    init(proxy: OpaquePointer, globalName: UInt32, version: UInt32) {
        self.proxy = proxy
        self.globalName = globalName
        self.version = version
        wl_output_add_listener(proxy, Self.listener, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The subscription's `rotation`: the clockwise rotation of the picture in degrees
    /// (docs/frames.md "Display rotation": WL_OUTPUT_TRANSFORM_90 is 90). A flipped transform
    /// counts as its rotation: the mirror does not change which way the screen was turned.
    var rotationDegrees: Int {
        Self.rotation(of: transform)
    }

    static func rotation(of transform: wl_output_transform) -> Int {
        switch transform {
        case WL_OUTPUT_TRANSFORM_90, WL_OUTPUT_TRANSFORM_FLIPPED_90: return 90
        case WL_OUTPUT_TRANSFORM_180, WL_OUTPUT_TRANSFORM_FLIPPED_180: return 180
        case WL_OUTPUT_TRANSFORM_270, WL_OUTPUT_TRANSFORM_FLIPPED_270: return 270
        default: return 0
        }
    }

    /// The output's picture in buffer pixels (the mode, turned by the transform) and its scale; nil
    /// before the compositor said its mode.
    var geometry: OutputGeometry? {
        guard isReady, modeWidth > 0, modeHeight > 0 else { return nil }
        let turned = rotationDegrees % 180 != 0
        return OutputGeometry(width: Double(turned ? modeHeight : modeWidth), height: Double(turned ? modeWidth : modeHeight),
                              scale: Double(scale))
    }

    func release() {
        if version >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
    }

    fileprivate func done() {
        if let value = pending.name { name = value }
        if let value = pending.transform { transform = value }
        if let value = pending.scale { scale = max(value, 1) }
        if let value = pending.width { modeWidth = value }
        if let value = pending.height { modeHeight = value }
        if let value = pending.refresh { refreshMillihertz = value }
        pending = Pending()
        isReady = true
        ready?()
    }

    private static func output(_ data: UnsafeMutableRawPointer?) -> WaylandOutput? {
        data.map { Unmanaged<WaylandOutput>.fromOpaque($0).takeUnretainedValue() }
    }

    nonisolated(unsafe) private static let listener: UnsafeMutablePointer<wl_output_listener> = {
        let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
        listener.initialize(to: wl_output_listener(
            geometry: { data, _, _, _, _, _, _, _, _, transform in
                output(data)?.pending.transform = wl_output_transform(rawValue: UInt32(bitPattern: transform))
            },
            mode: { data, _, flags, width, height, refresh in
                guard flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
                output(data)?.pending.width = width
                output(data)?.pending.height = height
                output(data)?.pending.refresh = refresh
            },
            done: { data, _ in output(data)?.done() },
            scale: { data, _, factor in output(data)?.pending.scale = factor },
            name: { data, _, name in output(data)?.pending.name = name.map { String(cString: $0) } },
            description: { _, _, _ in }))
        return listener
    }()
}
