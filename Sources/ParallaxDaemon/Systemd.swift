import CLinux
import CSystemd
import Glibc

/// The daemon's side of systemd's protocols: readiness and status notifications, the watchdog,
/// and sockets passed by socket activation. All of it is a no-op without systemd.
enum Systemd {
    /// Sends a notification ("READY=1\nSTATUS=…") to $NOTIFY_SOCKET, if there is one.
    static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// The watchdog interval (ns) systemd expects pings within, or nil if none is set. At most
    /// `longestWatchdogInterval`: WATCHDOG_USEC may be anything below 2^64 − 1, which in ns need
    /// not fit an Int64, and pinging more often than asked is always allowed.
    static func watchdogInterval() -> Int64? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Int64(min(usec, UInt64(longestWatchdogInterval / 1000))) * 1000
    }

    /// An hour (ns).
    static let longestWatchdogInterval: Int64 = 3_600_000_000_000

    /// The watchdog interval asked for while the system sleeps (ns): CLOCK_MONOTONIC, which
    /// systemd's watchdog counts, runs on while user space is frozen and devices suspend, and a
    /// suspend whose devices are slow to answer outlasted the unit's 30 s in the lab (a HID hub
    /// whose firmware was frozen with user space: 30.6 s), so systemd killed the service as hung at
    /// the resume. Ten minutes still catches a daemon that hangs across a sleep.
    static let watchdogIntervalAcrossSleep: Int64 = 600_000_000_000

    /// Asks systemd for the watchdog interval `ns` from now on (`WATCHDOG_USEC=`, systemd ≥ 236),
    /// or, with nil, for the unit's own again, with a ping. A no-op without a watchdog.
    static func overrideWatchdog(_ ns: Int64?) {
        guard let own = watchdogInterval() else { return }
        notify("WATCHDOG_USEC=\((ns ?? own) / 1000)\nWATCHDOG=1")
    }

    /// The listening socket passed by socket activation (LISTEN_FDS / LISTEN_PID), if any.
    /// Takes only the first one; more are logged by the caller and closed.
    static func activatedListener() -> Result<Int32?, ListenerError> {
        let n = sd_listen_fds(1)
        if n < 0 { return .failure(ListenerError("LISTEN_FDS is set but unusable: \(String(cString: strerror(-n)))")) }
        if n == 0 { return .success(nil) }
        let fd = SD_LISTEN_FDS_START
        for extra in 1..<Int(n) { close(fd + Int32(extra)) }
        guard plx_is_unix_listener(fd) == 1 else {
            return .failure(ListenerError("the socket passed by systemd (fd \(fd)) is not a listening Unix stream socket"))
        }
        _ = plx_set_nonblocking(fd)
        _ = plx_set_cloexec(fd)
        return .success(fd)
    }
}

struct ListenerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// STATUS= lines: what `systemctl status parallaxd` shows under "Status:".
extension Daemon {
    /// "serving on /run/parallaxd/parallaxd.sock, sensor ok, calibrated".
    var servingStatus: String {
        "serving on \(server.listener.description), sensor \(supervisor.state.rawValue)"
            + (reduceMotion ? ", reduce motion" : "") + (calibration != nil ? ", calibrated" : ", not calibrated")
    }

    /// Sends the current status (with READY=1 after a reload).
    func notifyServing(ready: Bool = false) {
        Systemd.notify((ready ? "READY=1\n" : "") + "STATUS=\(servingStatus)")
    }
}
