// --stats: motion to photon for every view (docs/wallpaper.md "Motion to photon"), kept apart
// from the app's other duties. Each view gets a PresentationProbe; on exit the summary of all of
// them, closed ones included, with a line saying so where the compositor gave no presentation
// feedback.

import ParallaxWallpaper

extension WallpaperApp {
    func attachProbe(to view: OutputView) {
        view.probe = PresentationProbe(pacer: view.surface.pacer) { Self.log($0) }
    }

    /// The summary lines for the exit, without the "stats: " prefix.
    func presentationLines(open views: [OutputView], closed: [PresentationProbe.Source: PresentationSummary]) -> [String] {
        var bySource = closed
        for view in views {
            guard let probe = view.probe else { continue }
            bySource[probe.source, default: PresentationSummary()].merge(probe.summary)
        }
        var lines: [String] = []
        let reasons = views.compactMap { view -> String? in
            guard let probe = view.probe else { return nil }
            if let reason = view.surface.pacer.feedbackUnavailable { return reason }
            return probe.source == .frameCallback ? "the compositor has answered no request yet" : nil
        }
        if let reason = reasons.first {
            lines.append("presentation: no wp_presentation feedback (\(reason)); the times below are the frame callbacks'")
        }
        let refresh = views.lazy.compactMap(\.surface.pacer.refreshPeriod).first
        for source in [PresentationProbe.Source.presentation, .frameCallback] {
            guard let summary = bySource[source] else { continue }
            lines += summary.lines(source: source.rawValue, refresh: refresh)
        }
        if bySource.isEmpty { lines.append("presentation: no frame drawn") }
        return lines
    }
}
