import CLinux
import Glibc
import Logging

/// A software trigger the daemon makes through configfs for a device that has a buffer but no
/// trigger of its own: an IMU wired without an interrupt line (bmi160, st_lsm6dsx on the
/// Librem 5, bmi260/bmi323 on handhelds whose ACPI tables give no IRQ). The kernel's hrtimer
/// trigger fires at the rate written to it and the device pushes one scan per firing, with a
/// kernel timestamp (docs/sensors.md "Triggers").
///
/// Named `parallaxd-<device>` so that one left behind by a crashed run is recognised: reused
/// when it still drives that device, removed when it drives nothing. Removed again when the
/// capture closes, after the buffer is disabled (a trigger in use cannot be detached).
final class HrtimerTrigger {
    static let configfs = "/sys/kernel/config"
    static var directory: String { configfs + "/iio/triggers/hrtimer" }
    static let devices = "/sys/bus/iio/devices"
    static let namePrefix = "parallaxd-"
    /// The module that registers the "hrtimer" trigger type in configfs.
    static let module = "iio-trig-hrtimer"

    let name: String
    /// The device it drives ("iio:device3").
    let deviceID: String
    /// Found from an earlier run rather than made now.
    let reused: Bool
    /// The rate it fires at (Hz), as read back; nil if unreadable.
    let rate: Double?
    private var removed = false
    private let logger: Logger

    /// "iio:device3" → "parallaxd-device3".
    static func name(for deviceID: String) -> String {
        namePrefix + (deviceID.hasPrefix("iio:") ? String(deviceID.dropFirst(4)) : deviceID)
    }

    private init(name: String, deviceID: String, reused: Bool, rate: Double?, logger: Logger) {
        self.name = name
        self.deviceID = deviceID
        self.reused = reused
        self.rate = rate
        self.logger = logger
    }

    /// Makes (or takes back from an earlier run) the trigger for `deviceID`, firing at `rate` Hz,
    /// and makes it the device's current trigger. Throws why not, in words an administrator can
    /// act on (status shows them as the reason for polling).
    static func make(for deviceID: String, rate: Double, logger: Logger) throws(IIOBufferedDriver.Unavailable) -> HrtimerTrigger {
        try ensureAvailable(logger: logger)
        removeStale(logger: logger)
        let name = name(for: deviceID)
        let path = directory + "/" + name
        var reused = false
        if mkdir(path, 0o755) != 0 {
            let err = errno
            guard err == EEXIST else {
                throw .init(reason: "cannot make an hrtimer trigger (mkdir \(path): \(SysfsText.describe(errno: err)))")
            }
            reused = true
        }
        guard let triggerDir = sysfsDirectory(named: name) else {
            rmdir(path)
            throw .init(reason: "the hrtimer trigger \(name) made in configfs has no IIO trigger device")
        }
        // Made this instant: udev has yet to give the service's group its rate (UdevGrant).
        if let err = UdevGrant.write(triggerDir + "/sampling_frequency", FixedRate(rate).description) {
            logger.warning("hrtimer trigger \(name): cannot set its rate to \(FixedRate(rate)) Hz (\(SysfsText.describe(errno: err)))")
        }
        let actual = SysfsText.read(triggerDir + "/sampling_frequency").flatMap(SamplingRate.parse)
        let trigger = HrtimerTrigger(name: name, deviceID: deviceID, reused: reused, rate: actual, logger: logger)
        if let err = SysfsText.write("\(devices)/\(deviceID)/trigger/current_trigger", name) {
            trigger.remove()
            throw .init(reason: "cannot assign the hrtimer trigger \(name) to \(deviceID) (trigger/current_trigger: \(SysfsText.describe(errno: err)))")
        }
        logger.notice("\(deviceID): \(reused ? "reusing" : "made") hrtimer trigger \(name) at \(actual.map { "\(FixedRate($0)) Hz" } ?? "an unknown rate")")
        return trigger
    }

    /// Takes over a trigger of ours that a crashed run left as the device's current trigger.
    static func adopt(name: String, deviceID: String, rate: Double, logger: Logger) -> HrtimerTrigger {
        let dir = sysfsDirectory(named: name)
        if let dir { SysfsText.write(dir + "/sampling_frequency", FixedRate(rate).description) }
        let actual = dir.flatMap { SysfsText.read($0 + "/sampling_frequency") }.flatMap(SamplingRate.parse)
        logger.notice("\(deviceID): reusing hrtimer trigger \(name) left by an earlier run")
        return HrtimerTrigger(name: name, deviceID: deviceID, reused: true, rate: actual, logger: logger)
    }

    /// Detaches it from its device (if it is still that device's trigger) and removes it.
    /// Call after the buffer is disabled; more than once is harmless.
    func remove() {
        guard !removed else { return }
        removed = true
        let current = "\(Self.devices)/\(deviceID)/trigger/current_trigger"
        if SysfsText.read(current) == name, let err = SysfsText.write(current, "\n") {
            logger.warning("\(deviceID): cannot detach trigger \(name) (\(SysfsText.describe(errno: err)))")
        }
        if rmdir(Self.directory + "/" + name) != 0 && errno != ENOENT {
            logger.warning("cannot remove hrtimer trigger \(name) (\(SysfsText.describe(errno: errno))): it stays until the next start")
        } else {
            logger.info("\(deviceID): removed hrtimer trigger \(name)")
        }
    }

    /// The configfs hrtimer directory exists, or is made to: configfs mounted, the module loaded.
    static func ensureAvailable(logger: Logger) throws(IIOBufferedDriver.Unavailable) {
        if SysfsText.exists(directory) { return }
        // Mounting and loading modules act on the machine: never when /sys is a test bed's
        // (umockdev, which also answers statfs("/sys") as sysfs: its variable is the tell).
        guard getenv("UMOCKDEV_DIR") == nil else {
            throw .init(reason: "no hrtimer trigger: /sys is not the kernel's sysfs")
        }
        // The module first: it brings configfs, whose mount point exists only once configfs is loaded.
        var why: [String] = []
        let loaded = loadModule(module)
        if !SysfsText.exists(configfs + "/iio") && SysfsText.list(configfs).isEmpty {
            if mount("configfs", configfs, "configfs", 0, nil) == 0 {
                logger.info("mounted configfs at \(configfs)")
            } else {
                why.append("configfs is not mounted at \(configfs) and mounting it failed (\(SysfsText.describe(errno: errno)))")
            }
        }
        if why.isEmpty && !SysfsText.exists(directory) {
            why.append("\(module) is not loaded (\(loaded))")
        }
        if !why.isEmpty {
            throw .init(reason: "no hrtimer trigger: " + why.joined(separator: "; ") + " (docs/operations.md \"Software triggers\")")
        }
    }

    /// Removes triggers of ours that drive no device (left by a crashed run whose device went).
    static func removeStale(logger: Logger) {
        let entries = SysfsText.list(devices)
        let inUse = Set(entries.filter { $0.hasPrefix("iio:device") }.compactMap { SysfsText.read("\(devices)/\($0)/trigger/current_trigger") })
        for name in SysfsText.list(directory) where name.hasPrefix(namePrefix) && !inUse.contains(name) {
            if rmdir(directory + "/" + name) == 0 { logger.info("removed stale hrtimer trigger \(name)") }
        }
    }

    /// /sys/bus/iio/devices/triggerN of the trigger called `name`.
    static func sysfsDirectory(named name: String) -> String? {
        SysfsText.list(devices).filter { $0.hasPrefix("trigger") }
            .map { "\(devices)/\($0)" }
            .first { SysfsText.read($0 + "/name") == name }
    }

    /// Runs `modprobe -q NAME`; what came of it, in words.
    static func loadModule(_ name: String) -> String {
        guard let modprobe = ["/usr/sbin/modprobe", "/sbin/modprobe"].first(where: { (path: String) in access(path, X_OK) == 0 }) else {
            return "no modprobe to load it"
        }
        let rc = plx_run_and_wait(modprobe, "-q", name)
        if rc < 0 { return "modprobe could not start: \(SysfsText.describe(errno: -rc))" }
        return rc == 0 ? "modprobe succeeded" : "modprobe \(name) failed with exit status \(rc)"
    }
}
