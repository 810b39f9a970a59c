// Frames between daemon frames while the device moves (docs/wallpaper.md "Outputs, frames and
// prediction"). The daemon's frames follow its samples: subscribed at 60 Hz on a 100 Hz sensor
// they come 10 and 20 ms apart, so a 60 Hz display gets no new offset at some refreshes and the
// picture stalls for one (judder, and fewer frames than the compositor offers: BENCHMARKS.md
// "Against the compositor's own floor"). Each frame carries the velocity at its sample, so such a
// refresh can show the offset predicted for it, as iOS redraws its motion effects at display rate.
// Bounded twice: only where the subscribed rate asks for a frame at every refresh (`Rate=` at
// least 90 % of the refresh rate: a 144 Hz display under Rate=60 keeps one frame per daemon
// frame, where fills between them would space frames unevenly), and no prediction further than
// `horizonPeriods` frame periods past the newest sample (a device that slowed below the daemon's
// minimum change sends nothing more; the picture then rests where the last fill put it, at most
// velocity × horizon past that sample). A pure value: the view asks it whether the next refresh
// gets a frame.

import ParallaxClient

public struct MotionFill: Sendable {
    /// How far past the newest daemon frame's sample a fill frame may be predicted, in frame
    /// periods (the longer of the subscribed period and the refresh): 2, 33 ms at 60 Hz. A moving
    /// device's frames come at the subscribed rate; two periods without one say it slowed below
    /// `MinimumChange` or stopped.
    public static let horizonPeriods = 2.0
    /// The subscribed rate must reach this fraction of the refresh rate for refreshes to be
    /// filled: 0.9, so that Rate=60 fills a 60–62 Hz compositor (headless wlroots: 61.5 Hz).
    public static let minimumRateToRefresh = 0.9

    /// The subscribed rate (Hz, ≥ 1).
    public let rate: Int

    public init(rate: Int) {
        self.rate = max(1, rate)
    }

    /// Nanoseconds between frames at the subscribed rate.
    public var period: Int64 { 1_000_000_000 / Int64(rate) }

    /// Whether a refresh shown at `shownAt` (ns), `refresh` ns after the previous one, gets a frame
    /// predicted from `newest` although no newer daemon frame came: the device moves (a velocity
    /// not 0), the rate asks for every refresh, and the prediction stays within the horizon.
    public func wantsFrame(newest: ParallaxOffset?, shownAt: Int64, refresh: Int64) -> Bool {
        guard let newest, newest.isMoving, refresh > 0 else { return false }
        guard Double(rate) * Double(refresh) >= Self.minimumRateToRefresh * 1e9 else { return false }
        let horizon = Int64(Self.horizonPeriods * Double(max(period, refresh)))
        return shownAt >= newest.t && shownAt - newest.t <= horizon
    }
}

extension ParallaxOffset {
    /// Whether its velocity says the offset changes (x, y, or the heading when it has one); a
    /// non-finite velocity counts as none, as in `predicted(at:)`.
    var isMoving: Bool {
        func moving(_ v: Double) -> Bool { v.isFinite && v != 0 }
        return moving(vx) || moving(vy) || moving(vyaw ?? 0)
    }
}
