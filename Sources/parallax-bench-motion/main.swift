// parallax-bench-motion: what the motion engine costs per sample, and that it allocates nothing
// per sample (BENCHMARKS.md, "Motion engine"). Run a release build:
//   swift run -c release parallax-bench-motion [--samples N] [--runs R]
// Method: a synthetic stream (hand-like motion with sensor noise) is made up front; each run feeds
// it to a fresh engine and takes CLOCK_MONOTONIC around the loop; the median of the runs' ns per
// sample is reported. Allocation: every allocation is counted by valgrind (glibc's mallinfo2 is
// not visible to Swift without a C shim, and it would miss a malloc freed within the sample):
//   valgrind --tool=memcheck parallax-bench-motion --samples 1000 --runs 1
//   valgrind --tool=memcheck parallax-bench-motion --samples 100000 --runs 1
// The same "total heap usage: N allocs" for both lengths means nothing is allocated per sample.
import Glibc
import ParallaxMotion

// MARK: Options

/// Writes the message to stderr and exits with EX_USAGE.
func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(64)
}

struct Options {
    /// Samples in the stream: 1 M at 200 Hz is 83 minutes of motion, long enough to average out.
    var samples = 1_000_000
    /// Runs per scenario; the median is reported (robust to a run disturbed by the machine).
    var runs = 15

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var rest = arguments[...]
        while let option = rest.popFirst() {
            guard let value = rest.popFirst(), let number = Int(value), number > 0 else {
                fail("usage: parallax-bench-motion [--samples N] [--runs R]")
            }
            switch option {
            case "--samples": options.samples = number
            case "--runs": options.runs = number
            default:
                fail("unknown option \(option)")
            }
        }
        return options
    }
}

// MARK: Synthetic stream

/// SplitMix64: deterministic noise without Foundation.
struct Noise {
    var state: UInt64
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53) * 2 - 1  // uniform in [−1, 1)
    }
}

enum Stream {
    /// Standard gravity, m/s².
    static let g = 9.80665
    /// Sensor rate of the stream (Hz): a typical IMU (BMI260 gyroscope default).
    static let rateHz = 200.0
    /// Noise amplitudes: accelerometer m/s², gyroscope rad/s (a consumer MEMS IMU at rest).
    static let accelNoise = 0.02
    static let gyroNoise = 0.002
}

/// Hand-like body rates (rad/s): a few slow sines per axis, with rests (an on/off envelope).
func bodyRate(_ t: Double) -> Vector3 {
    let envelope = max(0, sin(2 * Double.pi * 0.05 * t))
    return Vector3(
        0.8 * sin(2 * Double.pi * 0.7 * t) + 0.3 * sin(2 * Double.pi * 1.9 * t),
        1.1 * sin(2 * Double.pi * 0.45 * t + 1),
        0.4 * sin(2 * Double.pi * 0.3 * t + 2)) * envelope
}

/// `count` samples; `separate`: the gyroscope in rows of its own and the accelerometer in every
/// fourth row alone (sensors delivered independently, gyroscope 200 Hz, accelerometer 50 Hz).
func makeStream(count: Int, separate: Bool) -> [Sample] {
    var samples: [Sample] = []
    samples.reserveCapacity(count + count / 4 + 1)
    var attitude = Quaternion(axis: .unitX, angle: Double.pi / 2)
    var noise = Noise(state: 42)
    var t: Int64 = 1_000_000_000
    let dt = 1 / Stream.rateHz
    for i in 0..<count {
        let w = bodyRate(Double(i) * dt)
        attitude = (attitude * Quaternion(rotationVector: w * dt)).normalized()
        t += Int64(dt * 1e9)
        let gravity = attitude.conjugate.rotate(Vector3(0, 0, -Stream.g))
            + Vector3(noise.next(), noise.next(), noise.next()) * Stream.accelNoise
        let gyro = w + Vector3(noise.next(), noise.next(), noise.next()) * Stream.gyroNoise
        if separate {
            samples.append(Sample(t: t, gyro: gyro))
            if i % 4 == 0 { samples.append(Sample(t: t + 1000, accel: gravity)) }
        } else {
            samples.append(Sample(t: t, accel: gravity, gyro: gyro))
        }
    }
    return samples
}

// MARK: Measurement

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

struct Result {
    var nsPerSample: [Double] = []
    var frames = 0
    var checksum = 0.0
}

/// Feeds `stream` to a fresh engine per run; the engine is made before the clock starts.
func measure(_ stream: [Sample], settings: MotionSettings, heading: Bool, runs: Int) -> Result {
    var result = Result()
    result.nsPerSample.reserveCapacity(runs)
    for _ in 0..<runs {
        var engine = MotionEngine(settings: settings)
        engine.headingWanted = heading
        var frames = 0
        var checksum = 0.0
        let start = monotonicNanoseconds()
        for sample in stream {
            if engine.update(sample) != nil { frames += 1 }
            checksum += engine.current.x + engine.heading.yaw
        }
        let elapsed = monotonicNanoseconds() - start
        result.nsPerSample.append(Double(elapsed) / Double(stream.count))
        result.frames = frames
        result.checksum = checksum  // used below, so the loop cannot be optimised away
    }
    return result
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

func format(_ value: Double, decimals: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    let whole = Int(rounded)
    let fraction = Int(((rounded - Double(whole)) * scale).magnitude.rounded())
    guard decimals > 0 else { return "\(whole)" }
    let digits = String(fraction)
    return "\(whole).\(String(repeating: "0", count: decimals - digits.count))\(digits)"
}

// MARK: Scenarios

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let combined = makeStream(count: options.samples, separate: false)
let separate = makeStream(count: options.samples, separate: true)
let scenarios: [(name: String, stream: [Sample], settings: MotionSettings, heading: Bool)] = [
    ("attitude mode, accel+gyro rows (defaults)", combined, MotionSettings(), false),
    ("attitude mode, separate gyro/accel rows", separate, MotionSettings(), false),
    ("attitude mode, lock off, rejection 10°", combined,
     MotionSettings(directionalLock: false, accelerationRejection: 10 * Double.pi / 180), false),
    ("rate mode", combined, MotionSettings(mode: .rate), false),
    ("attitude mode, defaults, heading wanted", combined, MotionSettings(), true),
    ("rate mode, heading wanted", combined, MotionSettings(mode: .rate), true),
]

print("parallax-bench-motion: \(options.samples) samples at \(format(Stream.rateHz, decimals: 0)) Hz, "
    + "\(options.runs) runs per scenario")
for scenario in scenarios {
    let r = measure(scenario.stream, settings: scenario.settings, heading: scenario.heading, runs: options.runs)
    print("  \(scenario.name): median \(format(median(r.nsPerSample))) ns/sample "
        + "(min \(format(r.nsPerSample.min() ?? 0)), max \(format(r.nsPerSample.max() ?? 0))), "
        + "\(scenario.stream.count) samples → \(r.frames) frames [checksum \(format(r.checksum, decimals: 3))]")
}
