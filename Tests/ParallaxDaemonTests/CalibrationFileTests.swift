import Glibc
import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol
import Testing
@testable import ParallaxDaemon

/// The calibration file: what is written is what the daemon reads back, and replacing it is
/// atomic (old or new, never torn, no temporary left behind).
@Suite struct CalibrationFileTests {
    static let measurement = CalibrationMeasurement(
        samples: 500, seconds: 5.01, gyroBias: Vector3(0.020235, -0.014910, 0.009585),
        gyroNoise: Vector3(0.0011, 0.0012, 0.0009), accelMean: Vector3(0.0123, -9.8061, 0.2),
        accelNoise: Vector3(0.02, 0.021, 0.019), accelScaleError: 0.00021)

    /// A fresh directory under /tmp, removed by the caller's defer.
    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/plx-calfile-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!).map { String(cString: $0) } }
        return try #require(made)
    }

    static func removeTree(_ path: String) {
        guard let dir = opendir(path) else { unlink(path); return }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            removeTree(path + "/" + name)
        }
        closedir(dir)
        rmdir(path)
    }

    static func read(_ path: String) -> String? { try? ConfigLoader.readFile(path).get() }

    static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    @Test func writtenFileLoadsBackAsTheSameBias() throws {
        let dir = try Self.temporaryDirectory()
        defer { Self.removeTree(dir) }
        let path = dir + "/state/calibration.conf"  // the directory does not exist yet
        let text = CalibrationFile.render(Self.measurement, sensors: "accel bmi160 (iio:device0)", writtenBy: "a test")
        try CalibrationFile.write(text, to: path).get()
        let loaded = try #require(try Calibration.load(path: path).get())
        #expect((loaded.gyroBias - Self.measurement.gyroBias).length < 1e-6)
        #expect(Self.entries(dir + "/state") == ["calibration.conf"], "no temporary file is left")
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == CalibrationFile.mode)
        // The reference values are in the file too, under their own sections.
        let written = try #require(Self.read(path))
        #expect(written.contains("[Accelerometer]\n"))
        #expect(written.contains("Mean=0.0123, -9.8061, 0.2000"))
        #expect(written.contains("ScaleError=0.00021"))
    }

    @Test func replacingKeepsNoTraceOfTheOldFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { Self.removeTree(dir) }
        let path = dir + "/calibration.conf"
        let old = String(repeating: "# a long old file\n", count: 500) + "[Gyroscope]\nBias=0.1, 0.1, 0.1\n"
        try CalibrationFile.write(old, to: path).get()
        var m = Self.measurement
        m.gyroBias = Vector3(-0.001, 0.002, -0.003)
        try CalibrationFile.write(CalibrationFile.render(m, sensors: "s", writtenBy: "t"), to: path).get()
        let loaded = try #require(try Calibration.load(path: path).get())
        #expect((loaded.gyroBias - m.gyroBias).length < 1e-9)
        #expect(Self.read(path)?.contains("a long old file") == false)
    }

    @Test func aFailedWriteLeavesTheOldFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { Self.removeTree(dir) }
        let path = dir + "/calibration.conf"
        try CalibrationFile.write("[Gyroscope]\nBias=0.01, 0.02, 0.03\n", to: path).get()
        // The temporary name is taken by a directory: the write must fail without touching the file.
        #expect(mkdir(dir + "/.calibration.conf.tmp", 0o755) == 0)
        let result = CalibrationFile.write("[Gyroscope]\nBias=0.5, 0.5, 0.5\n", to: path)
        guard case .failure(let error) = result else { Issue.record("write succeeded"); return }
        #expect(error.description.contains(".calibration.conf.tmp"))
        #expect(Self.read(path) == "[Gyroscope]\nBias=0.01, 0.02, 0.03\n")
    }

    /// The protocol's calibration lines survive encoding and decoding.
    @Test func calibrationLinesRoundTrip() {
        let result = Self.measurement.report(file: "/var/lib/parallaxd/calibration.conf")
        for report in [CalibrationReport.progress(0.4), .finished(result), .failed(.moved, message: "the device \"moved\"")] {
            let line = ServerMessage.calibration(report, id: .string("c1")).encode()
            #expect(line.last == UInt8(ascii: "\n"))
            let decoded = ServerMessage.decode(line: line.dropLast())
            #expect(decoded == .calibration(report, id: .string("c1")), "\(String(decoding: line, as: UTF8.self))")
        }
        let text = String(decoding: ServerMessage.calibration(.progress(0.4), id: nil).encode(), as: UTF8.self)
        #expect(text == "{\"type\":\"calibration\",\"progress\":0.4}\n")
    }
}
