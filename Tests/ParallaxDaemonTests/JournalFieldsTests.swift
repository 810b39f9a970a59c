import Glibc
import Testing
@testable import ParallaxDaemon

/// Journal records: field names journald accepts, the fixed fields, and recognising the
/// journal's stream from JOURNAL_STREAM.
@Suite struct JournalFieldsTests {
    @Test(arguments: [
        ("client", "CLIENT"), ("peer.uid", "PEER_UID"), ("_pid", "PID"), ("__x", "X"),
        ("2fast", "F2FAST"), ("Grüße", "GR__E"), ("", nil), ("___", nil),
    ] as [(String, String?)])
    func metadataKeysBecomeValidFieldNames(key: String, name: String?) {
        #expect(JournalFields.fieldName(key) == name)
    }

    @Test func longKeysAreCut() {
        let name = JournalFields.fieldName(String(repeating: "a", count: 100))
        #expect(name?.count == JournalFields.maxNameLength)
    }

    @Test func recordCarriesMessagePriorityAndSource() {
        let fields = JournalFields.record(message: "two\nlines", priority: 4, logger: "parallaxd.sensors",
                                          metadata: ["client": "3", "message": "not the message", "PRIORITY": "0"],
                                          file: "ParallaxDaemon/X.swift", line: 12, function: "f()")
        #expect(fields.contains("MESSAGE=two\nlines"))
        #expect(fields.contains("PRIORITY=4"))
        #expect(fields.contains("SYSLOG_IDENTIFIER=parallaxd"))
        #expect(fields.contains("PARALLAXD_LOGGER=parallaxd.sensors"))
        #expect(fields.contains("CODE_LINE=12"))
        #expect(fields.contains("CLIENT=3"))
        // Metadata cannot overwrite the record's own fields.
        #expect(fields.filter { $0.hasPrefix("MESSAGE=") }.count == 1)
        #expect(fields.filter { $0.hasPrefix("PRIORITY=") } == ["PRIORITY=4"])
    }

    @Test func journalStreamMatchesOnlyItsOwnDescriptor() throws {
        let fd = open("/dev/null", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var st = stat()
        try #require(fstat(fd, &st) == 0)
        #expect(JournalStream.isJournal(fd: fd, journalStream: "\(st.st_dev):\(st.st_ino)"))
        #expect(!JournalStream.isJournal(fd: fd, journalStream: "\(st.st_dev):\(st.st_ino + 1)"))
        #expect(!JournalStream.isJournal(fd: fd, journalStream: nil))
        #expect(!JournalStream.isJournal(fd: fd, journalStream: "garbage"))
        #expect(JournalStream.parse("8:12345")! == (8, 12345))
        #expect(JournalStream.parse("8:") == nil)
    }
}
