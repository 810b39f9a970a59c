// After a system sleep: the pose changed while neither sensor saw it, and CLOCK_MONOTONIC did not
// count the sleep, so the first sample after it looks like the next one of a still device.
import Testing
import ParallaxMotion

/// Upright engine past start-up, tipped `before` degrees about X and held there; then the device
/// lies at `after` degrees, 20 ms of monotonic time later (a resume), with `restart` called or
/// not. Returns the frames of the first 0.5 s after the resume and the settled offset at the new
/// pose 10 s later (what the frames should have said at once).
func acrossSleep(before: Double, after: Double, restart: Bool,
                 settings: MotionSettings = MotionSettings(recenter: false, directionalLock: false))
    -> (frames: [MotionFrame], settled: ViewerOffset) {
    var engine = MotionEngine(settings: settings)
    var device = SyntheticDevice.upright
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    let rate = before * degree / 0.5
    feed(&engine, count: 50) { device.advance(rate: Vector3(rate, 0, 0), dt: 0.01) }
    feed(&engine, count: 500) { device.hold(dt: 0.01) }
    if restart { engine.restartAttitude() }
    device.attitude = (device.attitude * Quaternion(axis: .unitX, angle: (after - before) * degree)).normalized()
    device.t += 20_000_000
    let frames = feed(&engine, count: 50) { device.hold(dt: 0.01) }
    feed(&engine, count: 1000) { device.hold(dt: 0.01) }
    return (frames, engine.current)
}

@Suite struct SleepRestartTests {
    @Test func withRecentringOffTheFirstFrameIsTheNewPoseAgainstTheSameReference() throws {
        let (frames, settled) = acrossSleep(before: 20, after: -20, restart: true)
        let first = try #require(frames.first)
        // −20° against the upright reference: y ≈ −20/90 (docs/frames.md), at once and for good.
        #expect(abs(settled.y - -20.0 / 90) < 0.02, "\(settled)")
        #expect(abs(first.offset.y - settled.y) < 0.01, "first \(first.offset), settled \(settled)")
        #expect(frames.allSatisfy { abs($0.offset.y - settled.y) < 0.01 }, "\(frames.map(\.offset.y))")
    }

    @Test func withoutTheRestartTheOffsetSweepsFromTheOldPose() throws {
        // The failure the restart prevents: the attitude goes on from +20° and the accelerometer
        // pulls it over seconds (FilterGain 0.5/s).
        let (frames, settled) = acrossSleep(before: 20, after: -20, restart: false)
        let first = try #require(frames.first)
        #expect(abs(first.offset.y - settled.y) > 0.1, "first \(first.offset), settled \(settled)")
    }

    @Test func withRecentringOnTheNewPoseIsTheRestingPose() throws {
        let (frames, _) = acrossSleep(before: 20, after: -20, restart: true,
                                      settings: MotionSettings(recenter: true, directionalLock: false))
        let first = try #require(frames.first)
        #expect(first.offset == .zero, "\(first.offset)")
        #expect(frames.allSatisfy { abs($0.offset.y) < 0.01 && abs($0.offset.x) < 0.01 }, "\(frames.map(\.offset))")
    }

    @Test func theFrameCountGoesOnAndTheFirstFrameComesWhateverMinimumChangeSays() throws {
        // The same pose before and after: a frame still comes at once, with a higher seq.
        var engine = MotionEngine(settings: MotionSettings(recenter: false, directionalLock: false))
        var device = SyntheticDevice.upright
        let before = feed(&engine, count: 400) { device.hold(dt: 0.01) }
        engine.restartAttitude()
        let sample = device.hold(dt: 0.01)
        let emitted = engine.update(sample)
        let frame = try #require(emitted)
        #expect(frame.seq > (before.last?.seq ?? 0))
        #expect(abs(frame.offset.x) < 0.01 && abs(frame.offset.y) < 0.01)
    }

    @Test func reopenedToBufferAgainTheReferenceStaysEvenWithRecentringOn() throws {
        // Another try at buffering, the device held tipped 20°: the picture stays where it was,
        // where a new resting pose (what a sleep gives with re-centring on) would jump it to centre.
        var engine = MotionEngine(settings: MotionSettings(recenter: true, directionalLock: false))
        var device = SyntheticDevice.upright
        feed(&engine, count: 350) { device.hold(dt: 0.01) }
        feed(&engine, count: 50) { device.advance(rate: Vector3(20 * degree / 0.5, 0, 0), dt: 0.01) }
        feed(&engine, count: 100) { device.hold(dt: 0.01) }
        let before = engine.current
        #expect(abs(before.y) > 0.1, "\(before)")
        engine.restartAttitude(keepingReference: true)
        device.t += 20_000_000
        let frames = feed(&engine, count: 20) { device.hold(dt: 0.01) }
        let first = try #require(frames.first)
        #expect(abs(first.offset.y - before.y) < 0.01 && abs(first.offset.x - before.x) < 0.01, "before \(before), first \(first.offset)")
        // The same call without keeping it re-centres (the sleep's case, shown above).
        var recentring = engine
        recentring.restartAttitude()
        let sample = device.hold(dt: 0.01)
        let emitted = recentring.update(sample)
        let recentred = try #require(emitted)
        #expect(recentred.offset == .zero, "\(recentred.offset)")
    }
}
