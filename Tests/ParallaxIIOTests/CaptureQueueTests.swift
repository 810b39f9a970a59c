import ParallaxMotion
import Testing
@testable import ParallaxIIO

/// The capture thread's queue to the loop behind a loop that does not drain: samples beyond
/// `SensorCapture.queueLimit` push the oldest samples out (counted as dropped), whatever other
/// events (opened, resting, awake) sit among them; those are never dropped.
struct CaptureQueueTests {
    static func capture() -> SensorCapture {
        SensorCapture(open: { () throws(SensorError) -> any SensorDriver in throw SensorError(.noSensors, "unused") },
                      wake: {})
    }

    static func sample(_ i: Int) -> Sample {
        Sample(t: Int64(i) * 1_000_000, accel: Vector3(0, 0, 9.81), gyro: nil)
    }

    @Test func theCapHoldsWithAnotherEventAtTheHead() {
        let capture = Self.capture()
        let sensors = [SensorDescription(kind: .accelerometer, device: "test", location: "test", rate: 100)]
        capture.post(.opened(sensors))
        let extra = 100
        for i in 0..<(SensorCapture.queueLimit + extra) { capture.post(.sample(Self.sample(i))) }
        let (events, dropped) = capture.events()
        #expect(events.count == SensorCapture.queueLimit + 1)
        #expect(dropped == extra)
        #expect(events.first == .opened(sensors))
        // The newest samples are kept, in order.
        #expect(events.dropFirst().first == .sample(Self.sample(extra)))
        #expect(events.last == .sample(Self.sample(SensorCapture.queueLimit + extra - 1)))
    }

    @Test func eventsAmongTheSamplesSurviveAndKeepTheirOrder() {
        let capture = Self.capture()
        for i in 0..<SensorCapture.queueLimit { capture.post(.sample(Self.sample(i))) }
        capture.post(.awake(moved: true, order: 1))
        for i in 0..<SensorCapture.queueLimit { capture.post(.sample(Self.sample(SensorCapture.queueLimit + i))) }
        let (events, dropped) = capture.events()
        #expect(events.count == SensorCapture.queueLimit + 1)
        #expect(dropped == SensorCapture.queueLimit)
        // Every older sample went; the event stays first, before the newer samples.
        #expect(events.first == .awake(moved: true, order: 1))
        #expect(events.dropFirst().allSatisfy { if case .sample = $0 { true } else { false } })
    }
}
