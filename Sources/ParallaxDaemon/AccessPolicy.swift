import CLinux
import CSystemd
import Glibc

/// One entry of an access list (`[Access] Subscribers=` / `Controllers=`).
enum AccessRule: Sendable, Equatable, CustomStringConvertible {
    /// uid 0.
    case root
    /// Members of a group (primary or supplementary), written `@name`.
    case group(String)
    /// Users with an active session on a local seat (sd-login): the person at the device.
    case seat
    /// Anyone who can open the socket.
    case everyone

    var description: String {
        switch self {
        case .root: "root"
        case .group(let name): "@\(name)"
        case .seat: "seat"
        case .everyone: "everyone"
        }
    }

    /// Parses a space-separated list such as "root @parallax seat".
    static func parseList(_ text: String) throws(ConfigValueError) -> [AccessRule] {
        var rules: [AccessRule] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }) {
            switch word {
            case "root": rules.append(.root)
            case "seat": rules.append(.seat)
            case "everyone": rules.append(.everyone)
            default:
                guard word.hasPrefix("@"), word.count > 1 else {
                    throw ConfigValueError("\"\(word)\" is not root, @group, seat or everyone")
                }
                rules.append(.group(String(word.dropFirst())))
            }
        }
        return rules
    }
}

/// Who may subscribe to motion data and who may change what everyone sees (docs/protocol.md "Access").
///
/// Offsets are motion data, a known keystroke side channel, so reading them is not for every
/// process on the machine: by default root, the `parallax` group and the user sitting at the
/// device (an active session on a local seat). Control commands (recenter, reduce motion,
/// calibrate) change every client's view: root and the usual admin groups.
struct AccessPolicy: Sendable, Equatable {
    static let defaultSubscribers: [AccessRule] = [.root, .group("parallax"), .seat]
    static let defaultControllers: [AccessRule] = [.root, .group("sudo"), .group("wheel")]

    var subscribers = AccessPolicy.defaultSubscribers
    var controllers = AccessPolicy.defaultControllers

    func maySubscribe(_ peer: PeerCredentials) -> Bool { Self.matches(subscribers, peer) }
    func mayControl(_ peer: PeerCredentials) -> Bool { Self.matches(controllers, peer) }

    /// Group names are resolved at each check (a group created after start counts at once);
    /// checks happen per command, never per frame.
    static func matches(_ rules: [AccessRule], _ peer: PeerCredentials) -> Bool {
        rules.contains { rule in
            switch rule {
            case .everyone: true
            case .root: peer.uid == 0
            case .group(let name):
                plx_group_id(name) >= 0 && peer.isMember(of: gid_t(plx_group_id(name)))
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

    /// Describes a rule list for error messages ("root, @parallax or seat").
    static func describe(_ rules: [AccessRule]) -> String {
        rules.map { rule -> String in
            switch rule {
            case .root: "root"
            case .group(let name): "group \(name)"
            case .seat: "an active local seat session"
            case .everyone: "everyone"
            }
        }.joined(separator: ", ")
    }
}
