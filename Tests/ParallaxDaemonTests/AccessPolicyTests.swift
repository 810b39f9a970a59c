import Glibc
import ParallaxConfig
import Testing
@testable import ParallaxDaemon

/// Who may subscribe and control: the lists, and the daemon's own user beside them.
@Suite struct AccessPolicyTests {
    let groups: GroupDirectory = {
        let directory = GroupDirectory(lookup: { $0 == "parallax" ? .gid(1001) : .noSuchGroup })
        directory.resolveNow(["parallax", "sudo", "wheel"])
        return directory
    }()

    func peer(uid: uid_t, gid: gid_t = 100, groups: [gid_t] = []) -> PeerCredentials {
        PeerCredentials(pid: 1, uid: uid, gid: gid, groups: groups)
    }

    @Test func theDaemonsOwnUserMaySubscribeAndControlWhateverTheLists() {
        let policy = AccessPolicy()   // root @parallax seat / root @sudo @wheel
        let owner: uid_t = 4242
        #expect(policy.maySubscribe(peer(uid: owner), groups: groups, owner: owner))
        #expect(policy.mayControl(peer(uid: owner), groups: groups, owner: owner))
        // Another user of no listed group and no seat is refused: the owner rule is about the uid.
        #expect(!policy.maySubscribe(peer(uid: 4243), groups: groups, owner: owner))
        #expect(!policy.mayControl(peer(uid: 4243), groups: groups, owner: owner))
        // Sharing the owner's primary group is not being the owner.
        #expect(!policy.maySubscribe(peer(uid: 4243, gid: 100), groups: groups, owner: owner))
    }

    @Test func listsStillDecideForEveryoneElse() {
        var policy = AccessPolicy()
        let owner: uid_t = 4242
        #expect(policy.maySubscribe(peer(uid: 0), groups: groups, owner: owner))
        #expect(policy.maySubscribe(peer(uid: 5000, groups: [1001]), groups: groups, owner: owner))
        #expect(!policy.mayControl(peer(uid: 5000, groups: [1001]), groups: groups, owner: owner))
        policy.subscribers = [.everyone]
        policy.controllers = []
        #expect(policy.maySubscribe(peer(uid: 5000), groups: groups, owner: owner))
        #expect(!policy.mayControl(peer(uid: 0), groups: groups, owner: owner), "an empty Controllers= list refuses even root")
        #expect(policy.mayControl(peer(uid: owner), groups: groups, owner: owner))
    }
}
