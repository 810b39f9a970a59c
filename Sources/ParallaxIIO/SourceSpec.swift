import Logging

/// Where samples come from (parallaxd(8) `--source SPEC`): `auto` (this machine's IIO devices,
/// or its evdev motion device where IIO has no gyroscope: `LocalSources`, the table of kinds),
/// `iio:<libiio URI>` (`iio:local:`, `iio:ip:HOST`, `iio:usb:…`) or `replay:FILE`.
public enum SourceSpec: Sendable, Equatable, CustomStringConvertible {
    case auto
    case iio(uri: String)
    case replay(path: String)

    public init(parsing text: String) throws(SensorError) {
        if text == "auto" {
            self = .auto
        } else if text.hasPrefix("iio:") {
            let uri = String(text.dropFirst(4))
            guard uri.contains(":") else {
                throw SensorError(.invalidSource, "source \"\(text)\": a libiio URI looks like local:, ip:HOST or usb:BUS.DEV")
            }
            self = .iio(uri: uri)
        } else if text.hasPrefix("replay:") {
            let path = String(text.dropFirst(7))
            guard !path.isEmpty else { throw SensorError(.invalidSource, "source \"\(text)\": replay: needs a trace file") }
            self = .replay(path: path)
        } else {
            throw SensorError(.invalidSource, "source \"\(text)\" is not auto, iio:<uri> or replay:<file>")
        }
    }

    /// This machine's own IIO devices, whose arrival the kernel and udev announce.
    public var readsLocalDevices: Bool {
        switch self {
        case .auto: true
        case .iio(let uri): uri == "local:"
        case .replay: false
        }
    }

    /// Read on the event loop itself, without a capture thread (`PollableSource`): a replay,
    /// whose open reads a file's first rows and whose takes never wait.
    public var readsOnLoop: Bool {
        if case .replay = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .iio(let uri): "iio:\(uri)"
        case .replay(let path): "replay:\(path)"
        }
    }

    /// A factory that opens this source's driver (called on the capture thread).
    public func driverFactory(iio: IIOSettings, replaySpeed: Double, replayLoop: Bool,
                              logger: Logger) -> @Sendable () throws(SensorError) -> any SensorDriver {
        switch self {
        case .auto:
            return { () throws(SensorError) -> any SensorDriver in try LocalSources.standard.open(settings: iio, logger: logger) }
        case .iio(let uri):
            var remote = iio
            remote.uri = uri
            let settings = remote
            return { () throws(SensorError) -> any SensorDriver in try IIODriverSelection.open(settings: settings, logger: logger) }
        case .replay(let path):
            return { () throws(SensorError) -> any SensorDriver in
                try ReplayDriver(path: path, speed: replaySpeed, loop: replayLoop, logger: logger)
            }
        }
    }
}
