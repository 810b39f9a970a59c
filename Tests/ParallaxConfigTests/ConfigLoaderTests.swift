import Glibc
import ParallaxIIO
import ParallaxMotion
import Testing
@testable import ParallaxConfig

@Suite struct ConfigLoaderTests {
    private func parse(_ text: String, file: String = "test.conf") -> ConfigLoad {
        var load = ConfigLoad(config: DaemonConfig(), errors: [], warnings: [], files: [])
        ConfigLoader.parse(text, file: file, into: &load)
        return load
    }

    /// config/parallaxd.conf documents every key as "#Key=default". Uncommented, it must parse
    /// without a warning into exactly the built-in defaults, and name every key the parser knows.
    @Test func documentedConfigMatchesDefaultsAndKnownKeys() throws {
        let path = repositoryRoot() + "/config/parallaxd.conf"
        let text = try #require(try? ConfigLoader.readFile(path).get())
        var documented: [String: Set<String>] = [:]
        var section = ""
        var uncommented: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[") { section = String(line.dropFirst().prefix { $0 != "]" }); uncommented.append(String(line)); continue }
            if line.hasPrefix("#"), let eq = line.firstIndex(of: "="), !line.contains(" ") || line[..<eq].allSatisfy({ $0 != " " }) {
                let key = String(line[line.index(after: line.startIndex)..<eq])
                if !key.isEmpty, key.first!.isUppercase {
                    documented[section, default: []].insert(key)
                    uncommented.append(String(line.dropFirst()))
                }
            }
        }
        let load = parse(uncommented.joined(separator: "\n"))
        #expect(load.errors.isEmpty, "\(load.errors)")
        #expect(load.warnings.isEmpty, "\(load.warnings)")
        #expect(load.config == DaemonConfig())
        for (name, keys) in ConfigKeys.table {
            #expect(documented[name] == Set(keys.keys), "section [\(name)]")
        }
    }

    @Test func appliesValuesAndNamesTheLineOfEachError() {
        let load = parse("""
            # comment
            [Motion]
            Mode=rate
            SaturationAngle=45
            Recenter=banana
            [Sensor]
            Rate=abc
            Source=replay:/tmp/x.csv
            Capture=polled
            """)
        #expect(load.config.motion.mode == .rate)
        #expect(abs(load.config.motion.saturationAngle - .pi / 4) < 1e-12)
        #expect(load.config.source == .replay(path: "/tmp/x.csv"))
        #expect(load.config.capture == .polled && load.config.iioSettings.capture == .polled)
        #expect(load.errors.map(\.line) == [5, 7])
        #expect(load.errors.first?.description.hasPrefix("test.conf:5: [Motion] Recenter=banana") == true)
    }

    /// Beside iio-sensor-proxy the accelerometer is read at the hub's budget whatever the filter's
    /// gain (docs/motion.md "Accelerometer rate"): not the gain's drift-correction rate.
    @Test func thePolledAccelerometerRateIsTheBudgetForEveryGain() {
        #expect(DaemonConfig().iioSettings.polledAccelerometerRate == 25)
        for gain in ["0.1", "10"] {
            let load = parse("[Motion]\nFilterGain=\(gain)\n")
            #expect(load.errors.isEmpty && load.config.motion.filterGain == Double(gain))
            #expect(load.config.iioSettings.polledAccelerometerRate == 25, "FilterGain=\(gain)")
        }
    }

    @Test func syntaxErrorsAndUnknownKeysAreLocated() {
        let load = parse("[Daemon]\nthis line is nonsense\n[Nope]\nX=1\n[Daemon]\nFrobnicate=2\n")
        #expect(load.errors.map(\.line) == [2])
        #expect(load.warnings.map(\.line) == [4, 6])
    }

    @Test(arguments: [
        "[Sensor]\nRate=0", "[Sensor]\nSource=usb", "[Motion]\nMode=wobble", "[Daemon]\nSocket=relative.sock",
        "[Sensor]\nAccelMountMatrix=0, 0, 0; 0, 1, 0; 0, 0, 1", "[Access]\nMaxRate=-3", "[Daemon]\nLogLevel=loud",
        "[Motion]\nSaturationAngle=1,5", "[Sensor]\nCapture=mmap",
    ])
    func refusesBadValues(text: String) {
        #expect(parse(text).errors.count == 1)
    }

    @Test func dropInsOverrideInLexicalOrder() throws {
        var dir = Array("/tmp/parallax-conf-XXXXXX".utf8CString)
        try #require(mkdtemp(&dir) != nil)
        let root = String(decoding: dir.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let main = root + "/parallaxd.conf"
        try write(main, "[Access]\nMaxRate=30\n[Sensor]\nRate=50\n")
        mkdir(main + ".d", 0o755)
        try write(main + ".d/20-b.conf", "[Access]\nMaxRate=20\n")
        try write(main + ".d/10-a.conf", "[Access]\nMaxRate=10\n[Sensor]\nRate=25\n")
        try write(main + ".d/ignored.txt", "[Access]\nMaxRate=99\n")
        let load = ConfigLoader.load(path: main, required: true)
        #expect(load.errors.isEmpty)
        #expect(load.config.maxRate == 20)
        #expect(load.config.pollRate == 25)
        #expect(load.files.map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["parallaxd.conf", "10-a.conf", "20-b.conf"])
    }

    @Test func missingFileIsFineOnlyWhenNotNamed() {
        #expect(ConfigLoader.load(path: "/nonexistent/parallaxd.conf", required: false).errors.isEmpty)
        #expect(ConfigLoader.load(path: "/nonexistent/parallaxd.conf", required: true).errors.count == 1)
    }
}

func write(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// The package root, found from this source file's path (tests run from anywhere).
func repositoryRoot(file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    while let last = parts.last, last != "Tests" { parts.removeLast() }
    parts.removeLast()
    return parts.joined(separator: "/")
}
