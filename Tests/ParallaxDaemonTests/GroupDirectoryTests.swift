import Glibc
import Synchronization
import Testing
@testable import ParallaxDaemon

/// Group names resolved with a scripted lookup: answers are read without waiting for a lookup in
/// progress, a failed lookup keeps the name's last gid, a vanished group goes.
@Suite struct GroupDirectoryTests {
    /// A lookup whose answers the test sets, and that can be held (as a slow directory server).
    final class ScriptedLookup: Sendable {
        let answers = Mutex<[String: GroupDirectory.Lookup]>([:])
        let held = Mutex(false)
        let waiting = Atomic<Int>(0)

        func lookup(_ name: String) -> GroupDirectory.Lookup {
            waiting.add(1, ordering: .sequentiallyConsistent)
            // The test's stand-in for a slow server: it releases the hold when it has checked.
            while held.withLock({ $0 }) { usleep(1000) }
            waiting.subtract(1, ordering: .sequentiallyConsistent)
            return answers.withLock { $0[name] ?? .noSuchGroup }
        }
    }

    @Test func answersStandWhileALookupWaitsAndFailuresKeepTheLastGid() throws {
        let script = ScriptedLookup()
        let directory = GroupDirectory(lookup: { script.lookup($0) })
        script.answers.withLock { $0 = ["parallax": .gid(1001), "video": .gid(44)] }
        directory.resolveNow(["parallax", "video"])
        #expect(directory.gid(of: "parallax") == 1001)
        #expect(directory.gid(of: "video") == 44)

        // A reload's lookup that hangs: checks still answer at once, from the last answers.
        script.held.withLock { $0 = true }
        script.answers.withLock { $0 = ["parallax": .failed(EIO), "video": .noSuchGroup] }
        directory.refresh(["parallax", "video"])
        while script.waiting.load(ordering: .sequentiallyConsistent) == 0 { usleep(1000) }   // the worker is in
        #expect(directory.gid(of: "parallax") == 1001)
        #expect(directory.gid(of: "video") == 44)
        script.held.withLock { $0 = false }
        while directory.completedResolutions < 2 { usleep(1000) }    // the worker finished
        // The failure kept parallax's gid; video is no group any more.
        #expect(directory.gid(of: "parallax") == 1001)
        #expect(directory.gid(of: "video") == nil)
    }

    @Test func aDirectoryNeverLoadedLooksNothingUp() {
        let script = ScriptedLookup()
        let directory = GroupDirectory(lookup: { script.lookup($0) })
        #expect(directory.gid(of: "parallax", now: .max) == nil)
        #expect(directory.completedResolutions == 0)
    }
}
