// Sense only while someone can see (docs/wallpaper.md "Visibility"): each output's surface judges
// from its frame callbacks whether the compositor shows it (SurfaceVisibility); a hidden one
// pauses its subscription, so with every surface hidden the daemon has no subscriber and closes
// its sensors after Linger=. The loop wakes at the earliest pending judgement, which exists only
// while a surface is drawing: a still picture still costs no wake-ups.

import CLinux
import ParallaxWallpaper

extension WallpaperApp {
    /// The loop's timeout (ms): the D-Bus connections', the next visibility judgement's, or a frame
    /// waiting for its moment to be drawn (WallpaperSurface.drawAt).
    func loopTimeout() -> Int32? {
        let now = plx_monotonic_ns()
        let judgement = allViews.compactMap(\.surface.visibilityDeadline).min().map { deadline in
            Int32(clamping: (max(deadline - now, 0) + 999_999) / 1_000_000)
        }
        return ([busTimeoutMilliseconds, judgement] + allViews.map(\.surface.drawTimeoutMilliseconds)).compactMap { $0 }.min()
    }

    func checkVisibility() {
        let now = plx_monotonic_ns()
        for view in allViews { view.surface.checkVisibility(at: now) }
    }

    func visibilityChanged(_ view: OutputView, _ change: VisibilityChange) {
        view.visibilityChanged(change)
        let place = view.surface.placeName
        let at = options.stats ? " at=\(plx_monotonic_ns())" : ""
        switch change {
        case .hidden:
            let waited = view.surface.visibility.hiddenDelay / 1_000_000
            Self.log("\(place) cannot be seen (no frame callback for \(waited) ms): subscription paused\(at)")
        case .visible:
            Self.log("\(place) can be seen again: subscription resumed\(at)")
        }
    }
}
