/// What drives a device's buffer, as chosen at open (`IIOBufferedDriver.ensureTrigger`), and the
/// software trigger the daemon owns for it, if any (removed when the stream closes).
///
/// Shown in `status` as the sensor's `trigger` (docs/protocol.md): which path a device takes is
/// the first thing to know about a handheld whose motion does not arrive.
struct DeviceTrigger {
    enum Path: Equatable {
        /// No trigger directory: the device pushes scans itself (a hardware FIFO).
        case none
        /// A trigger was already assigned before the daemon came (by an administrator, a udev rule).
        case current
        /// The device's own data-ready trigger ("bmi160-dev0", "accel_3d-dev0").
        case own
        /// An hrtimer trigger the daemon made (or took back from an earlier run).
        case hrtimer
        /// Another free trigger (a sysfs or hrtimer trigger someone else made).
        case other
    }

    let path: Path
    /// The trigger's name ("" for `.none`).
    let name: String
    /// The software trigger this capture owns, removed at close.
    let owned: HrtimerTrigger?

    init(path: Path, name: String = "", owned: HrtimerTrigger? = nil) {
        self.path = path
        self.name = name
        self.owned = owned
    }

    /// For `status`: "own: bmi160-dev0", "hrtimer: parallaxd-device0 at 100 Hz (made by parallaxd)", …
    var description: String {
        switch path {
        case .none: "none: the device pushes its scans itself"
        case .current: "current: \(name) (assigned before parallaxd started)"
        case .own: "own: \(name)"
        case .hrtimer:
            "hrtimer: \(name)\(owned?.rate.map { " at \(FixedRate($0)) Hz" } ?? "") (\(owned?.reused == true ? "reused from an earlier run" : "made by parallaxd"))"
        case .other: "other: \(name)"
        }
    }

    /// Gives the owned trigger back (after the buffer is disabled).
    func release() { owned?.remove() }
}
