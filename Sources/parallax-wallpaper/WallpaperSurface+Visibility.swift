// The surface's side of the visibility rule (SurfaceVisibility in ParallaxWallpaper, docs/
// wallpaper.md "Visibility"): frame callbacks asked for and answered feed it in WallpaperSurface,
// the app's loop wakes at `visibilityDeadline` and calls `checkVisibility`. A hidden surface keeps
// its unanswered callback, so the compositor's answer when it shows the surface again is the
// signal to draw and subscribe again.

import CLinux
import ParallaxWallpaper

extension WallpaperSurface {
    /// When the surface counts as hidden unless its frame callback comes first (CLOCK_MONOTONIC
    /// ns); nil while nothing is pending. Only a surface that is drawing has one.
    var visibilityDeadline: Int64? {
        visibility.refreshPeriod = pacer.refreshPeriod
        return visibility.deadline
    }

    /// Judges the pending frame callback at `now`; reports `.hidden` when it is overdue.
    func checkVisibility(at now: Int64) {
        visibility.refreshPeriod = pacer.refreshPeriod
        report(visibility.check(at: now))
    }

    func report(_ change: VisibilityChange?) {
        if let change { visibilityChanged?(change) }
    }

    /// Where the surface is, for log lines: "output HEADLESS-1" or "the window".
    var placeName: String {
        switch role {
        case .background(let output): return "output " + (output.name ?? "(unnamed)")
        case .window: return "the window"
        }
    }
}
