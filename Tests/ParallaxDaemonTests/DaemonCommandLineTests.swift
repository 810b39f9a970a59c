import Testing
@testable import ParallaxDaemon

@Suite struct DaemonCommandLineTests {
    private func options(config: String? = nil, socket: String? = nil, source: String? = nil, logLevel: String? = nil) -> DaemonMain.Options {
        DaemonMain.Options(configPath: config, socket: socket, source: source, logLevel: logLevel)
    }

    @Test func servesByDefaultWithEveryOptionInBothSpellings() {
        #expect(DaemonCommandLine.parse([]) == .success(.serve(options())))
        #expect(DaemonCommandLine.parse(["--config", "/a.conf", "--socket=/s", "--source", "replay:/t.csv", "--log-level=debug"])
            == .success(.serve(options(config: "/a.conf", socket: "/s", source: "replay:/t.csv", logLevel: "debug"))))
    }

    @Test func modes() {
        #expect(DaemonCommandLine.parse(["--check-config", "--config", "x"]) == .success(.checkConfig(options(config: "x"))))
        #expect(DaemonCommandLine.parse(["--calibrate", "--seconds", "7.5"]) == .success(.calibrate(options(), seconds: 7.5)))
        #expect(DaemonCommandLine.parse(["--calibrate"]) == .success(.calibrate(options(), seconds: nil)))
        #expect(DaemonCommandLine.parse(["--version"]) == .success(.version))
        #expect(DaemonCommandLine.parse(["--socket", "/s", "-h"]) == .success(.help))
    }

    @Test(arguments: [
        ["--bogus"], ["stray"], ["--config"], ["--seconds", "5"], ["--calibrate", "--seconds", "abc"],
        ["--check-config", "--calibrate"], ["--version=yes"], ["--calibrate", "--seconds", "nan"],
    ])
    func refusesWhatItDoesNotUnderstand(arguments: [String]) {
        guard case .failure(let error) = DaemonCommandLine.parse(arguments) else {
            Issue.record("\(arguments) was accepted")
            return
        }
        #expect(!error.message.isEmpty)
    }

    @Test func helpNamesEveryOption() {
        for option in ["--config", "--socket", "--source", "--log-level", "--check-config", "--calibrate", "--seconds", "--version", "--help"] {
            #expect(DaemonCommandLine.usage.contains(option), "\(option)")
        }
    }
}
