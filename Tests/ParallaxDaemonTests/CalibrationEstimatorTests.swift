import Glibc
import ParallaxMotion
import ParallaxProtocol
import Testing
@testable import ParallaxDaemon

/// The calibration estimator: a still device's bias and noise come out right, a moving one is
/// refused, missing sensors and impossible readings are named.
@Suite struct CalibrationEstimatorTests {
    /// Sample period of the synthetic device (ns): 100 Hz, as the polled driver reads.
    static let period: Int64 = 10_000_000

    /// Deterministic Gaussian-ish noise (sum of 12 uniforms − 6: mean 0, variance 1).
    struct Noise {
        var state: UInt64
        mutating func next() -> Double {
            var sum = 0.0
            for _ in 0..<12 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                sum += Double(state >> 11) / Double(UInt64(1) << 53)
            }
            return sum - 6
        }
        mutating func vector(_ sigma: Double) -> Vector3 { Vector3(next() * sigma, next() * sigma, next() * sigma) }
    }

    /// A still device: gravity `accel`, gyroscope `bias`, each with white noise of `sigma`.
    static func still(seconds: Double, accel: Vector3, bias: Vector3, gyroSigma: Double, accelSigma: Double,
                      seed: UInt64 = 1) -> [Sample] {
        var noise = Noise(state: seed)
        let n = Int(seconds * 1e9) / Int(period)
        return (0...n).map { i in
            Sample(t: 1_000_000_000 + Int64(i) * period, accel: accel + noise.vector(accelSigma), gyro: bias + noise.vector(gyroSigma))
        }
    }

    static func run(_ samples: [Sample]) -> (refusal: CalibrationRefusal?, estimator: CalibrationEstimator) {
        var estimator = CalibrationEstimator()
        for s in samples {
            if let refusal = estimator.add(s) { return (refusal, estimator) }
        }
        return (nil, estimator)
    }

    @Test(arguments: [Vector3(0.0213, -0.0147, 0.0089), Vector3(-0.31, 0.002, 0.12), Vector3(0, 0, 0)])
    func stillDeviceGivesBiasNoiseAndPose(bias: Vector3) throws {
        let gravity = Vector3(0.3, -9.7, 1.1)
        let gyroSigma = 0.004, accelSigma = 0.03
        let (refusal, estimator) = Self.run(Self.still(seconds: 3, accel: gravity, bias: bias, gyroSigma: gyroSigma, accelSigma: accelSigma))
        #expect(refusal == nil)
        let m = try estimator.finish().get()
        // The mean of 300 samples with σ = 0.004 is within 4σ/√300 ≈ 0.001 rad/s of the bias.
        #expect((m.gyroBias - bias).length < 0.001, "bias \(m.gyroBias) vs \(bias)")
        #expect((m.accelMean - gravity).length < 0.01)
        for (estimate, truth) in [(m.gyroNoise.x, gyroSigma), (m.gyroNoise.z, gyroSigma), (m.accelNoise.y, accelSigma)] {
            #expect(abs(estimate / truth - 1) < 0.2, "noise \(estimate) vs \(truth)")
        }
        #expect(abs(m.accelScaleError - (gravity.length / SensorLimits.standardGravity - 1)) < 0.001)
        #expect(m.samples == 301)
        #expect(abs(m.seconds - 3) < 0.02)
    }

    @Test func aTurnDuringTheRunIsRefusedAtOnce() {
        var samples = Self.still(seconds: 2, accel: Vector3(0, -9.81, 0), bias: Vector3(0.01, 0, 0), gyroSigma: 0.002, accelSigma: 0.02)
        // Half a second in, someone turns the device at 0.5 rad/s about its Y axis.
        for i in 50..<80 { samples[i].gyro = samples[i].gyro! + Vector3(0, 0.5, 0) }
        let (refusal, estimator) = Self.run(samples)
        #expect(refusal?.failure == .moved)
        #expect(estimator.gyro.count <= 51, "refused at the first turning sample")
        #expect(refusal?.message.contains("moved") == true)
    }

    @Test func aTiltShowsInTheAccelerometerEvenWhenTheGyroscopeMissesIt() {
        // 30° about X over 3 s with a gyroscope that reports nothing of it (a stalled sensor):
        // gravity alone swings by 4.9 m/s², and that refuses the run.
        let samples = (0...300).map { i -> Sample in
            let angle = Double(i) / 300 * .pi / 6
            return Sample(t: Int64(i) * Self.period, accel: Vector3(0, -9.81 * cos(angle), 9.81 * sin(angle)),
                          gyro: Vector3(0.01, 0, 0))
        }
        let (refusal, _) = Self.run(samples)
        #expect(refusal?.failure == .moved)
    }

    @Test func aSteadyTurnIsNotTakenForABias() {
        // A turntable: 0.8 rad/s about the vertical axis of a device lying face-up; gravity
        // never changes, only the size of the "bias" gives it away.
        let samples = Self.still(seconds: 2, accel: Vector3(0, 0, -9.81), bias: Vector3(0, 0, 0.8), gyroSigma: 0.002, accelSigma: 0.02)
        let (refusal, estimator) = Self.run(samples)
        #expect(refusal == nil)
        guard case .failure(let r) = estimator.finish() else {
            Issue.record("a steady 0.8 rad/s turn was accepted as a bias")
            return
        }
        #expect(r.failure == .moved)
    }

    @Test func aNoisyButStillDeviceIsAccepted() throws {
        // Cheap sensors: 0.01 rad/s and 0.1 m/s² of noise are still "lying still".
        let samples = Self.still(seconds: 2, accel: Vector3(0, -9.81, 0), bias: Vector3(0.05, -0.04, 0.02),
                                 gyroSigma: 0.01, accelSigma: 0.1, seed: 7)
        let (refusal, estimator) = Self.run(samples)
        #expect(refusal == nil, "\(refusal?.message ?? "")")
        let m = try estimator.finish().get()
        #expect((m.gyroBias - Vector3(0.05, -0.04, 0.02)).length < 0.005)
    }

    @Test func missingGyroscopeIsNamed() {
        var estimator = CalibrationEstimator()
        for i in 0..<100 { _ = estimator.add(Sample(t: Int64(i) * Self.period, accel: Vector3(0, -9.81, 0), gyro: nil)) }
        guard case .failure(let r) = estimator.finish() else { Issue.record("accepted without a gyroscope"); return }
        #expect(r.failure == .missingSensor)
        #expect(r.message.contains("gyroscope"))
    }

    @Test func gravityFarFromGIsImplausible() {
        let samples = Self.still(seconds: 1, accel: Vector3(0, -3, 0), bias: .zero, gyroSigma: 0.001, accelSigma: 0.01)
        let (_, estimator) = Self.run(samples)
        guard case .failure(let r) = estimator.finish() else { Issue.record("3 m/s² accepted as gravity"); return }
        #expect(r.failure == .implausible)
    }

    @Test func welfordMatchesTwoPassStatistics() {
        var noise = Noise(state: 42)
        let values = (0..<500).map { _ in Vector3(9.8, -3, 0.5) + noise.vector(0.2) }
        var stats = VectorStatistics()
        for v in values { stats.add(v) }
        let mean = values.reduce(Vector3.zero, +) / Double(values.count)
        let variance = values.reduce(0.0) { $0 + ($1.x - mean.x) * ($1.x - mean.x) } / Double(values.count - 1)
        #expect(abs(stats.mean.x - mean.x) < 1e-12)
        #expect(abs(stats.standardDeviation.x - variance.squareRoot()) < 1e-12)
    }
}
