/// How IIO devices are read (`[Sensor] Capture=`, docs/sensors.md "Buffered or polled").
///
/// Why a setting: buffered capture is the right default (the kernel stamps each sample, a HID hub
/// answers no GET_REPORT, the daemon sleeps at rest), but only one process can hold a device's
/// buffer; where another reader needs it for good, polling sysfs reads beside it. `buffered`
/// exists to find out why a device falls back, and for measurements against polling.
public enum CaptureMethod: String, Sendable, Equatable, CaseIterable {
    /// Buffered when the devices' buffers deliver, polled otherwise (the reason is logged).
    case auto
    /// Buffered or nothing: a buffer that cannot be made is an error (retried like a lost device).
    case buffered
    /// Sysfs reads (`in_*_raw`) at `Rate=`, never a buffer.
    case polled
}
