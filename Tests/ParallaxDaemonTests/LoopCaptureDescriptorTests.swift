import CLinux
import Glibc
import ParallaxIIO
import ParallaxMotion
import SystemPackage
import Testing
@testable import ParallaxDaemon

/// A source with a descriptor (an evdev node) read on the event loop (LoopCapture.swift): the
/// loop watches the descriptor only while it waits for a sample already due, so a device that
/// reports faster than frames are due does not wake it per report.
@Suite struct LoopCaptureDescriptorTests {
    static let ms: Int64 = 1_000_000

    /// Samples through a pipe, a byte each, timed when read: a node's readiness without a device.
    final class PipeSource: PollableSource {
        struct NoPipe: Error {}
        let sensors = [SensorDescription(kind: .accelerometer, device: "pipe", location: "test", rate: 250)]
        let readEnd: Int32
        let writeEnd: Int32
        private(set) var lastSampleArrival: Int64 = 0
        private(set) var closed = false

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw NoPipe() }
            for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        func send(_ count: Int = 1) {
            let bytes = [UInt8](repeating: 1, count: count)
            _ = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        }

        var hasEnded: Bool { false }
        /// Long: the capture's guard against overflow never fires within a test.
        var queueSpan: Int64 { 60_000 * LoopCaptureDescriptorTests.ms }
        var nextReadable: Int64 { .max }
        var descriptor: FileDescriptor? { closed ? nil : FileDescriptor(rawValue: readEnd) }
        func expectedArrival(ofSampleAt time: Int64) -> Int64 { time }

        func takeQueued() throws(SensorError) -> Sample? {
            var byte: UInt8 = 0
            guard !closed, read(readEnd, &byte, 1) == 1 else { return nil }
            lastSampleArrival = plx_monotonic_ns()
            return Sample(t: lastSampleArrival, accel: Vector3(0, 0, 9.81))
        }

        func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? { try takeQueued() }

        func close() {
            guard !closed else { return }
            closed = true
            Glibc.close(readEnd)
            Glibc.close(writeEnd)
        }

        func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace {
            RestPace(rate: 250, samplesPerWake: 1, wakesThroughDescriptor: false)
        }
        func leaveRest() throws(SensorError) {}
        var restWakeup: RestWakeup { RestWakeup() }
        func takeResting() throws(SensorError) -> Sample? { try takeQueued() }
    }

    @Test func aDueSampleWakesTheLoopThroughTheDescriptorAndAFarNeedDoesNot() throws {
        let source = try PipeSource()
        let rig = try LoopCaptureTests.Rig(open: { source })
        #expect(rig.capture.start())
        defer { rig.capture.stop() }
        #expect(rig.run(seconds: 2) { $0.events.contains { if case .opened = $0 { true } else { false } } })

        // The loop takes at its own forecast: reports meanwhile are left queued, no wake.
        rig.capture.wakeForSamples(SampleNeed(need: .max))
        rig.events = []
        let wakesBefore = rig.wakes.count
        source.send(5)
        #expect(!rig.run(seconds: 0.2) { !$0.samples.isEmpty }, "a report woke the loop though no sample was due")
        #expect(rig.wakes.count == wakesBefore)
        let taken = try #require(rig.capture.takeQueuedEvents())
        #expect(taken.events.filter { if case .sample = $0 { true } else { false } }.count == 5)

        // A sample due now: the next report wakes the loop at once, through the descriptor.
        rig.capture.wakeForSamples(SampleNeed(need: plx_monotonic_ns()))
        let sent = plx_monotonic_ns()
        rig.loop.schedule(at: sent + 50 * Self.ms) { source.send() }
        #expect(rig.run(seconds: 2) { !$0.samples.isEmpty })
        let sample = try #require(rig.samples.first)
        #expect(sample.t >= sent + 50 * Self.ms && sample.t < sent + 550 * Self.ms, "read \((sample.t - sent) / Self.ms) ms after")
    }

    @Test func aSourceSilentWhileWatchedIsLookedAtOnceASecond() throws {
        final class Counting: PollableSource {
            let inner: PipeSource
            var looks = 0
            init(_ inner: PipeSource) { self.inner = inner }
            var sensors: [SensorDescription] { inner.sensors }
            var hasEnded: Bool { false }
            var queueSpan: Int64 { inner.queueSpan }
            var nextReadable: Int64 { .max }
            var descriptor: FileDescriptor? { inner.descriptor }
            var lastSampleArrival: Int64 { inner.lastSampleArrival }
            func expectedArrival(ofSampleAt time: Int64) -> Int64 { time }
            func takeQueued() throws(SensorError) -> Sample? { looks += 1; return try inner.takeQueued() }
            func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? { try takeQueued() }
            func close() { inner.close() }
            func enterRest(_ request: RestRequest) throws(SensorError) -> RestPace { try inner.enterRest(request) }
            func leaveRest() throws(SensorError) {}
            var restWakeup: RestWakeup { RestWakeup() }
            func takeResting() throws(SensorError) -> Sample? { try takeQueued() }
        }
        let source = Counting(try PipeSource())
        let rig = try LoopCaptureTests.Rig(open: { source })
        #expect(rig.capture.start())
        defer { rig.capture.stop() }
        // Every sample wakes the loop (no need planned yet): the descriptor is watched; silent
        // for 2.5 s, the source is looked at twice (a driver says why it is silent), not spun on.
        let before = source.looks
        _ = rig.run(seconds: 2.5) { _ in false }
        #expect((2...3).contains(source.looks - before), "\(source.looks - before) looks in 2.5 s of silence")
    }
}
