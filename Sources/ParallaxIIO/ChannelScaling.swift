import ParallaxMotion

/// Three channels of one sensor with their conversion to SI units, shared by the polled and the
/// buffered driver so that both turn the same raw numbers into the same device-frame vector.
struct TriAxis {
    let channels: [IIOChannelHandle]
    /// "raw" (scaled here) or "input" (already processed by the kernel).
    let attribute: String
    let scales: [Double]
    let offsets: [Double]
    let matrix: MountMatrix

    init(kind: SensorKind, channels found: IIODiscovery.Channels, matrix: MountMatrix) throws(SensorError) {
        channels = found.axes
        self.matrix = matrix
        attribute = found.axes.allSatisfy { $0.hasAttribute("raw") } ? "raw" : "input"
        var scales: [Double] = []
        var offsets: [Double] = []
        for channel in found.axes {
            // libiio folds the shared in_accel_scale into each channel's "scale"; a per-channel
            // in_accel_x_scale takes precedence the same way.
            let scale: Double
            if channel.hasAttribute("scale") {
                let text = (try? channel.read("scale").get()) ?? ""
                guard let s = SysfsNumber.parseDouble(text), s != 0 else {
                    throw SensorError(.lost, "\(found.device.id) (\(found.device.name)): unparseable scale \"\(text)\" on \(channel.id)")
                }
                scale = s
            } else {
                scale = 1
            }
            var offset = 0.0
            if channel.hasAttribute("offset") {
                let text = (try? channel.read("offset").get()) ?? ""
                guard let o = SysfsNumber.parseDouble(text) else {
                    throw SensorError(.lost, "\(found.device.id) (\(found.device.name)): unparseable offset \"\(text)\" on \(channel.id)")
                }
                offset = o
            }
            scales.append(scale)
            offsets.append(offset)
        }
        self.scales = scales
        self.offsets = offsets
    }

    /// (raw + offset) × scale per channel, then v_device = M · v_sensor.
    @inline(__always)
    func deviceFrame(_ x: Double, _ y: Double, _ z: Double) -> Vector3 {
        matrix.apply(Vector3((x + offsets[0]) * scales[0], (y + offsets[1]) * scales[1], (z + offsets[2]) * scales[2]))
    }
}

extension MountMatrixLookup {
    /// The matrix for one sensor; a gyroscope with none of its own borrows the accelerometer's.
    ///
    /// Why: a gyroscope with no matrix sits in the same package as the accelerometer (hwdb only
    /// describes ACCEL_MOUNT_MATRIX), and fusion needs both in one frame, so it takes the
    /// accelerometer's rather than the identity.
    func resolve(kind: SensorKind, channels: IIODiscovery.Channels, override: MountMatrix?, isLocal: Bool,
                 accelerometer: SensorDescription?) -> (MountMatrix, String) {
        let (matrix, source) = find(kind: kind, device: channels.device, firstChannel: channels.axes[0],
                                    override: override, isLocal: isLocal)
        if kind == .gyroscope, source == "identity", let accel = accelerometer, accel.mountMatrixSource != "identity" {
            return (accel.mountMatrix, "the accelerometer's (\(accel.mountMatrixSource))")
        }
        return (matrix, source)
    }
}
