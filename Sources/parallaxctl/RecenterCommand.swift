// `parallaxctl recenter`: make the current pose the reference (needs root or an admin group).

import ArgumentParser

struct RecenterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recenter", abstract: "Make the device's current pose the resting pose.")

    @OptionGroup var connection: ConnectionOptions
    @ParentCommand var root: ParallaxCtl

    func run() throws {
        let session = try DaemonSession.open(path: socketPath(connection, root.connection))
        try session.expectOK(.recenter)
        try? Console.print("recentered")
    }
}
