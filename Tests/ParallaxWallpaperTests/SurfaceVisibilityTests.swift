// The visibility rule as a value (SurfaceVisibility.swift): hidden when a frame callback is
// overdue by 15 refreshes (never less than 250 ms, never more than 2 s), visible again at any
// callback or configure; a still surface (no callback pending) is never judged.

import Testing
import ParallaxWallpaper

@Suite struct SurfaceVisibilityTests {
    private let ms: Int64 = 1_000_000

    @Test func aCallbackOverdueByFifteenRefreshesHidesTheSurface() {
        var visibility = SurfaceVisibility(refreshPeriod: 20 * ms)   // 50 Hz: 15 refreshes = 300 ms
        visibility.callbackRequested(at: 1_000 * ms)
        #expect(visibility.deadline == 1_300 * ms)
        #expect(visibility.check(at: 1_299 * ms) == nil && visibility.isVisible)
        #expect(visibility.check(at: 1_300 * ms) == .hidden && !visibility.isVisible)
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
        var visibility = SurfaceVisibility(refreshPeriod: 10 * ms)   // 150 ms: the 250 ms floor
        visibility.callbackRequested(at: 0)
        #expect(visibility.check(at: 250 * ms) == .hidden)
        #expect(visibility.callbackDone() == .visible)
        #expect(visibility.callbackDone() == nil)                  // already visible: no change

        visibility.callbackRequested(at: 1_000 * ms)
        #expect(visibility.check(at: 2_000 * ms) == .hidden)
        // A configure counts as shown; the callback still pending is waited for afresh.
        #expect(visibility.configured(at: 3_000 * ms) == .visible)
        #expect(visibility.deadline == 3_000 * ms + SurfaceVisibility.minimumHiddenDelay)
        #expect(visibility.check(at: 3_100 * ms) == nil)
        #expect(visibility.check(at: 3_250 * ms) == .hidden)       // and it stays late: hidden again
    }

    @Test func theOldestPendingCallbackCounts() {
        var visibility = SurfaceVisibility(refreshPeriod: 10 * ms)
        visibility.callbackRequested(at: 0)
        visibility.callbackRequested(at: 200 * ms)                 // another commit, no answer yet
        #expect(visibility.check(at: 250 * ms) == .hidden)
    }

    @Test func theDelayIsBoundedWhateverTheCompositorReports() {
        #expect(SurfaceVisibility(refreshPeriod: 6_944_444).hiddenDelay == 250 * ms)   // 144 Hz: the floor
        #expect(SurfaceVisibility(refreshPeriod: 33_333_333).hiddenDelay == 499_999_995) // 30 Hz: 15 refreshes
        #expect(SurfaceVisibility(refreshPeriod: 0).hiddenDelay == 250_000_005)        // unknown: 60 Hz
        #expect(SurfaceVisibility(refreshPeriod: -5).hiddenDelay == 250_000_005)
        #expect(SurfaceVisibility(refreshPeriod: 4_294_967_295).hiddenDelay == 2_000 * ms)
        #expect(SurfaceVisibility(refreshPeriod: .max).hiddenDelay == 2_000 * ms)
        var late = SurfaceVisibility(refreshPeriod: 10 * ms)
        late.callbackRequested(at: .max - 1)
        #expect(late.deadline == .max && late.check(at: .max) == .hidden)
    }
}
