// --socket, shared by the root command and every subcommand so it works on either side of the
// subcommand name: `parallaxctl --socket X monitor` and `parallaxctl monitor --socket X`.

import ArgumentParser
import ParallaxClient

struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "parallaxd's socket (default: $PARALLAXD_SOCKET, else \(ParallaxConnection.systemSocketPath)).",
            valueName: "path"))
    var socket: String?

    /// The path chosen on the command line, falling back to the environment and the system path.
    var socketPath: String { socket ?? ParallaxConnection.defaultSocketPath }
}

/// The socket path given to this subcommand, or else to the root command, or else the default.
func socketPath(_ own: ConnectionOptions, _ root: ConnectionOptions) -> String {
    own.socket ?? root.socketPath
}
