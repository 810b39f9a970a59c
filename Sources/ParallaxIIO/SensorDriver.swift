import ParallaxMotion

/// Which physical quantity a sensor measures.
public enum SensorKind: String, Sendable, CaseIterable {
    case accelerometer = "accel"
    case gyroscope = "gyro"
}

/// One opened sensor, as status replies and logs describe it.
public struct SensorDescription: Sendable, Equatable {
    public var kind: SensorKind
    /// The device's name attribute ("bmi160", "accel_3d") or the trace file.
    public var device: String
    /// Where it lives: "iio:device0", a libiio URI, a file path.
    public var location: String
    /// Samples per second the source delivers (Hz).
    public var rate: Double
    /// Applied as v_device = M · v_sensor.
    public var mountMatrix: MountMatrix
    /// Which lookup step the matrix came from ("hwdb", "the accelerometer's frame (hwdb)", …).
    public var mountMatrixSource: String
    /// The fusion frame both sensors share (docs/sensors.md "Mount matrices and the fusion
    /// frame"): its source, the matrix as the source gave it and the repairs made.
    public var frame: SensorFrame
    /// Doubts about this sensor's own matrix (e.g. a gyroscope matrix that disagrees with the chip's frame).
    public var notes: [String]
    /// How its samples are read: "buffered", "polled" or "polled: <why not buffered>" (IIO),
    /// "evdev" (an input device's motion sensors), "replay"; shown in `status` (docs/sensors.md "Decision rule").
    public var capture: String
    /// What drives a buffered device's scans (DeviceTrigger): "own: bmi160-dev0",
    /// "hrtimer: parallaxd-device0 at 100 Hz (made by parallaxd)", …; "" when not buffered.
    public var trigger: String
    /// With several accelerometers, which one drives the offset over which ignored ones
    /// (IIODiscovery.choice); "" otherwise and for gyroscopes.
    public var choice: String
    /// What the device refused the daemon and what that costs (SensorLimit), shown in `status`.
    public var limits: [SensorLimit]
    /// The smallest change the device passes on, in the sensor's SI unit (m/s², rad/s): an evdev
    /// device's fuzz (the input core swallows smaller steps); 0 when unknown or none. The rest
    /// test's tolerances stay above it (Stillness.Settings.coarsened).
    public var quantum: Double

    public init(kind: SensorKind, device: String, location: String, rate: Double,
                mountMatrix: MountMatrix = .identity, mountMatrixSource: String = "identity",
                frame: SensorFrame = .identity, notes: [String] = [], capture: String = "",
                trigger: String = "", choice: String = "", limits: [SensorLimit] = [], quantum: Double = 0) {
        self.kind = kind
        self.device = device
        self.location = location
        self.rate = rate
        self.mountMatrix = mountMatrix
        self.mountMatrixSource = mountMatrixSource
        self.frame = frame
        self.notes = notes
        self.capture = capture
        self.trigger = trigger
        self.choice = choice
        self.limits = limits
        self.quantum = quantum
    }
}

/// Why a source could not deliver.
public struct SensorError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing usable exists (no accelerometer): the state is "none".
        case noSensors
        /// Sensors existed and went away or failed while reading: the state is "lost".
        case lost
        /// The source specification or file itself is wrong: retrying will not help.
        case invalidSource
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// A sensor driver: discover and open in its factory, then `nextSample` until closed.
///
/// Drivers block (sysfs reads, buffer refills, replay pacing), so they live on the capture thread
/// and nothing else touches them. Adding hardware support means adding one type conforming to this.
public protocol SensorDriver: AnyObject {
    /// What was opened, for status and logs.
    var sensors: [SensorDescription] { get }
    /// Blocks until the next sample is due and returns it; nil when the stream has ended
    /// (a replay without looping). Throws when the sensors are lost.
    /// `shouldStop` is polled during long waits so that closing stays prompt.
    func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample?
    /// Releases every device handle; called once, on the capture thread.
    func close()
}

/// A driver whose description changes while it captures (a polled device whose reads turn out
/// far slower than its period: SlowReadWatch.swift). The capture thread asks after each read and
/// posts what it gets (`CaptureEvent.revised`); called only on the capture thread.
public protocol RevisedDescriptions: AnyObject {
    /// The new descriptions, once per change; nil when nothing changed since the last call.
    func takeRevisedSensors() -> [SensorDescription]?
}

/// A driver that polls a device whose buffer failed in a way that may pass (a trigger slow to
/// start, a hub still waking after a resume): opening the device again later may buffer, so the
/// supervisor tries (Supervisor+BufferRetry.swift). Read once, as the capture opens.
public protocol PollsInPlaceOfBuffer: AnyObject {
    /// Why buffered capture failed; nil when buffering was not tried here.
    var bufferingFailed: String? { get }
}
