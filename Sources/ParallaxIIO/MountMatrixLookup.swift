import CSystemd
import Logging
import ParallaxMotion

/// Finds a sensor's mount matrix in the order of docs/frames.md: a config override, then (accelerometer
/// only) the udev property ACCEL_MOUNT_MATRIX, then sysfs `mount_matrix`,
/// `in_<type>_mount_matrix`, `in_mount_matrix`, and finally the identity.
///
/// A candidate that does not parse, has a row of zeros or is not finite is skipped with a warning:
/// a broken hwdb entry must not flatten the motion to nothing. A matrix that parses but is not
/// orthonormal is used (scaling matrices exist in the wild) with a warning.
struct MountMatrixLookup {
    var logger: Logger

    func find(kind: SensorKind, device: IIODeviceHandle, firstChannel: IIOChannelHandle,
              override: MountMatrix?, isLocal: Bool) -> (MountMatrix, String) {
        if let override { return (override, "config override") }
        var candidates: [(String, () -> String?)] = []
        if kind == .accelerometer && isLocal {
            candidates.append(("udev ACCEL_MOUNT_MATRIX", { udevProperty(device: device.id, "ACCEL_MOUNT_MATRIX") }))
        }
        candidates.append(("sysfs mount_matrix", { try? device.read("mount_matrix").get() }))
        candidates.append(("sysfs in_\(kind == .accelerometer ? "accel" : "anglvel")_mount_matrix",
                           { try? firstChannel.read("mount_matrix").get() }))
        candidates.append(("sysfs in_mount_matrix", { inMountMatrix(device) }))
        for (source, read) in candidates {
            guard let text = read() else { continue }
            guard let matrix = SysfsNumber.parseMountMatrix(text), matrix.isFinite, !matrix.isZeroRow else {
                logger.warning("\(device.id) (\(device.name)): ignoring unusable \(source) \"\(text)\"; trying the next source")
                continue
            }
            if !matrix.isOrthonormal(tolerance: 1e-3) {
                logger.warning("\(device.id) (\(device.name)): \(source) \"\(text)\" is not orthonormal; using it anyway")
            }
            return (matrix, source)
        }
        return (.identity, "identity")
    }

    /// libiio shows sysfs `in_mount_matrix` as channel "mount", attribute "matrix".
    private func inMountMatrix(_ device: IIODeviceHandle) -> String? {
        for channel in device.channels where channel.id == "mount" && channel.hasAttribute("matrix") {
            return try? channel.read("matrix").get()
        }
        return nil
    }
}

/// A udev property of an IIO device, through libsystemd's sd-device (works under umockdev too).
func udevProperty(device sysname: String, _ key: String) -> String? {
    var device: OpaquePointer?
    guard sd_device_new_from_subsystem_sysname(&device, "iio", sysname) >= 0, let device else { return nil }
    defer { sd_device_unref(device) }
    var value: UnsafePointer<CChar>?
    guard sd_device_get_property_value(device, key, &value) >= 0, let value else { return nil }
    return String(cString: value)
}
