// iOS's directional lock: one-directional motion holds the other axis; diagonal motion does not.
import Testing
import ParallaxMotion

/// An upright engine past start-up (re-centring off), turned at `rate` for `seconds`, then held
/// still. Returns the offsets every 0.1 s from the start of the turn on.
func lockedTurn(_ rate: Vector3, seconds: Double, hold: Double = 0, lock: Bool = true) -> [ViewerOffset] {
    var engine = MotionEngine(settings: MotionSettings(recenter: false, minimumChange: 0, directionalLock: lock))
    var device = SyntheticDevice.upright
    feed(&engine, count: 350) { device.hold(dt: 0.01) }
    var out: [ViewerOffset] = [engine.current]
    for i in 1...Int((seconds + hold) * 100) {
        _ = engine.update(Double(i) <= seconds * 100 ? device.advance(rate: rate, dt: 0.01) : device.hold(dt: 0.01))
        if i % 10 == 0 { out.append(engine.current) }
    }
    return out
}

@Suite struct DirectionalLockTests {
    @Test func aMostlyHorizontalTurnHoldsTheVerticalOffset() {
        // 2 rad/s about Y (horizontal) with 0.2 rad/s about X (vertical) for 0.8 s.
        let rate = Vector3(0.2, 2, 0)
        let free = lockedTurn(rate, seconds: 0.8, lock: false)
        let locked = lockedTurn(rate, seconds: 0.8)
        #expect(zip(free, locked).allSatisfy { abs($0.x - $1.x) < 1e-9 })  // the moving axis is untouched
        // Once the balance is past 0.57 (≈0.5 s in) the vertical offset stands still.
        #expect(free[8].y - free[5].y > 0.008)
        #expect(abs(locked[8].y - locked[5].y) < 0.002, "locked y \(locked[5].y) → \(locked[8].y)")
        #expect(locked[2].y == free[2].y)  // before the lock builds up, nothing is held
    }

    @Test func aMostlyVerticalTurnHoldsTheHorizontalOffset() {
        let rate = Vector3(2, 0.2, 0)
        let free = lockedTurn(rate, seconds: 0.8, lock: false)
        let locked = lockedTurn(rate, seconds: 0.8)
        #expect(zip(free, locked).allSatisfy { abs($0.y - $1.y) < 1e-9 })
        #expect(abs(free[8].x - free[5].x) > 0.008)
        #expect(abs(locked[8].x - locked[5].x) < 0.002, "locked x \(locked[5].x) → \(locked[8].x)")
    }

    @Test func aDiagonalOrSlowTurnIsNotLocked() {
        // Diagonal: |Δh| − |Δv| ≈ 0. Slow (0.2 rad/s ≈ 11°/s): the leaky balance settles at
        // ≈ 1.32 × 0.115/s ≈ 0.15, under the 0.3 threshold.
        for (rate, seconds) in [(Vector3(1, 1, 0), 0.5), (Vector3(0.02, 0.2, 0), 2.0)] {
            let free = lockedTurn(rate, seconds: seconds, lock: false)
            let locked = lockedTurn(rate, seconds: seconds)
            #expect(zip(free, locked).allSatisfy { abs($0.x - $1.x) < 1e-9 && abs($0.y - $1.y) < 1e-9 }, "\(rate)")
        }
    }

    @Test func whatWasHeldIsReleasedAtTheRecentringSpeed() {
        let rate = Vector3(0.2, 2, 0)
        let free = lockedTurn(rate, seconds: 0.8, hold: 8, lock: false)
        let locked = lockedTurn(rate, seconds: 0.8, hold: 8)
        // Right after the turn the balance is still over 0.3: nothing is released yet (the
        // filter's last settling moves the raw offset by ≈1e-5)…
        #expect(abs(locked[13].y - locked[8].y) < 1e-4)
        // …then the held part drains at 0.03 rad/s ÷ 90° ≈ 0.019 offset/s, never faster…
        let speed = 0.03 / (Double.pi / 2)
        let fastest = zip(locked[8...], locked[9...]).map { $1.y - $0.y }.max()!
        #expect(fastest > 0.9 * speed * 0.1 && fastest <= speed * 0.1 + 1e-4, "released \(fastest) in 0.1 s")
        // …until the offset is the true one again.
        #expect(abs(locked.last!.y - free.last!.y) < 1e-9)
    }
}
