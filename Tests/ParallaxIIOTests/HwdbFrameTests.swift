// Every ACCEL_MOUNT_MATRIX of the installed systemd hwdb yields a proper fusion frame
// (docs/sensors.md "Mount matrices and the fusion frame"). Reads the real file.
import Testing
import Glibc
import ParallaxIIO
import ParallaxMotion

@Suite struct HwdbFrameTests {
    /// systemd's sensor database as Debian 12 installs it (package udev).
    static let path = "/lib/udev/hwdb.d/60-sensor.hwdb"

    /// `ACCEL_MOUNT_MATRIX=` values of the file, with their line numbers (comments skipped).
    static func entries() throws -> [(line: Int, text: String)] {
        let contents = try #require(readWholeFile(path), "\(path) is missing: apt-get install udev")
        var out: [(Int, String)] = []
        for (number, line) in contents.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("ACCEL_MOUNT_MATRIX=") else { continue }
            out.append((number + 1, String(trimmed.dropFirst("ACCEL_MOUNT_MATRIX=".count))))
        }
        return out
    }

    @Test func everyEntryParsesAndYieldsAProperFrame() throws {
        let entries = try Self.entries()
        // Debian 12's systemd 252 has 203; any systemd has well over a hundred.
        #expect(entries.count >= 100, "only \(entries.count) entries in \(Self.path)")
        var determinants: [Int: Int] = [:]
        var repaired = 0
        for (line, text) in entries {
            let matrix = try #require(DecimalNumber.parseMountMatrix(text), "line \(line): \"\(text)\" does not parse")
            determinants[Int(matrix.determinant.rounded()), default: 0] += 1
            switch FrameDerivation.fromHwdb(matrix) {
            case .failure(let refusal):
                Issue.record("line \(line): \"\(text)\" refused: \(refusal.message)")
            case .success(let frame):
                #expect(frame.accel.isOrthonormal(tolerance: 1e-9), "line \(line)")
                // A chip reporting specific force: the accelerometer matrix mirrors, the rate does not.
                #expect(abs(frame.accel.determinant + 1) < 1e-9 && abs(frame.gyro.determinant - 1) < 1e-9, "line \(line)")
                #expect(frame.isConsistent(tolerance: 1e-9), "line \(line)")
                // The rows hwdb is checked on are kept.
                for (derived, given) in [(frame.accel.rows.0, matrix.rows.0), (frame.accel.rows.1, matrix.rows.1)] {
                    #expect((derived - given.normalized()!).length < 1e-3, "line \(line): \(frame.accel.text)")
                }
                if !frame.repairs.isEmpty { repaired += 1 }
            }
        }
        // What the issue counted: most entries mirror (det −1), some do not, a few are singular;
        // exactly the ones that do not have det −1 need a repair.
        #expect(repaired == entries.count - determinants[-1, default: 0])
        #expect(determinants[-1, default: 0] > determinants[1, default: 0] && determinants[1, default: 0] > 0)
        #expect(determinants[0, default: 0] >= 1)
    }
}

/// The file's text, or nil when it cannot be read.
private func readWholeFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        if n <= 0 { break }
        bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}
