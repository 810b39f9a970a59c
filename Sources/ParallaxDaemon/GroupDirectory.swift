import CLinux
import Glibc
import Synchronization

/// The gids of the group names in the access lists (`@name` in `[Access] Subscribers=` and
/// `Controllers=`), looked up away from the event loop.
///
/// Why: a group name is resolved through NSS, which may ask LDAP or sssd over the network and
/// take seconds; the loop checks access at every admission and command and must never wait for
/// that. Membership itself needs no lookup (the peer's gids come with its credentials), only the
/// name's gid, which changes rarely. So the names are resolved at start (before serving), again
/// on a worker thread at every reload and when a check finds the answers older than
/// `refreshInterval` (no timer: an idle daemon makes no wake-ups); checks read the last answers
/// meanwhile. A lookup that fails (not "no such group": an NSS error) keeps the name's previous
/// gid, so a directory server that is down for a moment takes nobody's access away.
final class GroupDirectory: Sendable {
    /// What one lookup said.
    enum Lookup: Sendable, Equatable {
        case gid(gid_t)
        case noSuchGroup
        case failed(Int32)
    }

    /// Answers older than this (ns) are looked up again at the next check that needs them:
    /// a group created after start counts within a minute (or at the next reload).
    static let refreshInterval: Int64 = 60_000_000_000

    /// The directory the daemon's access checks use (one per process, like NSS itself).
    static let shared = GroupDirectory()

    private struct State {
        /// The names to resolve (empty until the daemon has loaded its access lists).
        var names: Set<String> = []
        var gids: [String: gid_t] = [:]
        /// When the last resolution began (monotonic ns); 0: never.
        var resolvedAt: Int64 = 0
        /// A worker thread is resolving; a second one is not started.
        var resolving = false
        /// Resolutions finished, for tests that wait for one.
        var completed = 0
    }

    private let state = Mutex(State())
    private let lookup: @Sendable (String) -> Lookup

    init(lookup: @escaping @Sendable (String) -> Lookup = GroupDirectory.systemLookup) {
        self.lookup = lookup
    }

    /// getgrnam_r through the shim, with a buffer that grows for groups with many members.
    static let systemLookup: @Sendable (String) -> Lookup = { name in
        var gid: gid_t = 0
        let rc = plx_group_lookup(name, &gid)
        switch rc {
        case 0: return .gid(gid)
        case ENOENT: return .noSuchGroup
        default: return .failed(rc)
        }
    }

    /// The gid of `name`, from the last answers; nil when the name is not (yet) known as a group.
    func gid(of name: String, now: Int64 = plx_monotonic_ns()) -> gid_t? {
        let (gid, stale) = state.withLock { s -> (gid_t?, Bool) in
            (s.gids[name], !s.names.isEmpty && !s.resolving && now - s.resolvedAt >= Self.refreshInterval)
        }
        if stale { refreshInBackground(names: nil) }
        return gid
    }

    /// At start, before serving: resolves `names` on the calling thread.
    func resolveNow(_ names: Set<String>) {
        let started = plx_monotonic_ns()
        let previous = state.withLock { s -> [String: gid_t] in
            s.names = names
            return s.gids
        }
        let gids = resolve(names, previous: previous)
        state.withLock { s in
            s.gids = gids
            s.resolvedAt = started
            s.completed += 1
        }
    }

    /// On reload: resolves `names` (the new access lists' groups) on a worker thread; the last
    /// answers stand until it is done.
    func refresh(_ names: Set<String>) {
        refreshInBackground(names: names)
    }

    /// Resolutions finished so far.
    var completedResolutions: Int { state.withLock { $0.completed } }

    private func refreshInBackground(names newNames: Set<String>?) {
        let start = state.withLock { s -> Bool in
            if let newNames { s.names = newNames }
            // A reload while a resolution runs: that one picks the new names up when it ends.
            if s.resolving { return false }
            s.resolving = true
            return true
        }
        guard start else { return }
        let detached = BackgroundTask.detached { [self] in
            while true {
                let started = plx_monotonic_ns()
                let (names, previous) = state.withLock { ($0.names, $0.gids) }
                let gids = resolve(names, previous: previous)
                let again = state.withLock { s -> Bool in
                    s.gids = gids
                    s.resolvedAt = started
                    s.completed += 1
                    // The names changed meanwhile (a reload): resolve them too.
                    if s.names != names { return true }
                    s.resolving = false
                    return false
                }
                if !again { return }
            }
        }
        if !detached {
            // No thread: the answers stand; the next check that finds them stale tries again.
            state.withLock { s in
                s.resolving = false
                s.resolvedAt = plx_monotonic_ns()
            }
        }
    }

    private func resolve(_ names: Set<String>, previous: [String: gid_t]) -> [String: gid_t] {
        var gids: [String: gid_t] = [:]
        for name in names {
            switch lookup(name) {
            case .gid(let gid): gids[name] = gid
            case .noSuchGroup: break
            case .failed: if let known = previous[name] { gids[name] = known }
            }
        }
        return gids
    }
}
