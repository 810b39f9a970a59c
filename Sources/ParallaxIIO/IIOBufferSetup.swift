import CIIO
import Glibc
import Logging

/// Getting a device ready for buffered capture: its trigger, the kernel queue's length and
/// watermark, and what to say when the buffer cannot be made.
extension IIOBufferedDriver {
    /// Uses the device's trigger, or gives it one, in this order (docs/sensors.md "Triggers"):
    /// the one it has (kept, or taken back if a crashed run of ours left it), its own data-ready
    /// trigger "<name>-dev<N>", an hrtimer trigger made through configfs at `rate` Hz (a device
    /// without an interrupt line has a buffer and no trigger of its own), else the first trigger
    /// that is no other device's (a sysfs or hrtimer trigger someone made). A device without a
    /// trigger directory (hardware FIFO) needs none.
    ///
    /// Why never another device's: a HID hub's `accel_3d` enables with `gyro_3d-dev1` and then
    /// receives nothing (measured on Linux 6.1): each hub sensor pushes scans only from its own
    /// trigger. A silent buffer would only be noticed by the first-data timeout.
    static func ensureTrigger(_ device: IIODeviceHandle, context: IIOContext, rate: Double, isLocal: Bool,
                              logger: Logger) throws(Unavailable) -> DeviceTrigger {
        guard isLocal else { return try ensureRemoteTrigger(device, context: context, logger: logger) }
        let dir = "\(HrtimerTrigger.devices)/\(device.id)/trigger"
        guard SysfsText.exists(dir) else { return DeviceTrigger(path: .none) }
        let currentPath = dir + "/current_trigger"
        let current = SysfsText.read(currentPath) ?? ""
        if current.hasPrefix(HrtimerTrigger.namePrefix) {
            let owned = HrtimerTrigger.adopt(name: current, deviceID: device.id, rate: rate, logger: logger)
            return DeviceTrigger(path: .hrtimer, name: current, owned: owned)
        }
        if !current.isEmpty {
            logger.info("\(device.id) (\(device.name)): using its current trigger \(current)")
            return DeviceTrigger(path: .current, name: current)
        }
        let triggers = SysfsText.list(HrtimerTrigger.devices).filter { $0.hasPrefix("trigger") }
            .compactMap { SysfsText.read("\(HrtimerTrigger.devices)/\($0)/name") }
        func assign(_ name: String, _ path: DeviceTrigger.Path) throws(Unavailable) -> DeviceTrigger {
            if let err = SysfsText.write(currentPath, name) {
                throw Unavailable(reason: "cannot assign trigger \(name) to \(device.id): \(SysfsText.describe(errno: err))")
            }
            logger.info("\(device.id) (\(device.name)): assigned trigger \(name)")
            return DeviceTrigger(path: path, name: name)
        }
        let ownName = dataReadyTrigger(of: device)
        if triggers.contains(ownName) { return try assign(ownName, .own) }
        let noHrtimer: String
        do throws(Unavailable) {
            let owned = try HrtimerTrigger.make(for: device.id, rate: rate, logger: logger)
            return DeviceTrigger(path: .hrtimer, name: owned.name, owned: owned)
        } catch {
            noHrtimer = error.reason
        }
        let othersOwn = Set(context.devices.filter { !iio_device_is_trigger($0.pointer) && $0.id != device.id }.map(dataReadyTrigger))
        if let free = triggers.first(where: { !othersOwn.contains($0) && !$0.hasPrefix(HrtimerTrigger.namePrefix) }) {
            logger.info("\(device.id) (\(device.name)): \(noHrtimer)")
            return try assign(free, .other)
        }
        let others = triggers.isEmpty ? "" : " (only other devices' data-ready triggers: \(triggers.joined(separator: ", ")))"
        throw Unavailable(reason: "\(device.id) (\(device.name)) has no trigger and none exists to assign\(others); \(noHrtimer)")
    }

    /// The same through libiio for a remote context (iiod): no configfs there, so no hrtimer.
    static func ensureRemoteTrigger(_ device: IIODeviceHandle, context: IIOContext, logger: Logger) throws(Unavailable) -> DeviceTrigger {
        var current: OpaquePointer?
        let rc = iio_device_get_trigger(device.pointer, &current)
        if rc < 0 {
            if rc == -ENXIO { return DeviceTrigger(path: .current, name: "(outside the context)") }
            logger.debug("\(device.id) (\(device.name)) has no trigger to choose (\(IIOContext.describe(errno: -rc)))")
            return DeviceTrigger(path: .none)
        }
        if let current {
            let name = IIODeviceHandle(pointer: current).name
            logger.info("\(device.id) (\(device.name)): using its current trigger \(name)")
            return DeviceTrigger(path: .current, name: name)
        }
        let devices = context.devices
        let triggers = devices.filter { iio_device_is_trigger($0.pointer) }
        let ownName = dataReadyTrigger(of: device)
        let othersOwn = Set(devices.filter { !iio_device_is_trigger($0.pointer) && $0.id != device.id }.map(dataReadyTrigger))
        let own = triggers.first(where: { $0.name == ownName })
        guard let trigger = own ?? triggers.first(where: { !othersOwn.contains($0.name) }) else {
            let others = triggers.isEmpty ? "" : " (only other devices' data-ready triggers: \(triggers.map(\.name).joined(separator: ", ")))"
            throw Unavailable(reason: "\(device.id) (\(device.name)) has no trigger and none exists to assign\(others)")
        }
        let set = iio_device_set_trigger(device.pointer, trigger.pointer)
        guard set >= 0 else {
            throw Unavailable(reason: "cannot assign trigger \(trigger.name) to \(device.id): \(IIOContext.describe(errno: -set))")
        }
        logger.info("\(device.id) (\(device.name)): assigned trigger \(trigger.name)")
        return DeviceTrigger(path: own != nil ? .own : .other, name: trigger.name)
    }

    /// The name a driver gives its own data-ready trigger: "iio:device3" named "bmi160" → "bmi160-dev3".
    static func dataReadyTrigger(of device: IIODeviceHandle) -> String {
        "\(device.name)-dev\(device.id.dropFirst("iio:device".count))"
    }

    /// Makes the kernel queue deep enough to sleep through and wake poll() at every scan.
    ///
    /// Why: libiio sets buffer/watermark to its refill size (16), and the kernel reports the
    /// buffer readable only once that many scans wait: 80 ms at 200 Hz before the first scan is
    /// seen. Both attributes only change while the buffer is disabled, so briefly disable it.
    /// Returns the queue length in scans and whether the watermark is now 1.
    static func configureKernelQueue(_ device: IIODeviceHandle, logger: Logger) throws(Unavailable) -> (Int, Bool) {
        func write(_ attr: String, _ value: Int) -> Int {
            iio_device_buffer_attr_write(device.pointer, attr, String(value))
        }
        let libiioLength = scansPerRefill * 4
        guard write("enable", 0) >= 0 else {
            logger.info("\(device.id) (\(device.name)): cannot disable the buffer to lower its watermark: reading every half period")
            return (libiioLength, false)
        }
        let length = write("length", kernelQueueScans) >= 0 ? kernelQueueScans : libiioLength
        let watermark = write("watermark", 1)
        let enabled = write("enable", 1)
        guard enabled >= 0 else {
            throw Unavailable(reason: "cannot re-enable the buffer of \(device.id): \(IIOContext.describe(errno: Int32(-enabled)))")
        }
        if watermark < 0 {
            logger.info("\(device.id) (\(device.name)): buffer watermark not settable (\(IIOContext.describe(errno: Int32(-watermark)))): reading every half period")
        }
        return (length, watermark >= 0)
    }

    /// Why `iio_device_create_buffer` failed, in words an administrator can act on.
    static func explainCreateFailure(errno err: Int32, deviceID: String, deviceName: String) -> String {
        switch err {
        case EBUSY: "buffer busy (held by another process, e.g. iio-sensor-proxy)"
        case EACCES, EPERM: "no permission to enable the buffer of \(deviceID) (\(IIOContext.describe(errno: err)))"
        default: "cannot enable the buffer of \(deviceID) (\(deviceName)): \(IIOContext.describe(errno: err))"
        }
    }
}
