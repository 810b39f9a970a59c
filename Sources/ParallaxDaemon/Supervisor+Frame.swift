import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

/// The fusion frame of the open sensors: the online check on the sample path and the `status`
/// report (docs/sensors.md "Mount matrices and the fusion frame").
extension Supervisor {
    /// Feeds one sample to the online check and returns it with the check's correction (if the
    /// evidence made one). Each change of the verdict is logged once.
    func checkFrame(_ sample: Sample) -> Sample {
        if let change = frameCheck.observe(sample) { logFrameCheck(change) }
        return frameCheck.corrected(sample)
    }

    /// The gyroscope matrix in use: the driver's, with the online check's sign correction.
    var gyroscopeMatrixInUse: MountMatrix? {
        guard let gyro = sensors.first(where: { $0.kind == .gyroscope }) else { return nil }
        let c = frameCheck.state == .corrected ? frameCheck.correction : Vector3(1, 1, 1)
        let m = gyro.mountMatrix
        return MountMatrix(rows: (m.rows.0 * c.x, m.rows.1 * c.y, m.rows.2 * c.z))
    }

    /// What `status` says about the frame; nil while nothing is open.
    func frameReport() -> FrameReport? {
        guard let accel = sensors.first(where: { $0.kind == .accelerometer }) else { return nil }
        let gyro = sensors.first { $0.kind == .gyroscope }
        return FrameReport(
            source: accel.frame.source.rawValue, given: accel.frame.given.text, accel: accel.mountMatrix.text,
            gyro: gyroscopeMatrixInUse?.text ?? "", repairs: accel.frame.repairs + (gyro?.notes ?? []),
            check: frameCheck.state.rawValue, checkDetail: frameCheck.summary)
    }

    private func logFrameCheck(_ state: FrameCheck.State) {
        let detail = frameCheck.summary
        switch state {
        case .consistent:
            logger.notice("frame check: gyroscope and accelerometer agree: \(detail)")
        case .disagrees:
            logger.warning("frame check: the gyroscope's turns do not match the gravity the accelerometer sees: \(detail); check the mount matrix with `parallaxctl frame`")
        case .corrected:
            let fix = gyroscopeMatrixInUse?.text ?? ""
            logger.warning("frame check: \(detail); the gyroscope matrix in use is now \(fix) (to keep it: [Sensor] GyroMountMatrix=\(fix), or fix the mount matrix with `parallaxctl frame`)")
        case .pending, .noGyroscope:
            break
        }
    }
}
