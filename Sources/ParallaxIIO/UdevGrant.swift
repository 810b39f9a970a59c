import CLinux
import Glibc

/// Writing an attribute of a device the daemon made itself, which udev has yet to hand over.
///
/// Why: the installed service runs unprivileged; 61-parallaxd.rules gives its group write access
/// to a device's attributes when udev handles the kernel's `add` event. An hrtimer trigger made
/// through configfs exists the moment `mkdir` returns, and its rate is written at once: before
/// udev got to it, the write is refused (EACCES). The service cannot hear udev's own event (its
/// private network namespace gets the kernel's uevents only), so it waits for what the rule does
/// to the file itself: udev's chgrp and chmod change its attributes (inotify IN_ATTRIB, which
/// sysfs reports like any file system). As root (the lab, a run by hand) the first write takes.
enum UdevGrant {
    /// How long a refused write waits for udev to change the file (ns). udev handles an event in
    /// milliseconds, but a starved machine (the booted lab's guest under TCG beside other work)
    /// once took over a second, and the trigger then kept its default rate. Without the rule
    /// installed this is the whole cost, once per trigger, and only a service allowed to make
    /// triggers yet not given their attributes pays it.
    static let wait: Int64 = 5_000_000_000

    /// How often a refused write is tried again without an event (ns). Under systemd 257 and later
    /// the service's private network namespace comes with its own sysfs mount (another super
    /// block): udev's chgrp and chmod, made through the host's, raise no inotify event there
    /// (seen on Debian 13 and forky), so the watch alone would wait out `wait` and give up.
    static let retryInterval: Int64 = 100_000_000

    /// Writes `value` to `path`; while refused with EACCES, waits for the file's attributes to
    /// change (or `retryInterval`) and tries again, until `wait` has passed. nil once written,
    /// the errno otherwise.
    static func write(_ path: String, _ value: String) -> Int32? {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return SysfsText.write(path, value) }
        defer { close(fd) }
        // Watched before the first attempt: a change between the attempt and the wait is not missed.
        let watched = inotify_add_watch(fd, path, UInt32(IN_ATTRIB)) >= 0
        var refused = SysfsText.write(path, value)
        guard watched else { return refused }
        let deadline = plx_monotonic_ns() + wait
        var events = [UInt8](repeating: 0, count: 1024)
        while refused == EACCES {
            let left = deadline - plx_monotonic_ns()
            guard left > 0 else { break }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&ready, 1, Int32(clamping: (min(left, retryInterval) + 999_999) / 1_000_000))
            if n < 0 && errno == EINTR { continue }
            if n > 0 { _ = events.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            refused = SysfsText.write(path, value)
        }
        return refused
    }
}
