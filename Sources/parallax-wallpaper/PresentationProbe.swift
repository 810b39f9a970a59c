// --stats on one surface: motion to photon (docs/wallpaper.md "Motion to photon"). Hears from
// the surface's FramePacer which frames were shown when, from the view which offset each frame
// drew and which daemon frames arrived, keeps them in PresentationStats and logs each frame once
// it is resolved. Two sets of times: wp_presentation's, and the frame callbacks' (when the
// compositor composited the frame, to the millisecond), which stand in, said as much, where the
// compositor gives no presentation feedback. Exists only with --stats.

import CLinux
import ParallaxClient
import ParallaxProtocol
import ParallaxWallpaper

final class PresentationProbe {
    /// Where a presentation time came from.
    enum Source: String {
        case presentation = "wp_presentation"
        case frameCallback = "frame-callback"
    }

    private let pacer: FramePacer
    private var presented = PresentationStats()
    private var composited = PresentationStats()
    private let log: (String) -> Void

    init(pacer: FramePacer, log: @escaping (String) -> Void) {
        self.pacer = pacer
        self.log = log
        pacer.presentedFrame = { [weak self] frame, time in
            guard let self else { return }
            report(presented.presented(frame: frame, at: time), by: .presentation)
        }
        pacer.discardedFrame = { [weak self] frame in
            self?.presented.discarded(frame: frame)
            self?.log("discarded frame=\(frame)")
        }
        pacer.compositedFrame = { [weak self] frame, time in
            guard let self else { return }
            report(composited.presented(frame: frame, at: time), by: .frameCallback)
        }
    }

    /// wp_presentation's times while it answers; the frame callbacks' where it does not.
    var source: Source { presented.summary.presented + presented.summary.discarded > 0 ? .presentation : .frameCallback }

    /// Everything so far, by `source`; frames still waiting count as unanswered or unresolved.
    var summary: PresentationSummary { source == .presentation ? presented.finalSummary : composited.finalSummary }

    /// The frame numbered `frame` draws (`x`, `y`) now, predicted for `expectedAt` from `sample`
    /// (nil: the centre).
    func drew(frame: Int, sample: ParallaxOffset?, x: Double, y: Double, expectedAt: Int64) {
        let now = plx_monotonic_ns()
        presented.drew(frame: frame, sample: sample, x: x, y: y, drawnAt: now, expectedAt: expectedAt)
        composited.drew(frame: frame, sample: sample, x: x, y: y, drawnAt: now, expectedAt: expectedAt)
    }

    /// The subscription's newest daemon frame (called after each dispatch; repeats are ignored).
    func received(_ offset: ParallaxOffset?) {
        guard let offset else { return }
        report(presented.received(offset), by: .presentation)
        report(composited.received(offset), by: .frameCallback)
    }

    /// One line per resolved frame, from the source in use only.
    private func report(_ frames: [PresentedFrame], by origin: Source) {
        guard origin == source else { return }
        for f in frames {
            log("presented frame=\(f.frame) by=\(origin.rawValue) t=\(f.sampleTime) at=\(f.presentedAt)"
                + " latency=" + FixedDecimal.text(Double(f.latency) / 1e6, decimals: 3) + " ms"
                + " drawn-after=" + FixedDecimal.text((Double(f.drawnAt) - Double(f.sampleTime)) / 1e6, decimals: 3) + " ms"
                + " predicted-for=" + FixedDecimal.text((Double(f.expectedAt) - Double(f.presentedAt)) / 1e6, decimals: 3, plusSign: true) + " ms"
                + " error=" + FixedDecimal.text(f.error, decimals: 5)
                + " nearest-error=" + FixedDecimal.text(f.nearestError, decimals: 5)
                + " nearest-gap=" + FixedDecimal.text(Double(f.nearestGap) / 1e6, decimals: 3) + " ms")
        }
    }
}
