import Glibc

/// Turns refusals into a few log lines per burst, so a flood cannot fill the journal next.
///
/// The first refusal for a user is logged in full at once (what happened, to which pid); while
/// more follow, one summary per `window` counts them by reason ("refused 187 connections or
/// requests from uid 65534 in the last 10 s: 150 idle, 37 over the per-user limit"). A window
/// with nothing in it ends the burst; the next refusal starts a new one with a full line again.
///
/// A pure value: the daemon records, and calls `flush` at `nextFlush` from a loop timer.
struct RefusalLog: Sendable {
    /// How long a burst's summaries are apart (ns).
    static let defaultWindow: Int64 = 10_000_000_000

    enum Reason: String, Sendable, CaseIterable, Comparable {
        case userLimit = "over the per-user limit"
        case full = "server full"
        case evicted = "closed for another user's connection"
        case idle = "idle"
        case denied = "permission denied"
        case badRequests = "too many bad requests"
        case stalled = "not reading"

        static func < (a: Reason, b: Reason) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }

        /// Part of ordinary use (an unprivileged `parallaxctl status` that also tries to
        /// subscribe), logged at info; the others are abuse or breakage, logged as warnings.
        var isRoutine: Bool { self == .denied }
    }

    /// One window's count for one user.
    struct Summary: Sendable, Equatable {
        let uid: uid_t
        let counts: [Reason: Int]
        let seconds: Double
        var isRoutine: Bool { counts.keys.allSatisfy(\.isRoutine) }
        var line: String { RefusalLog.summary(uid: uid, counts: counts, seconds: seconds) }
    }

    private struct Burst: Sendable {
        var windowStart: Int64
        var counts: [Reason: Int] = [:]
    }

    let window: Int64
    private var bursts: [uid_t: Burst] = [:]

    init(window: Int64 = RefusalLog.defaultWindow) { self.window = window }

    /// Counts one refusal; true when it starts a burst and should be logged in full now.
    mutating func record(uid: uid_t, _ reason: Reason, now: Int64) -> Bool {
        guard bursts[uid] != nil else {
            bursts[uid] = Burst(windowStart: now)
            return true
        }
        bursts[uid]!.counts[reason, default: 0] += 1
        return false
    }

    /// When the earliest open window ends (monotonic ns); nil with no burst going on.
    var nextFlush: Int64? { bursts.values.map { $0.windowStart + window }.min() }

    /// Summaries of the windows that ended by `now`; ends the bursts that stayed quiet.
    mutating func flush(now: Int64) -> [Summary] {
        var summaries: [Summary] = []
        for uid in bursts.keys.sorted() {
            guard let burst = bursts[uid], burst.windowStart + window <= now else { continue }
            guard !burst.counts.isEmpty else { bursts[uid] = nil; continue }
            summaries.append(Summary(uid: uid, counts: burst.counts, seconds: Double(now - burst.windowStart) / 1e9))
            bursts[uid] = Burst(windowStart: now)
        }
        return summaries
    }

    static func summary(uid: uid_t, counts: [Reason: Int], seconds: Double) -> String {
        let total = counts.values.reduce(0, +)
        let reasons = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        return "refused \(total) connections or requests from uid \(uid) in the last \(Int(seconds.rounded())) s: \(reasons)"
    }
}
