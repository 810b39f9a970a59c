import Glibc

/// Who holds the daemon's connection slots, and who gives one up when the daemon is full
/// (docs/protocol.md "Connection limits and refused peers").
///
/// Why eviction instead of plain refusal: a full daemon that refuses newcomers belongs to whoever
/// connected first, so one local user holding every slot switched parallax off for the desktop.
/// Here a full daemon takes the slot back from the user holding the most, so a flood from one
/// user costs the others nothing:
///
/// 1. A user at `perUserLimit` connections is refused (it only competes with itself).
/// 2. Below `capacity`, everyone else is admitted.
/// 3. Full: a newcomer that may subscribe or control takes the slot of a *stranger* (a peer that
///    may do neither and only visits) first; otherwise the user holding the most slots gives one
///    up if it holds at least two more than the newcomer's user (after the move it still holds at
///    least as many: no ping-pong). A stranger newcomer may only displace another stranger.
/// 4. Within the giving user, the victim is its connection doing the least: one that never sent
///    a request, then one not subscribed, then a subscriber; the newest first among equals
///    (a flood's newest connection, not the user's long-standing compositor).
///
/// A pure value: the daemon asks it before accepting and tells it what happened (no sockets).
struct ConnectionSlots: Sendable {
    /// What the policy knows of one connection.
    struct Holder: Sendable, Equatable {
        let uid: uid_t
        /// May neither subscribe nor control (decided at accept, promoted on a granted request).
        var stranger: Bool
        /// Has had a request answered (not refused).
        var engaged = false
        var subscribed = false

        /// Lower gives its slot up first.
        var keepRank: Int { subscribed ? 2 : engaged ? 1 : 0 }
    }

    enum Refusal: Sendable, Equatable {
        /// The user already holds `perUserLimit` connections.
        case userLimit
        /// Every slot is taken and nobody may be displaced for this newcomer.
        case full
    }

    enum Admission: Sendable, Equatable {
        case admit
        /// Admit after closing this connection (its id).
        case evict(Int)
        case refuse(Refusal)
    }

    /// `[Daemon] MaxClients=`.
    var capacity: Int
    /// `[Daemon] MaxClientsPerUser=`.
    var perUserLimit: Int
    /// By connection id (ids only grow: a higher id is a newer connection).
    private(set) var holders: [Int: Holder] = [:]
    private var perUser: [uid_t: Int] = [:]

    init(capacity: Int, perUserLimit: Int) {
        self.capacity = capacity
        self.perUserLimit = perUserLimit
    }

    var count: Int { holders.count }
    func count(of uid: uid_t) -> Int { perUser[uid] ?? 0 }

    /// What to do with a newcomer. `descriptorsExhausted`: the process has no descriptor for one
    /// more connection, so the daemon counts as full whatever `capacity` says.
    func admission(uid: uid_t, stranger: Bool, descriptorsExhausted: Bool = false) -> Admission {
        let mine = count(of: uid)
        if mine >= perUserLimit { return .refuse(.userLimit) }
        if holders.count < capacity && !descriptorsExhausted { return .admit }
        if !stranger, let victim = victim(among: holders.filter { $0.value.stranger && $0.value.uid != uid }) {
            return .evict(victim)
        }
        // Fair share: the user holding the most slots, if it holds at least two more than ours.
        var best: (uid: uid_t, count: Int, victim: Int)?
        for (other, held) in perUser where other != uid && held >= mine + 2 {
            if let best, best.count > held || (best.count == held && best.uid < other) { continue }
            let eligible = holders.filter { $0.value.uid == other && (!stranger || $0.value.stranger) }
            if let victim = victim(among: eligible) { best = (other, held, victim) }
        }
        if let best { return .evict(best.victim) }
        return .refuse(.full)
    }

    /// The connection that gives its slot up first: from the user with the most of these
    /// connections, its least engaged, newest one.
    private func victim(among candidates: [Int: Holder]) -> Int? {
        var byUser: [uid_t: Int] = [:]
        for holder in candidates.values { byUser[holder.uid, default: 0] += 1 }
        guard let user = byUser.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else {
            return nil
        }
        return candidates.filter { $0.value.uid == user }
            .min { a, b in a.value.keepRank != b.value.keepRank ? a.value.keepRank < b.value.keepRank : a.key > b.key }?.key
    }

    mutating func add(id: Int, uid: uid_t, stranger: Bool) {
        guard holders[id] == nil else { return }
        holders[id] = Holder(uid: uid, stranger: stranger)
        perUser[uid, default: 0] += 1
    }

    mutating func remove(id: Int) {
        guard let holder = holders.removeValue(forKey: id) else { return }
        let left = (perUser[holder.uid] ?? 1) - 1
        perUser[holder.uid] = left > 0 ? left : nil
    }

    /// A request of this connection was answered.
    mutating func markEngaged(id: Int) { holders[id]?.engaged = true }

    mutating func setSubscribed(id: Int, _ subscribed: Bool) { holders[id]?.subscribed = subscribed }

    /// A stranger was granted a request after all (a seat session began, a group was created).
    mutating func promote(id: Int) { holders[id]?.stranger = false }
}
