import Logging
import ParallaxMotion

/// What the numbers of an evdev motion device (INPUT_PROP_ACCELEROMETER) mean, and which screen
/// axes they are (docs/frames.md "evdev motion devices").
///
/// The input ABI (Documentation/input/event-codes.rst, include/uapi/linux/input.h): ABS_X/Y/Z
/// are acceleration in units of `resolution` per g, ABS_RX/RY/RZ angular rate in units of
/// `resolution` per degree per second, right-handed. The accelerometer reports specific force
/// (the device at rest measures +1 g opposite to gravity), as IIO chips do.
public struct EvdevMotionAxes: Sendable, Equatable {
    /// m/s² per g: the ABI's accelerometer unit is g.
    public static let standardGravity = 9.80665

    /// Units per g of ABS_X, ABS_Y, ABS_Z.
    public var accelResolution: [Double]
    /// Units per °/s of ABS_RX, ABS_RY, ABS_RZ; nil without a gyroscope.
    public var gyroResolution: [Double]?
    /// The kernel's fuzz per axis, in the device's units (accelerometer, then gyroscope).
    public var accelFuzz: [Int32]
    public var gyroFuzz: [Int32]

    /// nil with the reason when an axis has no usable resolution (the ABI requires one for
    /// these axes: without it no unit can be told).
    public static func make(accelResolution: [Int32], accelFuzz: [Int32],
                            gyroResolution: [Int32]?, gyroFuzz: [Int32]) -> Result<EvdevMotionAxes, SensorError> {
        guard accelResolution.count == 3, accelResolution.allSatisfy({ $0 > 0 }) else {
            return .failure(SensorError(.noSensors, "accelerometer axes without a resolution (\(accelResolution)): no unit to read them in"))
        }
        if let g = gyroResolution, g.count != 3 || !g.allSatisfy({ $0 > 0 }) {
            return .failure(SensorError(.noSensors, "gyroscope axes without a resolution (\(g)): no unit to read them in"))
        }
        return .success(EvdevMotionAxes(accelResolution: accelResolution.map(Double.init), gyroResolution: gyroResolution?.map(Double.init),
                                        accelFuzz: accelFuzz, gyroFuzz: gyroFuzz))
    }

    /// Specific force (m/s²) in the device's evdev axes.
    public func acceleration(_ x: Int32, _ y: Int32, _ z: Int32) -> Vector3 {
        Vector3(Double(x) / accelResolution[0], Double(y) / accelResolution[1], Double(z) / accelResolution[2]) * Self.standardGravity
    }

    /// Angular rate (rad/s, right-handed) in the device's evdev axes; nil without a gyroscope.
    public func rate(_ x: Int32, _ y: Int32, _ z: Int32) -> Vector3? {
        guard let r = gyroResolution else { return nil }
        return Vector3(Double(x) / r[0], Double(y) / r[1], Double(z) / r[2]) * (Double.pi / 180)
    }

    /// The largest fuzz of the accelerometer's axes in m/s²: the input core's filter swallows
    /// steps below half of it, and smooths steps below twice it (input_defuzz_abs_event).
    public var accelQuantum: Double {
        zip(accelFuzz, accelResolution).map { Double($0) / $1 * Self.standardGravity }.max() ?? 0
    }

    /// The same for the gyroscope, in rad/s (0 without one).
    public var gyroQuantum: Double {
        guard let r = gyroResolution else { return 0 }
        return zip(gyroFuzz, r).map { Double($0) / $1 * Double.pi / 180 }.max() ?? 0
    }
}

/// An evdev motion device whose axes are known: which screen axes its ABS axes are.
public struct EvdevKnownDevice: Sendable, Equatable {
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// The rotation R with R · v_evdev = v_screen for the quantity each sensor measures
    /// (the kernel's mount-matrix convention; FrameDerivation.fromKernel).
    public var rotation: MountMatrix
    /// Reports per second the driver sends (Hz).
    public var rate: Double

    /// The Steam Deck (hid-steam, "Steam Deck Motion Sensors", Linux ≥ 6.10). Its IMU's own axes
    /// are the screen's (X right, Y toward the top of the screen, Z out of it toward the viewer),
    /// and hid-steam reports them in the gamepad convention that hid-playstation and SDL use (X
    /// right, Y out of the controller's face, Z toward the player holding it flat):
    /// ABS_X = x, ABS_Y = z, ABS_Z = −y, the same for the rates. Back in screen axes: x = ABS_X,
    /// y = −ABS_Z, z = ABS_Y. A proper rotation (det +1), so the rates take it too.
    public static let steamDeck = EvdevKnownDevice(name: "Steam Deck", vendor: 0x28de, product: 0x1205,
                                                   rotation: MountMatrix([1, 0, 0, 0, 0, -1, 0, 1, 0]), rate: 250)

    public static let table: [EvdevKnownDevice] = [steamDeck]

    public static func lookup(vendor: UInt16, product: UInt16) -> EvdevKnownDevice? {
        table.first { $0.vendor == vendor && $0.product == product }
    }

    /// The fusion frame of an evdev motion device, first usable of (docs/frames.md "Mount matrix"):
    /// a config override, the udev property ACCEL_MOUNT_MATRIX of its event node (hwdb, read by
    /// the hwdb rule), the known device's axes (`device`), else the ABI's own axes (a rotation of
    /// identity by the kernel rule: accelerometer −I, gyroscope I). Returns the frame and the
    /// sentence `status` shows as the matrix's source.
    public static func frame(known: EvdevKnownDevice?, hwdb: String?, accelOverride: MountMatrix?,
                             gyroOverride: MountMatrix?, logger: Logger?) -> SensorFrame {
        var found: SensorFrame?
        if let hwdb {
            if let matrix = DecimalNumber.parseMountMatrix(hwdb) {
                switch FrameDerivation.fromHwdb(matrix) {
                case .success(let frame): found = frame
                case .failure(let refusal): logger?.warning("refusing udev ACCEL_MOUNT_MATRIX \"\(hwdb)\": \(refusal.message); trying the next source")
                }
            } else {
                logger?.warning("ignoring udev ACCEL_MOUNT_MATRIX \"\(hwdb)\": not nine numbers; trying the next source")
            }
        }
        if found == nil, let known, case .success(var frame) = FrameDerivation.fromKernel(known.rotation) {
            frame.source = .device
            found = frame
        }
        if found == nil, case .success(let frame) = FrameDerivation.fromKernel(.identity) {
            found = frame
        }
        return FrameDerivation.fromOverride(accel: accelOverride, gyro: gyroOverride, otherwise: found ?? .identity)
    }
}
