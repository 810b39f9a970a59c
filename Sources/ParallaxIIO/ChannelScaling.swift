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
                guard let s = DecimalNumber.parseDouble(text), s != 0 else {
                    throw SensorError(.lost, "\(found.device.id) (\(found.device.name)): unparseable scale \"\(text)\" on \(channel.id)")
                }
                scale = s
            } else {
                scale = 1
            }
            var offset = 0.0
            if channel.hasAttribute("offset") {
                let text = (try? channel.read("offset").get()) ?? ""
                guard let o = DecimalNumber.parseDouble(text) else {
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
    /// Matrix, description and frame for one sensor: the accelerometer's frame is derived first
    /// and shared with the gyroscope (`gyroscopeMatrix`).
    func resolve(kind: SensorKind, channels: IIODiscovery.Channels, settings: IIOSettings, isLocal: Bool,
                 accelerometer: (frame: SensorFrame, device: String)?) -> (MountMatrix, String, SensorFrame, [String]) {
        if kind == .accelerometer || accelerometer == nil {
            let frame = accelerometerFrame(channels, isLocal: isLocal, accelOverride: settings.accelMountMatrix,
                                           gyroOverride: settings.gyroMountMatrix)
            return kind == .accelerometer
                ? (frame.accel, frame.source.rawValue, frame, [])
                : (frame.gyro, frame.source.rawValue, frame, [])
        }
        let accel = accelerometer!
        let (matrix, source, notes) = gyroscopeMatrix(channels, accelerometer: accel.frame, accelDevice: accel.device,
                                                      gyroOverride: settings.gyroMountMatrix)
        var frame = accel.frame
        frame.gyro = matrix
        return (matrix, source, frame, notes)
    }
}
