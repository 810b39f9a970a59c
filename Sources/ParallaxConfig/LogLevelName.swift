import Logging

/// `--log-level` / `[Daemon] LogLevel=` values.
public enum LogLevelName {
    public static func parse(_ text: String) -> Logger.Level? {
        switch text.lowercased() {
        case "error", "err": .error
        case "warning", "warn": .warning
        case "notice": .notice
        case "info": .info
        case "debug": .debug
        case "trace": .trace
        case "critical", "crit": .critical
        default: nil
        }
    }
}
