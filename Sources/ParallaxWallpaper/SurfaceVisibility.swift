// Can anyone see this surface? Wayland never says so directly, but every compositor stops
// answering frame callbacks of a surface it does not show: under a fullscreen opaque window, on
// an output that is off (DPMS, wlr-output-power-management), behind a lock screen, on a hidden
// workspace. So the rule (docs/wallpaper.md "Visibility"):
//
// - hidden: a frame callback was asked for (with a commit) and has not come within
//   `hiddenAfterRefreshes` refresh periods, and never sooner than `minimumHiddenDelay` (before
//   the surface's first callback has come, never sooner than `firstFrameDelay`);
// - visible again: any frame callback comes, or the compositor configures the surface (it is
//   being laid out, so it will be shown or will say otherwise with the next late callback).
//
// A still picture asks for no frames, so a surface covered while nothing moves is found hidden
// at the next frame it would draw; the daemon is resting then anyway. A pure value, so the rule is
// unit-tested without a compositor (SurfaceVisibilityTests).

/// What a change of `SurfaceVisibility` means to its owner.
public enum VisibilityChange: Sendable, Equatable {
    case hidden
    case visible
}

public struct SurfaceVisibility: Sendable, Equatable {
    /// Refresh periods a frame callback may be late before the surface counts as hidden.
    public static let hiddenAfterRefreshes: Int64 = 30
    /// Shortest wait for a frame callback before the surface counts as hidden (ns): a busy
    /// compositor or a 144 Hz output is not taken for a hidden one (headless sway on a loaded
    /// machine was seen 300 ms late).
    public static let minimumHiddenDelay: Int64 = 500_000_000
    /// Longest wait (ns): a reported refresh slower than this is not a display pipeline.
    public static let maximumHiddenDelay: Int64 = 2_000_000_000
    /// Shortest wait for the surface's first frame callback (ns): a compositor drawing in software
    /// takes its time to show a new surface (headless KWin under llvmpipe took over 500 ms), and a
    /// pause and resume at start would cost a subscription round trip for nothing.
    public static let firstFrameDelay: Int64 = 3_000_000_000
    /// The refresh period assumed until the compositor reports one: 60 Hz (ns).
    public static let assumedRefreshPeriod: Int64 = 16_666_667

    /// False once a frame callback is overdue, until one comes or the surface is configured.
    public private(set) var isVisible = true
    /// When the frame callback pending now was asked for (CLOCK_MONOTONIC ns); nil when none is.
    public private(set) var callbackRequestedAt: Int64?
    /// The output's refresh period (ns) as the compositor reported it; nil or ≤ 0: unknown.
    public var refreshPeriod: Int64?
    /// Whether a frame callback of this surface has ever come (it has been shown once).
    public private(set) var hasBeenShown = false

    public init(refreshPeriod: Int64? = nil) {
        self.refreshPeriod = refreshPeriod
    }

    /// How long a frame callback may take before the surface counts as hidden (ns).
    public var hiddenDelay: Int64 {
        let period = refreshPeriod.flatMap { $0 > 0 ? $0 : nil } ?? Self.assumedRefreshPeriod
        let (delay, overflow) = period.multipliedReportingOverflow(by: Self.hiddenAfterRefreshes)
        let shown = min(max(overflow ? Self.maximumHiddenDelay : delay, Self.minimumHiddenDelay), Self.maximumHiddenDelay)
        return hasBeenShown ? shown : max(shown, Self.firstFrameDelay)
    }

    /// When the surface will count as hidden unless its callback comes first (ns); nil while no
    /// callback is pending or it is hidden already. The owner checks at this time (`check`).
    public var deadline: Int64? {
        guard isVisible, let requested = callbackRequestedAt else { return nil }
        let (sum, overflow) = requested.addingReportingOverflow(hiddenDelay)
        return overflow ? Int64.max : sum
    }

    /// A commit asked for a frame callback at `now`. A callback already pending keeps its time
    /// (the compositor answers the oldest first; a surface that draws often is not reset by it).
    public mutating func callbackRequested(at now: Int64) {
        if callbackRequestedAt == nil { callbackRequestedAt = now }
    }

    /// A frame callback came: the surface is shown. `.visible` when it was hidden.
    public mutating func callbackDone() -> VisibilityChange? {
        callbackRequestedAt = nil
        hasBeenShown = true
        return becomeVisible()
    }

    /// The compositor configured the surface at `now` (a new size, an output back on): it counts
    /// as shown, and a callback still pending is waited for afresh from now.
    public mutating func configured(at now: Int64) -> VisibilityChange? {
        if callbackRequestedAt != nil { callbackRequestedAt = now }
        return becomeVisible()
    }

    /// `.hidden` when the pending callback is overdue at `now`.
    public mutating func check(at now: Int64) -> VisibilityChange? {
        guard let deadline, now >= deadline else { return nil }
        isVisible = false
        return .hidden
    }

    private mutating func becomeVisible() -> VisibilityChange? {
        guard !isVisible else { return nil }
        isVisible = true
        return .visible
    }
}
