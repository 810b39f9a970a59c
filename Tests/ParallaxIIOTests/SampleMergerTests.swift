#if canImport(Glibc)
import Glibc
#endif
import ParallaxMotion
import Testing
@testable import ParallaxIIO

/// Merging the streams of separate devices (a HID hub's accel_3d and gyro_3d) into one stream
/// in time order (SampleMerger.swift), with made-up clocks.
@Suite struct SampleMergerTests {
    static let ms: Int64 = 1_000_000

    static func accel(_ t: Int64) -> Sample { Sample(t: t, accel: Vector3(0, -9.8, Double(t) / 1e9)) }
    static func gyro(_ t: Int64) -> Sample { Sample(t: t, gyro: Vector3(Double(t) / 1e9, 0, 0)) }

    /// Everything `merger` hands over at `now`.
    static func take(_ merger: inout SampleMerger, now: Int64) -> [Sample] {
        var out: [Sample] = []
        while let next = merger.next(now: now) { out.append(next.sample) }
        return out
    }

    @Test func oneStreamGoesAtOnce() {
        var merger = SampleMerger(periods: [10 * Self.ms])
        merger.push(Self.accel(100 * Self.ms), lane: 0)
        #expect(Self.take(&merger, now: 0).map(\.t) == [100 * Self.ms])
    }

    @Test func aSampleWaitsUntilTheOtherStreamHasReportedPastIt() {
        var merger = SampleMerger(periods: [10 * Self.ms, 10 * Self.ms])
        // The gyroscope's scans at 100 and 110 ms are read before the accelerometer's at 95.
        merger.push(Self.gyro(100 * Self.ms), lane: 1)
        merger.push(Self.gyro(110 * Self.ms), lane: 1)
        #expect(Self.take(&merger, now: 111 * Self.ms).isEmpty)
        merger.push(Self.accel(95 * Self.ms), lane: 0)
        // 95 goes; 100 and 110 wait for the accelerometer to pass them (it reported up to 95).
        #expect(Self.take(&merger, now: 112 * Self.ms).map(\.t) == [95 * Self.ms])
        merger.push(Self.accel(105 * Self.ms), lane: 0)
        #expect(Self.take(&merger, now: 113 * Self.ms).map(\.t) == [100 * Self.ms, 105 * Self.ms])
        #expect(merger.late == 0)
    }

    @Test func aSampleGoesAtOnceWhenTheOtherStreamCannotBeEarlier() {
        // The accelerometer (every 10 ms) reported at 96 ms: its next sample comes at 101 ms at
        // the earliest (half a period), so the gyroscope's at 100 goes now; at 102 it would wait.
        var merger = SampleMerger(periods: [10 * Self.ms, 10 * Self.ms])
        merger.push(Self.accel(96 * Self.ms), lane: 0)
        merger.push(Self.gyro(100 * Self.ms), lane: 1)
        #expect(Self.take(&merger, now: 100 * Self.ms).map(\.t) == [96 * Self.ms, 100 * Self.ms])
        merger.push(Self.gyro(102 * Self.ms), lane: 1)
        #expect(Self.take(&merger, now: 102 * Self.ms).isEmpty)
        #expect(merger.releaseTime() == 122 * Self.ms)
        // 106 goes too: the gyroscope's next comes at 107 at the earliest.
        merger.push(Self.accel(106 * Self.ms), lane: 0)
        #expect(Self.take(&merger, now: 106 * Self.ms).map(\.t) == [102 * Self.ms, 106 * Self.ms])
        #expect(merger.late == 0)
    }

    @Test func aSilentStreamHoldsTheOtherAtMostItsHold() {
        // The gyroscope's device went silent (a hub at rest, a stalled trigger): accelerometer
        // samples go once they are `hold` old, never later.
        #expect(SampleMerger.hold(forPeriod: 10 * Self.ms) == 20 * Self.ms)
        var merger = SampleMerger(periods: [10 * Self.ms, 10 * Self.ms])
        merger.push(Self.accel(100 * Self.ms), lane: 0)
        #expect(merger.releaseTime() == 120 * Self.ms)
        #expect(Self.take(&merger, now: 119 * Self.ms).isEmpty)
        #expect(Self.take(&merger, now: 120 * Self.ms).map(\.t) == [100 * Self.ms])
        #expect(merger.releaseTime() == nil)
    }

    @Test func theHoldNeverExceedsItsBound() {
        #expect(SampleMerger.hold(forPeriod: 160 * Self.ms) == SampleMerger.maximumHold)
        #expect(SampleMerger.hold(forPeriod: .max) == SampleMerger.maximumHold)
        #expect(SampleMerger.hold(forPeriod: -5) == 0)
        // Within half the onset budget a motion's first sample has.
        #expect(SampleMerger.maximumHold * 2 <= RestRequest.defaultOnsetBudget)
    }

    @Test func aStreamNobodyWaitsForLetsTheOtherGoAtOnce() {
        // At rest at the hub a silent device gets hold 0: the first moving sample goes at once.
        var merger = SampleMerger(periods: [10 * Self.ms, 10 * Self.ms])
        merger.waitForNothing(lane: 1)
        merger.push(Self.accel(500 * Self.ms), lane: 0)
        #expect(Self.take(&merger, now: 500 * Self.ms).map(\.t) == [500 * Self.ms])
    }

    @Test func aSampleOlderThanOneHandedOverKeepsTheOrder() {
        var merger = SampleMerger(periods: [10 * Self.ms, 10 * Self.ms])
        merger.push(Self.accel(100 * Self.ms), lane: 0)
        #expect(Self.take(&merger, now: 130 * Self.ms).map(\.t) == [100 * Self.ms])
        // The gyroscope was given up on; its scan at 90 ms comes now.
        merger.push(Self.gyro(90 * Self.ms), lane: 1)
        let late = Self.take(&merger, now: 131 * Self.ms)
        #expect(late.map(\.t) == [100 * Self.ms])
        #expect(late.first?.gyro != nil)
        #expect(merger.late == 1)
    }

    /// Accelerometer at 50 Hz and gyroscope at 100 Hz as separate devices, each read in batches
    /// on its own schedule (the gyroscope 30 ms ahead of the accelerometer): what the merger
    /// hands over is exactly the time-sorted stream.
    static func separateDevices(seconds: Int = 4) -> (arrivals: [(read: Int64, lane: Int, sample: Sample)], sorted: [Sample]) {
        var arrivals: [(read: Int64, lane: Int, sample: Sample)] = []
        let start: Int64 = 1_000 * ms
        for i in 0..<(50 * seconds) {
            let t = start + Int64(i) * 20 * ms + 3 * ms  // the accelerometer's own phase
            // Read in pairs, 10 ms after the second was measured (the first waited 30 ms).
            let read = t + (i % 2 == 0 ? 20 * ms : 0) + 10 * ms
            arrivals.append((read, 0, Sample(t: t, accel: wobbleGravity(t))))
        }
        for i in 0..<(100 * seconds) {
            let t = start + Int64(i) * 10 * ms
            arrivals.append((t + 1 * ms, 1, Sample(t: t, gyro: wobbleRate(t))))
        }
        let sorted = arrivals.map(\.sample).sorted { $0.t < $1.t }
        arrivals.sort { ($0.read, $0.lane) < ($1.read, $1.lane) }
        return (arrivals, sorted)
    }

    static func wobbleRate(_ t: Int64) -> Vector3 {
        let s = Double(t) / 1e9
        return Vector3(0.6 * sin(2 * .pi * 0.5 * s), 0.4 * sin(2 * .pi * 0.3 * s), 0)
    }

    static func wobbleGravity(_ t: Int64) -> Vector3 {
        let s = Double(t) / 1e9
        let a = 0.3 * sin(2 * .pi * 0.5 * s)
        return Vector3(0, -9.80665 * cos(a), -9.80665 * sin(a))
    }

    @Test func separateDevicesAtDifferentRatesMergeIntoTimeOrder() {
        let (arrivals, sorted) = Self.separateDevices()
        var merger = SampleMerger(periods: [20 * Self.ms, 10 * Self.ms])
        var merged: [Sample] = []
        var worstWait: Int64 = 0
        for arrival in arrivals {
            merger.push(arrival.sample, lane: arrival.lane)
            while let next = merger.next(now: arrival.read) {
                merged.append(next.sample)
                worstWait = max(worstWait, arrival.read - next.sample.t)
            }
        }
        merger.drain { sample, _ in merged.append(sample) }
        #expect(merged == sorted, "\(merged.count) merged, \(sorted.count) sorted")
        #expect(merger.late == 0)
        // No sample waited longer than the slower device's own delay plus its hold.
        #expect(worstWait <= 30 * Self.ms + SampleMerger.maximumHold)
    }

    @Test func theEngineGetsTheSameMotionFromMergedStreamsAsFromTheSortedOne() {
        // The fusion keeps one interval per sensor, so an interleaved accelerometer-only and
        // gyroscope-only stream at different rates is what it integrates correctly
        // (ParallaxMotionTests SampleTimingTests); out of order it is not.
        let (arrivals, sorted) = Self.separateDevices()
        var merger = SampleMerger(periods: [20 * Self.ms, 10 * Self.ms])
        var merged = MotionEngine()
        var reference = MotionEngine()
        var unmerged = MotionEngine()
        for arrival in arrivals {
            merger.push(arrival.sample, lane: arrival.lane)
            while let next = merger.next(now: arrival.read) { _ = merged.update(next.sample) }
            _ = unmerged.update(arrival.sample)
        }
        merger.drain { sample, _ in _ = merged.update(sample) }
        for sample in sorted { _ = reference.update(sample) }
        #expect(merged.current == reference.current)
        #expect(merged.attitude == reference.attitude)
        #expect(reference.current != .zero)
        // The control: in read order the engine sees time run backwards and ends elsewhere.
        #expect(unmerged.attitude != reference.attitude)
    }
}

/// At rest: HID hubs at the hub, other devices slowed down (IIOBufferedDriver+Rest.swift).
@Suite struct StreamRestTests {
    @Test func aHubRestsAtItsReportIntervalSilentBelowItsSensitivity() {
        // The interval stays: the first change beyond the raised sensitivity is reported within
        // one full-rate interval. The pace is the most the loop may hear while still.
        let plan = StreamRest.choose(offered: [[]], activeRates: [100], activeRate: 100, atHub: true,
                                     request: RestRequest(), wakesThroughDescriptor: true)
        #expect(plan.atHub)
        #expect(plan.rates == [nil])
        #expect(plan.pace == RestPace(rate: 6.25, samplesPerWake: 1, wakesThroughDescriptor: true))
    }

    @Test func aHubAlreadySlowerKeepsItsRate() {
        let plan = StreamRest.choose(offered: [[]], activeRates: [5], activeRate: 5, atHub: true,
                                     request: RestRequest(), wakesThroughDescriptor: true)
        #expect(plan.rates == [nil])
        #expect(plan.pace.rate == 5)
    }

    @Test func aDeviceWithoutHysteresisRestsAsBefore() {
        let bmi160 = [0.78125, 1.5625, 3.125, 6.25, 12.5, 25, 50, 100, 200, 400, 800, 1600]
        let plan = StreamRest.choose(offered: [bmi160, [25, 50, 100, 200, 400]], activeRates: [200, 200], activeRate: 200,
                                     atHub: false, request: RestRequest(), wakesThroughDescriptor: true)
        #expect(!plan.atHub)
        #expect(plan.rates == [6.25, 25])
        #expect(plan.pace == RestPace(rate: 25, samplesPerWake: 3, wakesThroughDescriptor: true))
    }

    @Test(arguments: [
        // (kind, IIO scale, hub unit in SI, rest sensitivity in the hub's unit)
        (SensorKind.accelerometer, 0.0980665, 9.80665, 0.15 / 9.80665),  // 0.01 g steps (a real ISH hub)
        (.accelerometer, 9.80665e-4, 9.80665, 0.15 / 9.80665),
        (.accelerometer, 0.01, 1.0, 0.15),                               // 0.01 m/s² steps
        (.gyroscope, 0.000174532925, .pi / 180, 0.05 * 180 / .pi),      // 0.01 °/s steps
        (.gyroscope, 0.001, 1.0, 0.05),                                  // mrad/s steps
        (.gyroscope, .nan, 1.0, 0.05),
    ])
    func hubSensitivityAtRestIsStillnessToleranceInTheHubsUnit(kind: SensorKind, scale: Double, unit: Double, rest: Double) {
        // The hub's unit shows in the scale the kernel derived from it (hid_sensor_format_scale).
        #expect(abs(HubRest.unit(scale: scale, kind: kind) - unit) < 1e-9)
        #expect(abs(HubRest.restHysteresis(kind: kind, unit: unit, atOpen: 0) - rest) < 1e-9)
        // In SI it is Stillness's tolerance: a change below it does not end a rest anyway.
        let tolerance = kind == .accelerometer
            ? Stillness.Settings.defaultAccelerometerTolerance : Stillness.Settings.defaultGyroscopeTolerance
        #expect(abs(HubRest.restHysteresis(kind: kind, unit: unit, atOpen: 0) * unit - tolerance) < 1e-9)
    }

    @Test func aHubAlreadyLessSensitiveKeepsItsValue() {
        #expect(HubRest.restHysteresis(kind: .accelerometer, unit: 9.80665, atOpen: 1.27) == 1.27)
        #expect(HubRest.restHysteresis(kind: .gyroscope, unit: 1, atOpen: .nan) == 0.05)
    }

    @Test func aHubReportIsMotionWhenItChangedByHalfTheToleranceSinceTheRestBegan() {
        let still = Sample(t: 0, accel: Vector3(0, 0, -9.80665))
        // A report past the sensitivity (0.15 m/s²): motion, even if the gate is on the fence.
        #expect(HubRest.isMotion(Sample(t: 1, accel: Vector3(0, 0.16, -9.80665)), since: still))
        // A report carrying the still value (a hub re-enabled, noise): not motion.
        #expect(!HubRest.isMotion(Sample(t: 1, accel: Vector3(0.02, -0.01, -9.79)), since: still))
        // A gyroscope report past half its tolerance (0.025 rad/s).
        let stillGyro = Sample(t: 0, gyro: Vector3(0.001, 0, 0))
        #expect(HubRest.isMotion(Sample(t: 1, gyro: Vector3(0, 0.03, 0)), since: stillGyro))
        #expect(!HubRest.isMotion(Sample(t: 1, gyro: Vector3(0.004, 0, 0)), since: stillGyro))
        // Nothing to compare with: a report is a change.
        #expect(HubRest.isMotion(Sample(t: 1, accel: Vector3(0, 0, -9.8)), since: nil))
    }

    @Test func hysteresisIsWrittenAsSysfsTakesIt() {
        #expect(HubSensitivity.text(0.0152957) == "0.015296")
        #expect(HubSensitivity.text(0.05) == "0.050000")
        #expect(HubSensitivity.text(0) == "0.000000")
        #expect(HubSensitivity.text(1.27) == "1.270000")
        // A sensitivity read from sysfs as garbage is written bounded, never trapping.
        #expect(HubSensitivity.text(1e300) == "1000000000000.000000")
        #expect(HubSensitivity.text(.infinity) == "0.000000")
        #expect(HubSensitivity.text(-3) == "0.000000")
    }

    @Test func devicesRestingTogetherWakeAsTheFastestAndOnlyThroughDescriptorsIfAllDo() {
        let hub = RestPace(rate: 6.25, samplesPerWake: 1, wakesThroughDescriptor: true)
        let slowed = RestPace(rate: 25, samplesPerWake: 3, wakesThroughDescriptor: true)
        let timer = RestPace(rate: 100, samplesPerWake: 8, wakesThroughDescriptor: false)
        #expect(RestPace.combined([hub]) == hub)
        #expect(RestPace.combined([hub, slowed]) == RestPace(rate: 25, samplesPerWake: 1, wakesThroughDescriptor: true))
        #expect(RestPace.combined([hub, timer]).wakesThroughDescriptor == false)
    }
}
