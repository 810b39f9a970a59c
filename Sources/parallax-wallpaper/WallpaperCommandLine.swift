// parallax-wallpaper's command line (docs/man/parallax-wallpaper.1). Parsed by hand: no
// Foundation and no argument-parser in a client that stays resident.

import Glibc

struct WallpaperCommandLine {
    static let usage = """
        usage: parallax-wallpaper [--scene FILE] [--socket PATH] [--output NAME] [--window] [--check] [--stats]

          --scene FILE    the scene (default: $XDG_CONFIG_HOME/parallax-wallpaper/scene.conf)
          --socket PATH   parallaxd's socket (default: $PARALLAXD_SOCKET, else /run/parallaxd/parallaxd.sock)
          --output NAME   only this output (e.g. HDMI-A-1), else every output
          --window        an ordinary window instead of the desktop background (xdg-shell)
          --check         validate the scene and its images, print problems as file:line: message,
                          exit 0 when usable, 78 when not
          --stats         print a line per frame drawn (size, offset) and per frame presented
                          (sample-to-presented latency, prediction error) and, on exit, frames,
                          loop wake-ups and the motion-to-photon summary, to stderr
          -h, --help      this text
        """

    var scene: String?
    var socket: String?
    var output: String?
    var window = false
    var check = false
    var stats = false
    var help = false

    struct UsageError: Error {
        var message: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> WallpaperCommandLine {
        var result = WallpaperCommandLine()
        var rest = arguments[...]
        func value(_ option: String) throws(UsageError) -> String {
            guard let next = rest.popFirst(), !next.isEmpty else { throw UsageError(message: "\(option) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            var option = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                option = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
                if inline?.isEmpty == true { throw UsageError(message: "\(option) needs a value") }
            }
            switch option {
            case "--scene", "--socket", "--output":
                let given: String
                if let inline { given = inline } else { given = try value(option) }
                switch option {
                case "--scene": result.scene = given
                case "--socket": result.socket = given
                default: result.output = given
                }
            case "--window", "--check", "--stats", "-h", "--help":
                if inline != nil { throw UsageError(message: "\(option) takes no value") }
                switch option {
                case "--window": result.window = true
                case "--check": result.check = true
                case "--stats": result.stats = true
                default: result.help = true
                }
            default:
                throw UsageError(message: "unknown argument \(argument)")
            }
        }
        if result.window && result.output != nil {
            throw UsageError(message: "--output and --window do not go together (a window is placed by the compositor)")
        }
        return result
    }

    /// The scene to read: --scene, else $XDG_CONFIG_HOME (or ~/.config)/parallax-wallpaper/scene.conf.
    var scenePath: String {
        if let scene { return scene }
        if let config = Self.environment("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            return config + "/parallax-wallpaper/scene.conf"
        }
        return (Self.environment("HOME") ?? "") + "/.config/parallax-wallpaper/scene.conf"
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
