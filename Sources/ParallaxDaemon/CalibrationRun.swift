import CLinux
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol

/// A calibration the daemon runs for one client (`{"cmd":"calibrate"}`).
///
/// It never blocks the loop: samples reach it through the same path as the engine's (the sensor
/// thread queues them, the loop hands each to `Daemon.calibrationSample`), the sensors are held
/// open by `Daemon.updateDemand` while it runs, and a timer ends it if samples stop coming.
final class CalibrationRun {
    /// Who asked; progress and the result go to this client only.
    let client: ClientConnection
    let id: JSONValue?
    /// How long to measure (ns of sample time).
    let duration: Int64
    var estimator = CalibrationEstimator()
    /// Ends the run if the sensors do not deliver in time.
    var deadline: EventLoop.TimerID?
    /// Last progress reported (fraction), so a line goes out per `progressStep`, not per sample.
    var reported = 0.0

    /// Progress lines come at this fraction of the run (0.1: every 10 %).
    static let progressStep = 0.1

    init(client: ClientConnection, id: JSONValue?, seconds: Double) {
        self.client = client
        self.id = id
        duration = Int64(seconds * 1e9)
    }
}

extension Daemon {
    /// Measuring time when the client names none (s).
    static let defaultCalibrationSeconds = 5.0
    /// Time the sensors may take to open and deliver, on top of the measuring time (ns): a
    /// sensor that was closed opens in well under a second, a remote one may take longer.
    static let calibrationGrace: Int64 = 5_000_000_000
    /// When the daemon already knows of no sensors, how long a fresh attempt to open them gets
    /// before the calibration is refused (ns), instead of waiting out the whole run.
    static let sensorCheckDelay: Int64 = 1_500_000_000

    /// Starts a calibration for `client` (already authorised), or refuses if one is running.
    func startCalibration(seconds: Double?, for client: ClientConnection, id: JSONValue?) {
        guard calibrationRun == nil, !savingCalibration else {
            write(ServerMessage.error(ProtocolError(.unavailable, "a calibration is already running", id: id)).encode(), to: client)
            return
        }
        let run = CalibrationRun(client: client, id: id, seconds: seconds ?? Self.defaultCalibrationSeconds)
        calibrationRun = run
        // Calibration measures the still device at its full rate.
        supervisor.withdrawRest()
        logger.notice("calibrating for \(Double(run.duration) / 1e9) s (client \(client.id)); the device must lie still")
        write(ServerMessage.calibration(.progress(0), id: id).encode(), to: client)
        Systemd.notify("STATUS=calibrating: 0 %")
        run.deadline = loop.schedule(at: plx_monotonic_ns() + run.duration + Self.calibrationGrace) { [unowned self, unowned run] in
            run.deadline = nil
            self.endCalibration(run, .failure(self.starvedCalibration(run)))
        }
        if supervisor.state != .ok {
            loop.schedule(at: plx_monotonic_ns() + Self.sensorCheckDelay) { [unowned self, weak run] in
                guard let run, self.calibrationRun === run, self.supervisor.state != .ok,
                      run.estimator.accel.count + run.estimator.gyro.count == 0 else { return }
                self.endCalibration(run, .failure(self.starvedCalibration(run)))
            }
        }
        // Holds the sensors open (see updateDemand) even with no subscriber or with reduce motion.
        updateDemand()
    }

    /// The sample hook: every sample, before any correction, while a calibration runs.
    func calibrationSample(_ sample: Sample) {
        guard let run = calibrationRun else { return }
        guard !run.client.isClosed else {
            logger.notice("calibration abandoned: the client that asked for it left")
            endCalibration(run, nil)
            return
        }
        if let refusal = run.estimator.add(sample) {
            endCalibration(run, .failure(refusal))
            return
        }
        // A sensor that is not there never shows up in the samples: say so at once.
        if run.estimator.accel.count + run.estimator.gyro.count > run.estimator.limits.warmupSamples * 2,
           let missing = missingSensor(run) {
            endCalibration(run, .failure(missing))
            return
        }
        let fraction = min(1, Double(run.estimator.elapsed) / Double(max(run.duration, 1)))
        if fraction >= 1 {
            endCalibration(run, run.estimator.finish())
        } else if fraction >= run.reported + CalibrationRun.progressStep {
            run.reported = fraction
            write(ServerMessage.calibration(.progress(fraction), id: run.id).encode(), to: run.client)
            Systemd.notify("STATUS=calibrating: \(Int(fraction * 100)) %")
        }
    }

    private func missingSensor(_ run: CalibrationRun) -> CalibrationRefusal? {
        if run.estimator.gyro.count == 0 {
            return CalibrationRefusal(failure: .missingSensor, message: "no gyroscope: the sensors (\(sensorNames())) deliver no rotation rates, so there is no bias to measure")
        }
        if run.estimator.accel.count == 0 {
            return CalibrationRefusal(failure: .missingSensor, message: "no accelerometer samples from \(sensorNames())")
        }
        return nil
    }

    /// Why the deadline passed without a result.
    private func starvedCalibration(_ run: CalibrationRun) -> CalibrationRefusal {
        if supervisor.state != .ok || (run.estimator.accel.count == 0 && run.estimator.gyro.count == 0) {
            return CalibrationRefusal(failure: .missingSensor, message: "no sensors deliver samples (source \(supervisor.source), sensor state \(supervisor.state.rawValue))")
        }
        return missingSensor(run) ?? CalibrationRefusal(failure: .noSamples, message: "the sensors delivered too few samples in \(Double(run.duration + Self.calibrationGrace) / 1e9) s")
    }

    private func sensorNames() -> String {
        let names = supervisor.sensors.map { "\($0.kind.rawValue) \($0.device) (\($0.location))" }
        return names.isEmpty ? supervisor.source : names.joined(separator: ", ")
    }

    /// Ends the run: writes and applies the calibration on success, tells the client either way
    /// (nil: nobody to tell), and lets the sensors close if nobody else needs them.
    private func endCalibration(_ run: CalibrationRun, _ outcome: Result<CalibrationMeasurement, CalibrationRefusal>?) {
        guard calibrationRun === run else { return }
        calibrationRun = nil
        if let deadline = run.deadline { loop.cancel(deadline) }
        defer {
            updateDemand()
            notifyServing()
        }
        guard let outcome else { return }
        let report: CalibrationReport
        switch outcome {
        case .failure(let refusal):
            logger.warning("calibration refused: \(refusal.message)")
            report = .failed(refusal.failure, message: refusal.message)
        case .success(let measurement):
            saveCalibration(measurement, for: run)
            return
        }
        write(ServerMessage.calibration(report, id: run.id).encode(), to: run.client)
    }

    /// Writes the file on a worker thread (its fsyncs wait for the disk, which the loop must not)
    /// and answers the client once it is on disk; no other calibration starts meanwhile.
    private func saveCalibration(_ measurement: CalibrationMeasurement, for run: CalibrationRun) {
        let path = config.calibrationFile
        let text = CalibrationFile.render(measurement, sensors: sensorNames(), writtenBy: "parallaxd (calibrate command)")
        savingCalibration = true
        BackgroundTask.run(on: loop, { CalibrationFile.write(text, to: path) }) { [unowned self] written in
            self.savingCalibration = false
            let report: CalibrationReport
            switch written {
            case .failure(let error):
                self.logger.error("calibration measured but not saved: \(error)")
                report = .failed(.writeFailed, message: "measured, but \(error)")
            case .success:
                self.logger.notice("calibration written to \(path): gyro bias \(CalibrationFile.triple(measurement.gyroBias, decimals: 6)) rad/s")
                // Apply what is on disk, so the daemon and the file never disagree.
                self.loadCalibration()
                report = .finished(measurement.report(file: path))
            }
            self.write(ServerMessage.calibration(report, id: run.id).encode(), to: run.client)
        }
    }
}
