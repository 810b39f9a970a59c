// The visibility rule as a value (SurfaceVisibility.swift): hidden when a frame callback is
// overdue by 30 refreshes (never less than 500 ms, never more than 2 s; its first callback 3 s),
// visible again at any callback or configure; a still surface (no callback pending) is never judged.

import Testing
import ParallaxWallpaper

@Suite struct SurfaceVisibilityTests {
    private let ms: Int64 = 1_000_000

    /// A surface whose first frame callback has come (the first is waited for longer).
    private func shownOnce(refreshPeriod: Int64? = nil) -> SurfaceVisibility {
        var visibility = SurfaceVisibility(refreshPeriod: refreshPeriod)
        visibility.callbackRequested(at: 0)
        _ = visibility.callbackDone()
        return visibility
    }

    @Test func theFirstCallbackIsWaitedForLonger() {
        var visibility = SurfaceVisibility(refreshPeriod: 10 * ms)
        visibility.callbackRequested(at: 1_000 * ms)
        #expect(visibility.deadline == 1_000 * ms + SurfaceVisibility.firstFrameDelay)
        #expect(visibility.check(at: 3_999 * ms) == nil && visibility.isVisible)
        #expect(visibility.check(at: 4_000 * ms) == .hidden)
        #expect(visibility.callbackDone() == .visible && visibility.hasBeenShown)
        visibility.callbackRequested(at: 5_000 * ms)
        #expect(visibility.check(at: 5_500 * ms) == .hidden)       // shown once: the usual 500 ms
    }

    @Test func aCallbackOverdueByThirtyRefreshesHidesTheSurface() {
        var visibility = shownOnce(refreshPeriod: 25 * ms)   // 40 Hz: 30 refreshes = 750 ms
        visibility.callbackRequested(at: 1_000 * ms)
        #expect(visibility.deadline == 1_750 * ms)
        #expect(visibility.check(at: 1_749 * ms) == nil && visibility.isVisible)
        #expect(visibility.check(at: 1_750 * ms) == .hidden && !visibility.isVisible)
        #expect(visibility.deadline == nil)                        // hidden: nothing more to wait for
        #expect(visibility.check(at: 9_000 * ms) == nil)           // said once
    }

    @Test func aCallbackInTimeKeepsItVisible() {
        var visibility = SurfaceVisibility()
        for frame in 0..<100 {
            let now = Int64(frame) * 17 * ms
            visibility.callbackRequested(at: now)
            #expect(visibility.check(at: now + 16 * ms) == nil)
            #expect(visibility.callbackDone() == nil)
        }
        #expect(visibility.isVisible && visibility.deadline == nil)
    }

    @Test func withoutAPendingCallbackNothingIsJudged() {
        var visibility = SurfaceVisibility()
        #expect(visibility.deadline == nil)
        #expect(visibility.check(at: .max) == nil && visibility.isVisible)
    }

    @Test func anyCallbackOrConfigureShowsItAgain() {
        var visibility = shownOnce(refreshPeriod: 10 * ms)   // 300 ms: the 500 ms floor
        visibility.callbackRequested(at: 0)
        #expect(visibility.check(at: 500 * ms) == .hidden)
        #expect(visibility.callbackDone() == .visible)
        #expect(visibility.callbackDone() == nil)                  // already visible: no change

        visibility.callbackRequested(at: 1_000 * ms)
        #expect(visibility.check(at: 2_000 * ms) == .hidden)
        // A configure counts as shown; the callback still pending is waited for afresh.
        #expect(visibility.configured(at: 3_000 * ms) == .visible)
        #expect(visibility.deadline == 3_000 * ms + SurfaceVisibility.minimumHiddenDelay)
        #expect(visibility.check(at: 3_400 * ms) == nil)
        #expect(visibility.check(at: 3_500 * ms) == .hidden)       // and it stays late: hidden again
    }

    @Test func theOldestPendingCallbackCounts() {
        var visibility = shownOnce(refreshPeriod: 10 * ms)
        visibility.callbackRequested(at: 0)
        visibility.callbackRequested(at: 400 * ms)                 // another commit, no answer yet
        #expect(visibility.check(at: 500 * ms) == .hidden)
    }

    @Test func theDelayIsBoundedWhateverTheCompositorReports() {
        #expect(shownOnce(refreshPeriod: 6_944_444).hiddenDelay == 500 * ms)   // 144 Hz: the floor
        #expect(shownOnce(refreshPeriod: 33_333_333).hiddenDelay == 999_999_990) // 30 Hz: 30 refreshes
        #expect(shownOnce(refreshPeriod: 0).hiddenDelay == 500_000_010)        // unknown: 60 Hz
        #expect(shownOnce(refreshPeriod: -5).hiddenDelay == 500_000_010)
        #expect(shownOnce(refreshPeriod: 4_294_967_295).hiddenDelay == 2_000 * ms)
        #expect(shownOnce(refreshPeriod: .max).hiddenDelay == 2_000 * ms)
        #expect(SurfaceVisibility(refreshPeriod: .max).hiddenDelay == SurfaceVisibility.firstFrameDelay)
        var late = shownOnce(refreshPeriod: 10 * ms)
        late.callbackRequested(at: .max - 1)
        #expect(late.deadline == .max && late.check(at: .max) == .hidden)
    }
}
