import Logging
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

/// The fusion frame of the open sensors: the online check on the sample path and the `status`
/// report (docs/sensors.md "Mount matrices and the fusion frame").
///
/// A part of its own (not the supervisor's): it needs only what was opened and the samples, and
/// its evidence outlives a capture. It is kept while the same sensors reopen, so evidence is
/// not lost between subscribers.
final class FrameMonitor {
    private let logger: Logger
    /// What the latest capture opened (kept after it closes: `status` still describes it).
    private(set) var sensors: [SensorDescription] = []
    /// The online check of the open sensors' frame (FrameCheck.swift).
    private(set) var check = FrameCheck(hasGyroscope: false)

    init(logger: Logger) {
        self.logger = logger
    }

    /// A capture opened `sensors`: other sensors than before start the check afresh.
    func opened(_ sensors: [SensorDescription]) {
        if sensors != self.sensors { check = FrameCheck(hasGyroscope: sensors.contains { $0.kind == .gyroscope }) }
        self.sensors = sensors
    }

    /// Feeds one sample to the online check and returns it with the check's correction (if the
    /// evidence made one). Each change of the verdict is logged once.
    func checked(_ sample: Sample) -> Sample {
        if let change = check.observe(sample) { log(change) }
        return check.corrected(sample)
    }

    /// The gyroscope matrix in use: the driver's, with the online check's sign correction.
    var gyroscopeMatrixInUse: MountMatrix? {
        guard let gyro = sensors.first(where: { $0.kind == .gyroscope }) else { return nil }
        let c = check.state == .corrected ? check.correction : Vector3(1, 1, 1)
        let m = gyro.mountMatrix
        return MountMatrix(rows: (m.rows.0 * c.x, m.rows.1 * c.y, m.rows.2 * c.z))
    }

    /// What `status` says about the frame; nil while nothing was opened.
    func report() -> FrameReport? {
        guard let accel = sensors.first(where: { $0.kind == .accelerometer }) else { return nil }
        let gyro = sensors.first { $0.kind == .gyroscope }
        return FrameReport(
            source: accel.frame.source.rawValue, given: accel.frame.given.text, accel: accel.mountMatrix.text,
            gyro: gyroscopeMatrixInUse?.text ?? "", repairs: accel.frame.repairs + (gyro?.notes ?? []),
            check: check.state.rawValue, checkDetail: check.summary)
    }

    private func log(_ state: FrameCheck.State) {
        let detail = check.summary
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
