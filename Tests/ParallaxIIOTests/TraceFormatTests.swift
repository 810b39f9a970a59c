import Glibc
import ParallaxMotion
import Testing
@testable import ParallaxIIO

@Suite struct TraceFormatTests {
    @Test func parsesFullAndPartialRows() throws {
        let full = try TraceFormat.parseRow("1000000,0.1,-9.8,0.2,0.01,0.02,-0.03", line: 3)
        #expect(full.t == 1_000_000)
        #expect(full.accel == Vector3(0.1, -9.8, 0.2))
        #expect(full.gyro == Vector3(0.01, 0.02, -0.03))
        let gyroOnly = try TraceFormat.parseRow("2000000,,,,0.5,0,0", line: 4)
        #expect(gyroOnly.accel == nil)
        #expect(gyroOnly.gyro == Vector3(0.5, 0, 0))
    }

    @Test(arguments: ["1000,1,2", "abc,1,2,3,4,5,6", "1000,1,x,3,4,5,6", "1000,1,,3,4,5,6", "1000,nan,0,0,0,0,0"])
    func rejectsMalformedRows(row: String) {
        #expect(throws: TraceError.self) { try TraceFormat.parseRow(row[...], line: 7) }
    }

    @Test func formatRoundTrips() throws {
        let sample = Sample(t: 123_456_789, accel: Vector3(0.25, -9.80665, 1e-3), gyro: nil)
        let back = try TraceFormat.parseRow(TraceFormat.formatRow(sample)[...], line: 1)
        #expect(back == sample)
    }

    @Test func readerStreamsAFileAndNamesBadLines() throws {
        let path = try temporaryFile("""
            # device: bmi160
            t_ns,ax,ay,az,gx,gy,gz
            1000,0,-9.81,0,0,0,0
            2000,,,,0.1,0,0

            3000,0,-9.81,0.1,,,
            """)
        defer { unlink(path) }
        let reader = try TraceReader(path: path)
        var samples: [Sample] = []
        while let s = try reader.next() { samples.append(s) }
        #expect(samples.map(\.t) == [1000, 2000, 3000])
        #expect(reader.comments == [" device: bmi160"])

        let bad = try temporaryFile("t_ns,ax,ay,az,gx,gy,gz\n1000,0,-9.81,0,0,0,0\n500,0,-9.81,0,0,0,0\n")
        defer { unlink(bad) }
        let badReader = try TraceReader(path: bad)
        _ = try badReader.next()
        #expect(throws: SensorError.self) { _ = try badReader.next() }
    }

    @Test func missingHeaderIsAnError() throws {
        let path = try temporaryFile("1000,0,-9.81,0,0,0,0\n")
        defer { unlink(path) }
        let error = try #require(throws: SensorError.self) { _ = try TraceReader(path: path).next() }
        #expect(error.message.contains(":1:"))
    }
}

func temporaryFile(_ text: String) throws -> String {
    var template = Array("/tmp/parallax-test-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    try #require(fd >= 0)
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
