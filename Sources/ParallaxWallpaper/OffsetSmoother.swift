// [Scene] Smoothing=: an exponential smoother on the offset, evaluated per drawn frame with the
// real time between frames (so the same time constant looks the same at any refresh rate). The
// heading's yaw (panoramas) is smoothed the same way, along the shorter way round the circle.

import ParallaxClient
import Glibc

public struct OffsetSmoother: Sendable {
    /// Closer than this (offset units) to the target counts as arrived: at a 100-px travel that is
    /// a hundredth of a pixel, so the last frame of a settle is not visible as a jump.
    public static let settleDistance = 1e-4

    /// Seconds; 0 or less = no smoothing.
    public let timeConstant: Double
    private var current: (x: Double, y: Double)?
    private var currentYaw: Double?
    private var time: Int64 = 0
    /// False while the last value returned has not reached its target: more frames are needed.
    public private(set) var isSettled = true

    public init(timeConstant: Double) {
        self.timeConstant = timeConstant.isFinite ? timeConstant : 0
    }

    /// Moves toward `target` for the time since the last call and returns where it is.
    public mutating func advance(toward target: ParallaxOffset, at now: Int64) -> ParallaxOffset {
        guard timeConstant > 0, let previous = current else {
            current = (target.x, target.y)
            currentYaw = target.yaw
            time = now
            isSettled = true
            return target
        }
        let elapsed = max(Double(now - time), 0) / 1e9
        let keep = exp(-elapsed / timeConstant)
        var result = target
        result.x = target.x + (previous.x - target.x) * keep
        result.y = target.y + (previous.y - target.y) * keep
        // The yaw left to turn, the shorter way round; a heading that (re)appears is shown at once.
        var yawLeft = 0.0
        if let targetYaw = target.yaw, let previousYaw = currentYaw, targetYaw.isFinite, previousYaw.isFinite {
            yawLeft = remainder(previousYaw - targetYaw, 2 * .pi) * keep
        }
        if abs(result.x - target.x) < Self.settleDistance && abs(result.y - target.y) < Self.settleDistance
            && abs(yawLeft) < Self.settleDistance {
            result.x = target.x
            result.y = target.y
            yawLeft = 0
        }
        if let targetYaw = target.yaw, yawLeft != 0 {
            result.yaw = remainder(targetYaw + yawLeft, 2 * .pi)
        }
        current = (result.x, result.y)
        currentYaw = result.yaw
        time = now
        isSettled = result.x == target.x && result.y == target.y && yawLeft == 0
        return result
    }
}
