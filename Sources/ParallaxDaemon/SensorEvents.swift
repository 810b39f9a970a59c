import CLinux
import Glibc
import ParallaxIIO
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// Why a capture opened, for what of the motion state carries over (`SensorEvents.sensorsOpened`).
enum SensorsOpening: Equatable {
    /// A first open, or one after a loss or with new settings: everything starts afresh.
    case fresh
    /// Opened again after a system sleep (Supervisor+Sleep.swift): the device may have moved
    /// unseen, so the attitude restarts from the accelerometer, and the reference with it only
    /// where re-centring is on.
    case afterSleep
    /// Opened again to try buffering (Supervisor+BufferRetry.swift): the attitude restarts from
    /// the accelerometer, the reference stays.
    case toBufferAgain
}

/// What the supervisor tells its owner, on the loop thread (the daemon: Daemon+Motion.swift).
protocol SensorEvents: AnyObject {
    /// A capture opened: downstream state from the previous one no longer applies, as far as
    /// `opening` says.
    func sensorsOpened(_ opening: SensorsOpening)
    /// The capture ended (closed for want of subscribers, failed, or a replay's end): the last
    /// offset is no longer the current one.
    func sensorsClosed()
    func sensorSample(_ sample: Sample)
    /// After each batch of samples: the newest frame can go out now.
    func sampleBatchEnded()
    func sensorStateChanged(_ state: SensorState)
    /// The first open attempt had an outcome (opened, failed or ended); once per supervisor.
    func sensorsFirstOutcome()
    /// When (monotonic ns) fresh samples are next needed; until then they are batched.
    func nextSampleNeed() -> SampleNeed
    /// Whether the sensors may slow down for a device at rest (Supervisor+Rest.swift): nothing
    /// published for `quietFor` ns, nothing left to deliver, nothing that needs every sample now
    /// (a calibration).
    func mayRest(quietFor: Int64) -> Bool
}

/// Wakes the event loop from the capture thread: an eventfd the loop watches (the owner routes
/// its readiness to `Supervisor.samplesReady`).
final class SensorWakeup: Sendable {
    let fd: FileDescriptor

    init() throws(Errno) {
        let raw = plx_eventfd()
        guard raw >= 0 else { throw Errno(rawValue: errno) }
        fd = FileDescriptor(rawValue: raw)
    }

    deinit { try? fd.close() }

    /// Safe from any thread.
    func signal() { _ = plx_eventfd_signal(fd.rawValue) }
    func drain() { _ = plx_eventfd_drain(fd.rawValue) }
}
