import CLinux
import CSystemd
import Glibc
import ParallaxConfig

/// Matching peers against the access lists (the lists themselves are config: ParallaxConfig).
extension AccessPolicy {
    /// `owner`: the daemon's own user, who may always subscribe and control. A process of that
    /// user can read the daemon's memory and signal it anyway, so refusing it protects nothing;
    /// and a daemon someone starts by hand serves their own programs without an [Access] section.
    /// The packaged service runs as its own account (`parallaxd`), which no client shares.
    func maySubscribe(_ peer: PeerCredentials, groups: GroupDirectory = .shared, owner: uid_t = getuid()) -> Bool {
        peer.uid == owner || Self.matches(subscribers, peer, groups: groups)
    }
    func mayControl(_ peer: PeerCredentials, groups: GroupDirectory = .shared, owner: uid_t = getuid()) -> Bool {
        peer.uid == owner || Self.matches(controllers, peer, groups: groups)
    }

    /// The group names both lists mention, for `GroupDirectory`.
    var groupNames: Set<String> {
        Set((subscribers + controllers).compactMap { rule in
            if case .group(let name) = rule { name } else { nil }
        })
    }

    /// Group names are resolved off the event loop (`GroupDirectory`); a check only reads the
    /// answers, so it never waits for NSS. Checks happen per command, never per frame.
    static func matches(_ rules: [AccessRule], _ peer: PeerCredentials, groups: GroupDirectory) -> Bool {
        rules.contains { rule in
            switch rule {
            case .everyone: true
            case .root: peer.uid == 0
            case .group(let name): groups.gid(of: name).map(peer.isMember(of:)) ?? false
            case .seat: hasActiveLocalSession(uid: peer.uid)
            }
        }
    }

    /// True if the user has an active session on a seat (a local console or graphical login,
    /// not ssh). Without logind (containers, test machines) nobody has one.
    static func hasActiveLocalSession(uid: uid_t) -> Bool {
        var sessions: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let n = sd_uid_get_sessions(uid, 1, &sessions)
        guard n > 0, let sessions else { return false }
        defer {
            for i in 0..<Int(n) { free(sessions[i]) }
            free(sessions)
        }
        for i in 0..<Int(n) {
            guard let session = sessions[i] else { continue }
            var seat: UnsafeMutablePointer<CChar>?
            if sd_session_get_seat(session, &seat) >= 0, seat != nil {
                free(seat)
                if sd_session_is_remote(session) <= 0 { return true }
            }
        }
        return false
    }
}
