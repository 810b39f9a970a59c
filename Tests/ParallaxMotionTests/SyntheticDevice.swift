// A simulated device whose true attitude is known, producing consistent sensor samples.
import ParallaxMotion

/// Standard gravity, m/s² (the value the engine judges plausibility by).
let g = 9.80665
let degree = Double.pi / 180

/// True device→earth attitude plus a clock; each step returns the sample a perfect IMU would give.
struct SyntheticDevice {
    var attitude: Quaternion
    /// CLOCK_MONOTONIC ns; starts well away from 0 like a real clock.
    var t: Int64 = 5_000_000_000

    init(attitude: Quaternion = .identity) {
        self.attitude = attitude
    }

    /// Upright in portrait: device +Y up, screen facing the horizon.
    static var upright: SyntheticDevice { SyntheticDevice(attitude: Quaternion(axis: .unitX, angle: .pi / 2)) }

    /// Accelerometer reading for the true attitude: the direction of gravity in the device frame.
    var gravity: Vector3 { attitude.conjugate.rotate(Vector3(0, 0, -g)) }

    /// Rotates at the body rate `rate` (rad/s) for `dt` s and returns the sample at the end.
    mutating func advance(rate: Vector3, dt: Double, accel: Bool = true, gyro: Bool = true) -> Sample {
        attitude = (attitude * Quaternion(axis: rate, angle: rate.length * dt)).normalized()
        t += Int64((dt * 1e9).rounded())
        return Sample(t: t, accel: accel ? gravity : nil, gyro: gyro ? rate : nil)
    }

    /// Held still for `dt` s.
    mutating func hold(dt: Double) -> Sample {
        advance(rate: .zero, dt: dt)
    }
}

/// Feeds `count` samples made by `make` and returns the emitted frames.
@discardableResult
func feed(_ engine: inout MotionEngine, count: Int, _ make: () -> Sample) -> [MotionFrame] {
    var frames: [MotionFrame] = []
    for _ in 0..<count {
        if let f = engine.update(make()) { frames.append(f) }
    }
    return frames
}

/// Deterministic pseudo-random numbers (SplitMix64) so noisy tests are reproducible.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [−1, 1).
    mutating func signedUnit() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}

func isPublishable(_ o: ViewerOffset) -> Bool {
    o.x.isFinite && o.y.isFinite && abs(o.x) <= 1 && abs(o.y) <= 1
}

func close(_ a: Vector3, _ b: Vector3, _ tol: Double = 1e-9) -> Bool {
    (a - b).length <= tol
}

/// Same rotation (q and −q are equal rotations).
func sameRotation(_ a: Quaternion, _ b: Quaternion, _ tol: Double = 1e-9) -> Bool {
    a.angle(to: b) <= tol
}
