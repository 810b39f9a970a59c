// parallaxctl: talk to a running parallaxd from a terminal (parallaxctl(1), docs/man/parallaxctl.1).

import ArgumentParser
import ParallaxProtocol

@main
struct ParallaxCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parallaxctl",
        abstract: "Watch and control parallaxd, the device-tilt (parallax) daemon.",
        discussion: """
            --socket may be given before or after the subcommand. PARALLAXD_SOCKET sets the \
            default socket path.
            """,
        version: ProtocolConstants.serverVersion,
        subcommands: [
            MonitorCommand.self, StatusCommand.self, RecenterCommand.self, ReduceMotionCommand.self,
            SimulateCommand.self, RecordCommand.self, FrameCommand.self,
        ])

    @OptionGroup var connection: ConnectionOptions
}
