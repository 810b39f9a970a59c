import Testing
import ParallaxConfig
@testable import ParallaxDaemon

/// Which mappings of /proc/self/smaps may be let go of after start-up: read-only executable
/// mappings of files without a copy-on-write page, nothing else.
@Suite struct StartupCodePagesTests {
    static func mapping(_ header: String, rss: Int, anonymous: Int) -> String {
        """
        \(header)
        Size:                132 kB
        Rss:                 \(rss) kB
        Pss:                 \(rss) kB
        Anonymous:           \(anonymous) kB
        VmFlags: rd ex mr mw me sd

        """
    }

    static let smaps = [
        mapping("55d0c0a00000-55d0c1200000 r-xp 00200000 fd:01 1234   /usr/bin/parallaxd", rss: 6628, anonymous: 0),
        mapping("55d0c1200000-55d0c1300000 r--p 00a00000 fd:01 1234   /usr/bin/parallaxd", rss: 900, anonymous: 356),
        mapping("55d0c1300000-55d0c1310000 rw-p 00b00000 fd:01 1234   /usr/bin/parallaxd", rss: 64, anonymous: 64),
        mapping("7f1a2b000000-7f1a2b180000 r-xp 00028000 fd:01 99     /usr/lib/x86_64-linux-gnu/libc.so.6", rss: 1200, anonymous: 0),
        mapping("7f1a2c000000-7f1a2c010000 r-xp 00001000 fd:01 77     /opt/lib with space/libtextrel.so", rss: 40, anonymous: 8),
        mapping("7f1a2d000000-7f1a2d020000 r-xp 00000000 00:00 0      ", rss: 8, anonymous: 8),
        mapping("7ffd1e9f0000-7ffd1e9f2000 r-xp 00000000 00:00 0      [vdso]", rss: 4, anonymous: 0),
        mapping("7f1a2e000000-7f1a2e001000 r-xp 00000000 fd:01 55     /usr/lib/x86_64-linux-gnu/libinih.so.1", rss: 4, anonymous: 0),
    ].joined()

    @Test func onlyExecutableFileMappingsWithoutWrittenPagesAreLetGo() {
        let found = StartupCodePages.releasable(smaps: Self.smaps)
        #expect(found.map(\.path) == ["/usr/bin/parallaxd", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                                      "/usr/lib/x86_64-linux-gnu/libinih.so.1"])
        #expect(found[0] == StartupCodePages.Mapping(start: 0x55d0c0a00000, end: 0x55d0c1200000,
                                                     path: "/usr/bin/parallaxd", residentKiB: 6628))
        let resident: [Int] = found.map(\.residentKiB)
        #expect(resident == [6628, 1200, 4])
    }

    @Test func garbageAndTruncatedTextGiveNothingToLetGo() {
        #expect(StartupCodePages.releasable(smaps: "").isEmpty)
        #expect(StartupCodePages.releasable(smaps: "zz-yy r-xp 0 0 0 /x\nRss: 4 kB\n").isEmpty)
        #expect(StartupCodePages.releasable(smaps: "20-10 r-xp 0 0 0 /x\n").isEmpty)
        // A mapping cut before its Anonymous line: nothing says no page was written, so it stays.
        #expect(StartupCodePages.releasable(smaps: "10-20 r-xp 0 0 0 /x\nRss: 4 kB\n").isEmpty)
        #expect(StartupCodePages.releasable(smaps: "10-20 r-xp 0 0 0 /x\nRss: 4 kB\nAnonymous: 0 kB\n").map(\.path) == ["/x"])
    }

    @Test func theDaemonsOwnMappingsParse() throws {
        // This test process's own smaps: its executable's code is among them.
        let text = try ConfigLoader.readFile("/proc/self/smaps").get()
        #expect(!StartupCodePages.releasable(smaps: text).isEmpty)
    }
}
