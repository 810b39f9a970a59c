/// One entry of an access list (`[Access] Subscribers=` / `Controllers=`).
public enum AccessRule: Sendable, Equatable, CustomStringConvertible {
    /// uid 0.
    case root
    /// Members of a group (primary or supplementary), written `@name`.
    case group(String)
    /// Users with an active session on a local seat (sd-login): the person at the device.
    case seat
    /// Anyone who can open the socket.
    case everyone

    public var description: String {
        switch self {
        case .root: "root"
        case .group(let name): "@\(name)"
        case .seat: "seat"
        case .everyone: "everyone"
        }
    }

    /// Parses a space-separated list such as "root @parallax seat".
    public static func parseList(_ text: String) throws(ConfigValueError) -> [AccessRule] {
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

/// Who may subscribe to motion data and who may change what everyone sees (docs/protocol.md "Access"):
/// `[Access] Subscribers=` and `Controllers=` as values. The daemon matches peers against them
/// (AccessPolicy+Peers.swift in ParallaxDaemon).
///
/// Offsets are motion data, a known keystroke side channel, so reading them is not for every
/// process on the machine: by default root, the `parallax` group and the user sitting at the
/// device (an active session on a local seat). Control commands (recenter, reduce motion,
/// calibrate) change every client's view: root and the usual admin groups.
public struct AccessPolicy: Sendable, Equatable {
    public static let defaultSubscribers: [AccessRule] = [.root, .group("parallax"), .seat]
    public static let defaultControllers: [AccessRule] = [.root, .group("sudo"), .group("wheel")]

    public var subscribers = AccessPolicy.defaultSubscribers
    public var controllers = AccessPolicy.defaultControllers

    public init() {}

    /// Describes a rule list for error messages ("root, @parallax or seat").
    public static func describe(_ rules: [AccessRule]) -> String {
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
