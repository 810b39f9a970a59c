import Logging

/// Chooses between buffered and polled IIO capture on evidence (docs/sensors.md): buffered when
/// the device has scan elements and its buffer delivers a first scan in time, polled otherwise.
/// The decision and its reason are logged either way.
public enum IIODriverSelection {
    /// How long the buffer gets to deliver its first scan (ns). A device whose trigger never
    /// fires (or an emulation nobody feeds) must not leave the daemon without motion.
    public static let firstDataTimeout: Int64 = 500_000_000

    /// Opens the IIO sensors of `settings.uri`; called on the capture thread (may block up to
    /// `firstDataTimeout` while probing the buffer).
    public static func open(settings: IIOSettings, logger: Logger) throws(SensorError) -> any SensorDriver {
        if settings.capture == .polled {
            logger.debug("capture: polled (Capture=polled)")
            return try IIOPolledDriver(settings: settings, logger: logger, capture: "polled: Capture=polled")
        }
        switch IIOBufferedDriver.open(settings: settings, firstDataTimeout: firstDataTimeout, logger: logger) {
        case .success(let driver):
            if driver.polledAccel == nil {
                logger.notice("capture: buffered (\(driver.sensors.map { "\($0.kind.rawValue) \($0.location)" }.joined(separator: ", ")))")
            } else {
                logger.notice("capture: \(driver.sensors.map { "\($0.kind.rawValue) \($0.location) \($0.capture)" }.joined(separator: "; "))")
            }
            return driver
        case .failure(let why):
            if settings.capture == .buffered {
                throw SensorError(why.nothingToCapture ? .noSensors : .lost, "capture: \(why.reason) (Capture=buffered: not polling instead)")
            }
            if why.nothingToCapture {
                logger.debug("buffered capture: \(why.reason)")
                return try IIOPolledDriver(settings: settings, logger: logger)
            }
            logger.notice("capture: \(why.reason): polling instead")
            return try IIOPolledDriver(settings: settings, logger: logger, capture: "polled: \(why.reason)",
                                       bufferingFailed: why.reason)
        }
    }
}
