import CSystemd
import Glibc

/// Whether udev has finished with a device that just appeared: its rules ran (the node's group
/// and mode, the daemon's sysfs grants) and hwdb's properties (ACCEL_MOUNT_MATRIX) are there.
///
/// Why the daemon asks: the kernel announces a device before udev has done any of that, and an
/// open then fails with EACCES or reads no mount matrix. udev's own events, sent after its rules
/// ran, would say it, but they are multicast on the host's network namespace and never reach the
/// installed service (`PrivateNetwork=yes`); the kernel's do. So arrivals are heard from the
/// kernel, and each device is opened once udev's database marks it initialized and udev's event
/// queue is empty: udev writes its database before it runs a rule's `RUN+=` programs (our access
/// helper, which grants the sysfs attributes), and an event leaves the queue only after them
/// (what `udevadm settle` waits for). The booted lab showed an open between the two refused.
public enum UdevReadiness {
    /// Whether systemd-udevd manages devices here (its control socket exists). Without it (a
    /// container, the lab's plain guest, umockdev) a device is ready when the kernel says so.
    public static var udevRuns: Bool { access("/run/udev/control", F_OK) == 0 }

    /// True when udev has initialized the device (`subsystem` "iio" or "input", `sysname`
    /// "iio:device0" or "event5"), when no udev runs, or when the device is gone again (there
    /// is nothing to wait for).
    public static func isReady(subsystem: String, sysname: String) -> Bool {
        guard udevRuns else { return true }
        var device: OpaquePointer?
        guard sd_device_new_from_subsystem_sysname(&device, subsystem, sysname) >= 0, let device else { return true }
        defer { sd_device_unref(device) }
        return sd_device_get_is_initialized(device) > 0 && !eventsQueued
    }

    /// systemd-udevd keeps `/run/udev/queue` while it has events not yet done (`RUN+=` included).
    static var eventsQueued: Bool { access("/run/udev/queue", F_OK) == 0 }
}
