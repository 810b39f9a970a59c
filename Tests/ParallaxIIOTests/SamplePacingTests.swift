import Dispatch
import Glibc
import Logging
import ParallaxMotion
import Synchronization
import Testing
@testable import ParallaxIIO

/// A trace of a device lying still, `seconds` long at `rate` Hz.
private func stillTrace(rate: Double, seconds: Double) throws -> String {
    var text = "t_ns,ax,ay,az,gx,gy,gz\n"
    for i in 0..<Int(rate * seconds) {
        text += "\(Int64(Double(i) * 1e9 / rate)),0,0,9.81,0,0,0\n"
    }
    return try temporaryFile(text)
}

/// The time of the sample a driver returned last: the capture thread posts each sample it reads
/// before it reads the next, so at a wake this is the sample that woke the loop.
private final class LastRead: Sendable {
    private let time = Mutex<Int64?>(nil)
    func record(_ sample: Sample) { time.withLock { $0 = sample.t } }
    var sampleTime: Int64? { time.withLock { $0 } }
}

/// When the capture thread woke the loop (monotonic ns) and the sample it had read last then, and
/// a semaphore per wake.
private final class WakeLog: Sendable {
    private let wakes = Mutex<[(time: Int64, sample: Int64?)]>([])
    private let semaphore = DispatchSemaphore(value: 0)
    let lastRead = LastRead()

    func record() {
        let sample = lastRead.sampleTime
        wakes.withLock { $0.append((MonotonicClock.now(), sample)) }
        semaphore.signal()
    }

    /// Waits for the next wake; its time, or nil after `seconds`.
    func next(within seconds: Double) -> Int64? {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return nil }
        return wakes.withLock { $0.last?.time }
    }

    /// The time of the sample read last before the latest wake.
    var wakingSample: Int64? { wakes.withLock { $0.last?.sample } }
}

/// A source whose reads block until the next sample comes, as a polled sysfs device's do: a
/// replay behind `SensorDriver` alone, so the capture thread reads it itself.
private final class BlockingReplay: SensorDriver {
    let replay: ReplayDriver
    let lastRead: LastRead
    init(_ replay: ReplayDriver, lastRead: LastRead) {
        self.replay = replay
        self.lastRead = lastRead
    }
    var sensors: [SensorDescription] { replay.sensors }
    func nextSample(shouldStop: () -> Bool) throws(SensorError) -> Sample? {
        let sample = try replay.nextSample(shouldStop: shouldStop)
        if let sample { lastRead.record(sample) }
        return sample
    }
    func close() { replay.close() }
}

/// A capture thread reading `path` (not looping) with blocking reads, logging its wakes of the loop.
private func blockingCapture(_ path: String, wakes: WakeLog) -> SensorCapture {
    SensorCapture(open: { () throws(SensorError) -> any SensorDriver in
        BlockingReplay(try ReplayDriver(path: path, loop: false, logger: Logger(label: "test")), lastRead: wakes.lastRead)
    }, wake: { wakes.record() })
}

@Suite struct SamplePacingTests {
    @Test func replayForecastsItsNextSampleAndNeverHandsOverOneEarly() throws {
        let path = try stillTrace(rate: 200, seconds: 2)
        defer { unlink(path) }
        let driver = try ReplayDriver(path: path, loop: false, logger: Logger(label: "test"))
        for _ in 0..<5 { _ = try driver.nextSample(shouldStop: { false }) }
        let last = driver.lastSampleArrival
        // Samples every 5 ms: the first one taken at or after last + 12 ms is due at last + 15 ms.
        let forecast = driver.expectedArrival(ofSampleAt: last + 12_000_000)
        #expect(forecast >= last + 15_000_000 && forecast < last + 15_000_000 + 1_000, "forecast \(forecast - last) ns after the last sample")
        // Taking without waiting only ever hands over samples whose time has come.
        var taken = 0
        let until = last + 40_000_000
        while MonotonicClock.now() < until {
            if try driver.takeQueued() != nil {
                taken += 1
                #expect(driver.lastSampleArrival <= MonotonicClock.now())
            }
        }
        #expect(taken >= 6 && taken <= 8, "\(taken) samples taken in 40 ms at 200 Hz")
    }

    @Test func captureQueuesSamplesUntilTheLoopNeedsThemThenWakesItWithTheBatch() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = blockingCapture(path, wakes: wakes)
        // The loop's word before the thread starts: nothing needed for 300 ms, then every 100 ms.
        let need = MonotonicClock.now() + 300_000_000
        capture.wakeForSamples(SampleNeed(need: need, following: need + 100_000_000))
        #expect(capture.start())
        defer { capture.stopAndWait() }

        let opened = try #require(wakes.next(within: 5))
        #expect(opened < need, "opening took longer than the test allows")
        // The loop learns with `.opened` that it cannot take from this source itself.
        guard case .opened(_, let abilities) = capture.events().events.first else {
            Issue.record("the capture's first event is not .opened")
            return
        }
        #expect(abilities == SourceAbilities(takesQueued: false, rests: false))
        #expect(capture.takeQueuedEvents() == nil && capture.expectedArrival(ofSampleAt: need) == nil)

        // Samples before the need queue without waking the loop.
        let first = try #require(wakes.next(within: 5))
        #expect(first >= need, "woke the loop \((need - first) / 1_000_000) ms before it needed samples")
        let batch = capture.events().events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
        // Every sample the replay made before the need is in it (one per 5 ms from its first; how
        // many depends on how long opening took, which a loaded machine stretches), and enough of
        // them that holding them back was a real choice.
        let early = batch.filter { $0.t < need }
        let made = early.first.map { Int((need - $0.t) / 5_000_000) } ?? 0
        #expect(early.count >= 5 && early.count >= made, "\(early.count) of \(made) samples before the need in the batch")
        // The sample that woke the loop is in the batch, so the loop gets it at once. (It was read
        // at or after the need; on a loaded machine its own time may be a little before it.)
        let waking = try #require(wakes.wakingSample)
        #expect(batch.contains { $0.t == waking }, "the fresh sample that woke the loop is missing")

        // Without a new word from the loop, the forecast need comes next.
        let second = try #require(wakes.next(within: 5))
        #expect(second >= need + 100_000_000)
    }

    @Test func aSoonerNeedTakesEffectAtTheNextSample() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = blockingCapture(path, wakes: wakes)
        capture.wakeForSamples(SampleNeed(need: MonotonicClock.now() + 5_000_000_000))
        #expect(capture.start())
        defer { capture.stopAndWait() }
        _ = try #require(wakes.next(within: 5))
        _ = capture.events()
        // Nothing needed for 5 s; a subscriber arrives and needs samples in 50 ms.
        let sooner = MonotonicClock.now() + 50_000_000
        capture.wakeForSamples(SampleNeed(need: sooner))
        let woke = try #require(wakes.next(within: 2), "the capture kept the sooner need's sample")
        #expect(woke >= sooner && woke < sooner + 1_000_000_000)
    }

    @Test func aSourceTheLoopCanReadIsHandedToIt() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = SensorCapture(open: { () throws(SensorError) -> any SensorDriver in
            try ReplayDriver(path: path, loop: false, logger: Logger(label: "test"))
        }, wake: { wakes.record() })
        #expect(capture.start())
        defer { capture.stopAndWait() }
        _ = try #require(wakes.next(within: 5))
        // The thread opened it, handed it over and ended: no sample of it comes from here.
        #expect(capture.events().events == [.handedOver])
        let source = try #require(capture.takeHandedOver(), "the replay was not handed over")
        defer { source.close() }
        #expect(capture.takeHandedOver() == nil, "handed over twice")
        #expect(wakes.next(within: 0.1) == nil, "the capture thread woke the loop after handing the source over")
        #expect(source is ReplayDriver)
    }
}
