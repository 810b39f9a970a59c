// `parallaxctl reduce-motion on|off`: switch reduce motion at run time (needs root or an admin group).

import ArgumentParser

struct ReduceMotionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reduce-motion", abstract: "Turn reduce motion on (offsets stay at 0, sensors close) or off.")

    enum Setting: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var connection: ConnectionOptions
    @ParentCommand var root: ParallaxCtl

    @Argument(help: "on or off.")
    var setting: Setting

    func run() throws {
        let session = try DaemonSession.open(path: socketPath(connection, root.connection))
        try session.expectOK(.setReduceMotion(setting == .on))
        try? Console.print("reduce motion \(setting.rawValue)")
    }
}
