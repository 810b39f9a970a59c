// The wallpaper on one output: its surface, its own subscription (with that output's rotation,
// so offsets come in its axes) and the decision when to draw. Frames are asked for when the
// offset to show changed, and while the device moves at refreshes between daemon frames
// (MotionFill); the surface paces them by frame callbacks.

import ParallaxClient
import ParallaxWallpaper

final class OutputView {
    let surface: WallpaperSurface
    private(set) var subscriber: ParallaxSubscriber?
    private var smoother: OffsetSmoother
    /// Frames predicted between daemon frames while the device moves (MotionFill).
    private var fill = MotionFill(rate: 60)
    /// Reduce motion as the app decided it (scene, daemon, desktop).
    private var reduceMotion: () -> Bool
    /// Motion to photon (--stats only): the frames drawn and the daemon frames received.
    var probe: PresentationProbe?

    init(surface: WallpaperSurface, smoothing: Double, reduceMotion: @escaping () -> Bool) {
        self.surface = surface
        self.reduceMotion = reduceMotion
        smoother = OffsetSmoother(timeConstant: smoothing)
    }

    /// The output's rotation the subscription was made with.
    private(set) var rotation = 0
    private var subscribedRate = 0
    private var subscribedHeading = false

    /// (Re)subscribes unless the subscription already has this rotation, rate and heading; nil
    /// path = default. `heading`: frames also carry the yaw (a scene with a panorama).
    func subscribe(path: String?, rate: Int, rotation: Int, heading: Bool, log: @escaping (String) -> Void) {
        if subscriber != nil, self.rotation == rotation, subscribedRate == rate, subscribedHeading == heading { return }
        self.rotation = rotation
        subscribedRate = rate
        fill = MotionFill(rate: rate)
        subscribedHeading = heading
        do {
            let subscriber = try ParallaxSubscriber(path: path, rate: rate, rotation: rotation, heading: heading)
            subscriber.log = { _, message in log(message) }
            if !isSeen { subscriber.pause() }  // nobody sees it: no sensing
            self.subscriber = subscriber
        } catch {
            log("cannot subscribe: \(error)")
        }
    }

    func unsubscribe() { subscriber = nil }

    /// The compositor stopped or started showing the surface (SurfaceVisibility).
    func visibilityChanged(_ change: VisibilityChange) {
        let wasSeen = isSeen
        surfaceHidden = change == .hidden
        seenChanged(from: wasSeen)
    }

    /// The shell covers every output (its lock screen, DesktopShellWatch) or stopped covering
    /// them, which the compositor's frame callbacks may not show.
    func setCoveredByShell(_ covered: Bool) {
        let wasSeen = isSeen
        coveredByShell = covered
        surface.drawingWithheld = covered
        seenChanged(from: wasSeen)
    }

    /// Whether anyone can see the surface: neither the compositor nor the shell says otherwise.
    var isSeen: Bool { !surfaceHidden && !coveredByShell }
    private var surfaceHidden = false
    private var coveredByShell = false

    /// Hidden, the subscription pauses (the connection stays) and the last frame drawn is held;
    /// seen again, it resumes and draws at once, the held frame until the daemon's current offset
    /// comes.
    private func seenChanged(from wasSeen: Bool) {
        guard isSeen != wasSeen else { return }
        if isSeen {
            subscriber?.resume()
            surface.requestRedraw()
        } else {
            heldInput = subscriber?.offset
            subscriber?.pause()
        }
    }

    /// A reloaded scene's Smoothing=.
    func setSmoothing(_ timeConstant: Double) {
        guard timeConstant != smoother.timeConstant else { return }
        smoother = OffsetSmoother(timeConstant: timeConstant)
    }

    /// Draws again (a new scene) even though the offset did not change.
    func redraw() { surface.requestRedraw() }

    /// The offset the daemon says now (live subscription, sensor working); nil means the centre:
    /// without a daemon, once it is gone, or in reduce motion the picture rests centred.
    private var liveOffset: ParallaxOffset? {
        guard !reduceMotion(), let subscriber, subscriber.state.connected,
              subscriber.state.sensor != .lost, subscriber.state.sensor != .none
        else { return nil }
        return subscriber.offset
    }

    /// The offset for a frame shown at `shownAt` (ns): predicted from the newest frame's velocity,
    /// then smoothed (x, y and, when subscribed with heading, the yaw).
    func offsetForFrame(at shownAt: Int64) -> ParallaxOffset {
        let input = liveOffset
        lastInput = input
        drewOnce = true
        lastShownAt = shownAt
        if let held = heldInput {
            // The frame from before a pause: its velocity is old, so it is not extrapolated;
            // the picture stays as it was last drawn until a newer frame (or none) comes.
            if input == held {
                probe?.drew(frame: surface.pacer.committedFrames, sample: input, x: lastDrawn.x, y: lastDrawn.y, expectedAt: shownAt)
                return lastDrawn
            }
            heldInput = nil
        }
        lastDrawn = smoother.advance(toward: input?.predicted(at: shownAt) ?? .zero, at: shownAt)
        probe?.drew(frame: surface.pacer.committedFrames, sample: input, x: lastDrawn.x, y: lastDrawn.y, expectedAt: shownAt)
        return lastDrawn
    }

    /// The daemon frame (or the centre) behind the last frame drawn.
    private var lastInput: ParallaxOffset?
    private var drewOnce = false
    /// The offset of the last frame drawn, and when it was to be shown (ns).
    private var lastDrawn = ParallaxOffset.zero
    private var lastShownAt: Int64?
    /// The daemon frame the subscription held when it paused; nil when not holding one.
    private var heldInput: ParallaxOffset?

    /// Called after the subscriber or the reduce-motion state changed, and after each frame: asks
    /// for a frame when a new daemon frame (or a change to or from the centre) is not drawn yet,
    /// the smoother is still settling, or the device moves and the next refresh may show the
    /// newest frame's prediction (MotionFill: where the rate asks for every refresh, within a short horizon).
    func update() {
        probe?.received(subscriber?.offset)
        // Under the shell's lock screen the compositor may still answer frame callbacks (phoc):
        // no frames then, whatever the smoother or reduce motion would ask for.
        guard !coveredByShell else { return }
        if !drewOnce || liveOffset != lastInput || !smoother.isSettled {
            surface.requestRedraw()
        } else if heldInput == nil, let lastShownAt {
            let refresh = surface.refreshPeriod
            if fill.wantsFrame(newest: liveOffset, shownAt: lastShownAt + refresh, refresh: refresh) {
                surface.requestRedraw()
            }
        }
    }
}
