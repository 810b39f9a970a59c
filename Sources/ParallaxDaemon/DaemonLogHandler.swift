import Glibc
import Logging
import Synchronization

/// The daemon-wide log level: `--log-level` at start, `LogLevel=` on reload. Every handler reads
/// it, so a change reaches loggers that already exist.
public enum DaemonLogLevel {
    private static let current = Atomic<UInt8>(UInt8(Logger.Level.allCases.firstIndex(of: .info)!))

    public static var level: Logger.Level {
        get { Logger.Level.allCases[Int(current.load(ordering: .relaxed))] }
        set { current.store(UInt8(Logger.Level.allCases.firstIndex(of: newValue)!), ordering: .relaxed) }
    }

    /// Installs the log handler for every logger in the process: structured journal records
    /// when stderr is the journal's stream (a systemd service), else `<N>` lines on stderr.
    public static func bootstrap(level: Logger.Level) {
        self.level = level
        let journal = JournalStream.isJournal(fd: STDERR_FILENO)
        LoggingSystem.bootstrap { DaemonLogHandler(label: $0, journal: journal) }
    }
}

/// The daemon's log handler: structured journal records (JournalFields) when stderr is the
/// journal, otherwise lines on stderr with sd-daemon priority prefixes (`<3>error…`), which
/// journald also understands and a terminal still reads well. One `write(2)` per line so lines
/// from the capture thread and the loop never interleave.
struct DaemonLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    let label: String
    /// Send journal records (true) or write stderr lines (false).
    let journal: Bool

    var logLevel: Logger.Level {
        get { DaemonLogLevel.level }
        set { DaemonLogLevel.level = newValue }
    }

    init(label: String, journal: Bool = false) {
        self.label = label
        self.journal = journal
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if journal {
            let fields = JournalFields.record(
                message: "\(event.message)", priority: Self.syslogPriority(event.level), logger: label,
                metadata: merged.mapValues { "\($0)" }, file: event.file, line: event.line, function: event.function)
            // journald went away (restarting): the stream on stderr still reaches it.
            if JournalFields.send(fields) { return }
        }
        var line = "<\(Self.syslogPriority(event.level))>\(event.message)"
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line += "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    /// syslog(3) priorities, as sd-daemon(3) prefixes expect.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }
}
