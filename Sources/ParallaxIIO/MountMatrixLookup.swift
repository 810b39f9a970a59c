import CSystemd
import Logging
import ParallaxMotion

/// Finds the matrices in the lookup order (config override, then for the accelerometer the udev
/// property ACCEL_MOUNT_MATRIX, then sysfs `mount_matrix`, `in_<type>_mount_matrix`,
/// `in_mount_matrix`, finally the identity) and turns the first usable one into ONE proper frame
/// for both sensors with the rule of its source (`FrameDerivation`, docs/sensors.md "Mount
/// matrices and the fusion frame").
///
/// A candidate that does not parse, or that no rule can repair (a zero x or y row, x ∥ y, not
/// finite), is refused with a warning and the next source is tried; the identity is the last.
struct MountMatrixLookup {
    var logger: Logger

    /// The accelerometer's frame (its `gyro` is what a gyroscope of the same chip gets).
    func accelerometerFrame(_ channels: IIODiscovery.Channels, isLocal: Bool,
                            accelOverride: MountMatrix?, gyroOverride: MountMatrix?) -> SensorFrame {
        let device = channels.device
        var candidates: [(String, FrameSource, () -> String?)] = []
        if isLocal {
            candidates.append(("udev ACCEL_MOUNT_MATRIX", .hwdb, { udevProperty(device: device.id, "ACCEL_MOUNT_MATRIX") }))
        }
        candidates += kernelCandidates(channels, type: "accel")
        let found = firstUsable(candidates, device: device) ?? Self.frameWithoutMatrix(device.name)
        let frame = FrameDerivation.fromOverride(accel: accelOverride, gyro: gyroOverride, otherwise: found)
        report(frame, kind: .accelerometer, device: device)
        return frame
    }

    /// The gyroscope's matrix and a description of where it comes from. One chip, one frame: a
    /// gyroscope on the accelerometer's device uses the accelerometer's frame (its own kernel
    /// matrix only where the accelerometer has none); a separate one (HID sensor hubs) uses its
    /// own kernel matrix by the kernel rule, else the accelerometer's frame.
    func gyroscopeMatrix(_ channels: IIODiscovery.Channels, accelerometer: SensorFrame, accelDevice: String,
                         gyroOverride: MountMatrix?) -> (MountMatrix, String, [String]) {
        if gyroOverride != nil { return (accelerometer.gyro, "config GyroMountMatrix", []) }
        let own = firstUsable(kernelCandidates(channels, type: "anglvel"), device: channels.device)
        let shared = "the accelerometer's frame (\(accelerometer.source.rawValue))"
        guard let own else { return (accelerometer.gyro, shared, []) }
        if channels.device.id == accelDevice && accelerometer.source != .identity && accelerometer.source != .chip {
            guard own.gyro != accelerometer.gyro else { return (accelerometer.gyro, shared, []) }
            let note = "the gyroscope's own kernel matrix \(own.given.text) disagrees with the accelerometer's frame; one chip, one frame: the accelerometer's is used"
            logger.warning("\(channels.device.id) (\(channels.device.name)): \(note)")
            return (accelerometer.gyro, shared, [note])
        }
        return (own.gyro, "its own kernel matrix", own.repairs)
    }

    /// The IIO device names of the kernel's HID sensor drivers (hid-sensor-accel-3d, -gyro-3d,
    /// -incl-3d, -magn-3d, -rotation). A name says it for local and remote devices alike.
    static let hidSensorNames: Set<String> = ["accel_3d", "gravity", "gyro_3d", "incli_3d", "magn_3d", "dev_rotation"]

    /// No matrix anywhere. A HID sensor hub reports the direction of gravity in device axes; every
    /// other driver reports what its chip measures, specific force, and its axes are taken as the
    /// device's (docs/sensors.md "Each source's convention").
    static func frameWithoutMatrix(_ deviceName: String) -> SensorFrame {
        hidSensorNames.contains(deviceName) ? .identity : .chipAxes
    }

    /// sysfs `mount_matrix`, `in_<type>_mount_matrix`, `in_mount_matrix`: the kernel's, IIO ABI.
    private func kernelCandidates(_ channels: IIODiscovery.Channels, type: String) -> [(String, FrameSource, () -> String?)] {
        let device = channels.device
        return [
            ("sysfs mount_matrix", .kernel, { try? device.read("mount_matrix").get() }),
            ("sysfs in_\(type)_mount_matrix", .kernel, { try? channels.axes[0].read("mount_matrix").get() }),
            ("sysfs in_mount_matrix", .kernel, { inMountMatrix(device) }),
        ]
    }

    private func firstUsable(_ candidates: [(String, FrameSource, () -> String?)], device: IIODeviceHandle) -> SensorFrame? {
        for (name, source, read) in candidates {
            guard let text = read() else { continue }
            guard let matrix = DecimalNumber.parseMountMatrix(text) else {
                logger.warning("\(device.id) (\(device.name)): ignoring \(name) \"\(text)\": not nine numbers; trying the next source")
                continue
            }
            let derived = source == .hwdb ? FrameDerivation.fromHwdb(matrix) : FrameDerivation.fromKernel(matrix)
            switch derived {
            case .success(let frame):
                return frame
            case .failure(let refusal):
                logger.warning("\(device.id) (\(device.name)): refusing \(name) \"\(text)\": \(refusal.message); trying the next source")
            }
        }
        return nil
    }

    private func report(_ frame: SensorFrame, kind: SensorKind, device: IIODeviceHandle) {
        for repair in frame.repairs {
            logger.notice("\(device.id) (\(device.name)): \(frame.source.rawValue) mount matrix \(frame.given.text): \(repair)")
        }
    }

    /// libiio shows sysfs `in_mount_matrix` as channel "mount", attribute "matrix".
    private func inMountMatrix(_ device: IIODeviceHandle) -> String? {
        for channel in device.channels where channel.id == "mount" && channel.hasAttribute("matrix") {
            return try? channel.read("matrix").get()
        }
        return nil
    }
}

/// A udev property of a device ("iio", "iio:device0"; "input", "event5"), through libsystemd's
/// sd-device (works under umockdev too).
func udevProperty(subsystem: String = "iio", device sysname: String, _ key: String) -> String? {
    var device: OpaquePointer?
    guard sd_device_new_from_subsystem_sysname(&device, subsystem, sysname) >= 0, let device else { return nil }
    defer { sd_device_unref(device) }
    var value: UnsafePointer<CChar>?
    guard sd_device_get_property_value(device, key, &value) >= 0, let value else { return nil }
    return String(cString: value)
}
