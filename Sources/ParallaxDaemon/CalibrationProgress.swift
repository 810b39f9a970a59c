import Glibc

/// Progress on stderr: one line redrawn in place on a terminal, a line per 10 % otherwise (a
/// log or a pipe should not fill with carriage returns).
final class CalibrationProgress {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastPercent = -1
    private var lineOpen = false
    /// Width of the bar on a terminal (characters).
    private static let barWidth = 30

    func say(_ text: String) { emit(text + "\n") }

    func show(_ fraction: Double) {
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        if isTerminal {
            guard percent != lastPercent else { return }
            let filled = percent * Self.barWidth / 100
            emit("\rcalibrating [" + String(repeating: "#", count: filled)
                 + String(repeating: ".", count: Self.barWidth - filled) + "] \(percent) %")
            lineOpen = true
        } else {
            guard percent / 10 != lastPercent / 10 || lastPercent < 0 else { return }
            emit("calibrating: \(percent / 10 * 10) %\n")
        }
        lastPercent = percent
    }

    func done() {
        if lineOpen { emit("\n") }
        lineOpen = false
    }

    func fail(_ text: String) {
        done()
        emit("parallaxd: \(text)\n")
    }

    private func emit(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
