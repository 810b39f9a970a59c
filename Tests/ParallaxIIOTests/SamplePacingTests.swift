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

/// When the capture thread woke the loop (monotonic ns), which thread that was, and a
/// semaphore per wake.
private final class WakeLog: Sendable {
    private let times = Mutex<[Int64]>([])
    private let waker = Mutex<String?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func record() {
        times.withLock { $0.append(MonotonicClock.now()) }
        if waker.withLock({ $0 }) == nil, let task = currentTask() { waker.withLock { $0 = task } }
        semaphore.signal()
    }

    /// The capture thread's /proc/self/task entry (the wake callback runs on it). Tests run in
    /// parallel, each with its own capture thread of the same name: only this one counts.
    var captureTask: String? { waker.withLock { $0 } }

    /// Waits for the next wake; its time, or nil after `seconds`.
    func next(within seconds: Double) -> Int64? {
        guard semaphore.wait(timeout: .now() + seconds) == .success else { return nil }
        return times.withLock { $0.last }
    }
}

/// The calling thread's task id ("/proc/thread-self" links to "PID/task/TID").
private func currentTask() -> String? {
    var buffer = [CChar](repeating: 0, count: 64)
    let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return link.split(separator: "/").last.map(String.init)
}

/// Voluntary context switches of the capture thread that woke `wakes`: one per time it slept.
private func captureThreadSleeps(_ wakes: WakeLog) -> Int? {
    guard let tid = wakes.captureTask,
          read("/proc/self/task/\(tid)/comm")?.hasPrefix(SensorCapture.threadName) == true,
          let status = read("/proc/self/task/\(tid)/status") else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
        return Int(line.split(separator: "\t").last!.trimmingPrefix(" "))
    }
    return nil
}

private func read(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = fread(&buffer, 1, buffer.count - 1, f)
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A capture thread replaying `path` (not looping) that logs its wakes of the loop.
private func replayCapture(_ path: String, wakes: WakeLog) -> SensorCapture {
    SensorCapture(open: { () throws(SensorError) -> any SensorDriver in
        try ReplayDriver(path: path, loop: false, logger: Logger(label: "test"))
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

    @Test func captureSleepsUntilTheLoopNeedsSamplesThenHandsOverTheBatch() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = replayCapture(path, wakes: wakes)
        // The loop's word before the thread starts: nothing needed for 300 ms, then every 100 ms.
        let need = MonotonicClock.now() + 300_000_000
        capture.wakeForSamples(SampleNeed(need: need, following: need + 100_000_000))
        #expect(capture.start())
        defer { capture.stopAndWait() }

        let opened = try #require(wakes.next(within: 5))
        #expect(opened < need, "opening took longer than the test allows")
        let sleepsAtOpen = try #require(captureThreadSleeps(wakes), "the thread that woke the loop is not \(SensorCapture.threadName)")
        _ = capture.events()

        // Samples before the need queue without waking the loop, and without waking the capture
        // thread for each one either (the replay keeps them): about 60 of them, a few sleeps.
        let first = try #require(wakes.next(within: 5))
        #expect(first >= need, "woke the loop \((need - first) / 1_000_000) ms before it needed samples")
        let sleepsAtNeed = try #require(captureThreadSleeps(wakes))
        let batch = capture.events().events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
        // Every sample the replay made before the need is in it (one per 5 ms from its first; how
        // many depends on how long opening took, which a loaded machine stretches), and enough of
        // them that holding them back was a real choice.
        let early = batch.filter { $0.t < need }
        let made = early.first.map { Int((need - $0.t) / 5_000_000) } ?? 0
        #expect(early.count >= 5 && early.count >= made, "\(early.count) of \(made) samples before the need in the batch")
        #expect(batch.contains { $0.t >= need }, "the fresh sample that woke the loop is missing")
        #expect(sleepsAtNeed - sleepsAtOpen <= 10, "the capture thread slept \(sleepsAtNeed - sleepsAtOpen) times for one batch")

        // Without a new word from the loop, the forecast need comes next.
        let second = try #require(wakes.next(within: 5))
        #expect(second >= need + 100_000_000)
        #expect(try #require(captureThreadSleeps(wakes)) - sleepsAtNeed <= 10)
    }

    @Test func aSoonerNeedWakesASleepingCapture() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = replayCapture(path, wakes: wakes)
        capture.wakeForSamples(SampleNeed(need: MonotonicClock.now() + 5_000_000_000))
        #expect(capture.start())
        defer { capture.stopAndWait() }
        _ = try #require(wakes.next(within: 5))
        _ = capture.events()
        // Asleep until 5 s from now; a subscriber arrives and needs samples in 50 ms.
        let sooner = MonotonicClock.now() + 50_000_000
        capture.wakeForSamples(SampleNeed(need: sooner))
        let woke = try #require(wakes.next(within: 2), "the capture overslept a sooner need")
        #expect(woke >= sooner && woke < sooner + 1_000_000_000)
    }

    @Test func theLoopTakesQueuedSamplesItselfWhileTheCaptureSleeps() throws {
        let path = try stillTrace(rate: 200, seconds: 10)
        defer { unlink(path) }
        let wakes = WakeLog()
        let capture = replayCapture(path, wakes: wakes)
        // The loop's word: it takes the samples itself; the capture thread only guards the queue.
        capture.wakeForSamples(SampleNeed(need: .max))
        #expect(capture.start())
        defer { capture.stopAndWait() }
        _ = try #require(wakes.next(within: 5))
        // The loop learns with `.opened` that it may take from this source (and rest it).
        guard case .opened(_, let abilities) = capture.events().events.first else {
            Issue.record("the capture's first event is not .opened")
            return
        }
        #expect(abilities == SourceAbilities(takesQueued: true, rests: true))
        #expect(wakes.next(within: 0.1) == nil, "the capture thread woke the loop though it takes samples itself")

        let taken = try #require(capture.takeQueuedEvents(), "the capture thread held the source while asleep")
        let samples = taken.events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
        #expect(samples.count >= 15, "\(samples.count) samples queued in 100 ms at 200 Hz")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.t < $1.t })
        let newest = try #require(samples.last)
        #expect(taken.newestArrival == newest.t && newest.t <= MonotonicClock.now())
        // The forecast the loop arms its timer with: the next sample after 7 ms is 10 ms on.
        let forecast = try #require(capture.expectedArrival(ofSampleAt: newest.t + 7_000_000))
        #expect(forecast >= newest.t + 10_000_000 && forecast < newest.t + 10_001_000)
    }
}
