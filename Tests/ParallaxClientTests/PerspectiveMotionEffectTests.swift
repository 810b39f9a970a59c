// The seed's perspective effect (Apple's MotionEffects sample) against the same maths composed by
// hand: plain 4×4 arrays written out from Core Animation's definitions (row vectors, m34 = −1/d,
// CATransform3DTranslate/Rotate put the new step first), multiplied here without Transform3D.

import Glibc
import ParallaxClient
import Testing

private typealias Matrix = [[Double]]

private func product(_ a: Matrix, _ b: Matrix) -> Matrix {
    (0..<4).map { i in (0..<4).map { j in (0..<4).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
}

/// Core Animation's rotation about X (row vectors): y′ = y cos − z sin, z′ = y sin + z cos.
private func rotationX(_ a: Double) -> Matrix {
    [[1, 0, 0, 0], [0, cos(a), sin(a), 0], [0, -sin(a), cos(a), 0], [0, 0, 0, 1]]
}

/// Core Animation's rotation about Y (row vectors): x′ = x cos + z sin, z′ = −x sin + z cos.
private func rotationY(_ a: Double) -> Matrix {
    [[cos(a), 0, -sin(a), 0], [0, 1, 0, 0], [sin(a), 0, cos(a), 0], [0, 0, 0, 1]]
}

private let pushBack: Matrix = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, -1504, 1]]
private let perspective: Matrix = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, -1.0 / 1500], [0, 0, 0, 1]]

private func rows(_ t: Transform3D) -> Matrix {
    [[t.m11, t.m12, t.m13, t.m14], [t.m21, t.m22, t.m23, t.m24], [t.m31, t.m32, t.m33, t.m34], [t.m41, t.m42, t.m43, t.m44]]
}

private func close(_ a: Matrix, _ b: Matrix, tolerance: Double = 1e-12) -> Bool {
    zip(a.joined(), b.joined()).allSatisfy { abs($0 - $1) <= tolerance }
}

private let degree = Double.pi / 180

@Suite struct PerspectiveMotionEffectTests {
    let effect = PerspectiveMotionEffect()

    @Test func warpIsTheSamplesTwoThirdsPower() {
        #expect(abs(PerspectiveMotionEffect.warp(0.125) - 0.25) < 1e-15)
        #expect(abs(PerspectiveMotionEffect.warp(-0.008) - -0.04) < 1e-15)
        #expect(PerspectiveMotionEffect.warp(1) == 1 && PerspectiveMotionEffect.warp(-1) == -1)
        #expect(PerspectiveMotionEffect.warp(0) == 0)
    }

    @Test(arguments: [(0.125, -0.008), (-1.0, 0.216)])
    func matchesTheSampleComposedByHand(horizontal: Double, vertical: Double) {
        // Warped by hand: 0.125 → 0.25, −0.008 → −0.04, 0.216 → 0.36.
        let warped = [0.125: 0.25, -0.008: -0.04, -1.0: -1.0, 0.216: 0.36]
        let h = warped[horizontal]!, v = warped[vertical]!
        // Sample: P; T(0,0,−1504)·P; Rx(2°·v)·…; Ry(18°·h)·… — each new step multiplied in front.
        let expected = product(rotationY(18 * degree * h), product(rotationX(2 * degree * v), product(pushBack, perspective)))
        let actual = rows(effect.transform(for: ParallaxOffset(x: horizontal, y: vertical)))
        #expect(close(actual, expected))
        #expect(effect.values(for: ParallaxOffset(x: horizontal, y: vertical)) == ["sublayerTransform": .transform(effect.transform(for: ParallaxOffset(x: horizontal, y: vertical)))])
    }

    @Test func atRestItIsThePushBackSeenInPerspective() {
        let t = effect.transform(for: .zero)
        #expect(close(rows(t), product(pushBack, perspective)))
        #expect(t.m43 == -1504 && abs(t.m44 - (1 + 1504.0 / 1500)) < 1e-15 && t.m34 == -1.0 / 1500)
    }

    @Test func pointsInFrontAndBehindMoveOppositeWaysFartherOnesMore() {
        let tilted = ParallaxOffset(x: 0.5, y: 0)
        func shift(_ z: Double) -> Double {
            let moved = effect.project(Point3D(x: 0, y: 0, z: z), for: tilted)!
            let resting = effect.project(Point3D(x: 0, y: 0, z: z), for: .zero)!
            return moved.x - resting.x
        }
        // Closed form for a point on the axis: x = 1500·z·sin a / (3004 − z·cos a), a = 18°·0.5^(2/3).
        let a = 18 * degree * pow(0.5, 2.0 / 3.0)
        #expect(abs(shift(100) - 1500 * 100 * sin(a) / (3004 - 100 * cos(a))) < 1e-9)
        #expect(shift(0) == 0)
        #expect(shift(40) > 0 && shift(100) > shift(40))  // in front: to the right, farther more
        #expect(shift(-40) < 0 && shift(-100) < shift(-40))  // behind: to the left, farther more
        // Horizontal sense agrees with UIKit's flat layers: a floating view (−15…15) moves right too.
        #expect(InterpolatingMotionEffect.interpolate(0.5, minimum: -15, maximum: 15) > 0)
    }

    @Test func verticalFollowsTheSamplesRotationAboutX() {
        // y′ = y cos − z sin: for v > 0 a point in front moves to −y (up in Core Animation's y-down
        // axes) and one behind to +y. The opposite of the sample's flat foreground view, which moves
        // +y; a negative maximumViewingAngleX gives that sense (see PerspectiveMotionEffect.swift).
        let down = ParallaxOffset(x: 0, y: 0.5)
        let front = effect.project(Point3D(x: 0, y: 0, z: 80), for: down)!
        let behind = effect.project(Point3D(x: 0, y: 0, z: -80), for: down)!
        #expect(front.y < 0 && behind.y > 0)
        let flipped = PerspectiveMotionEffect(maximumViewingAngleX: -PerspectiveMotionEffect.defaultMaximumViewingAngleX)
        #expect(flipped.project(Point3D(x: 0, y: 0, z: 80), for: down)!.y > 0)
    }

    @Test func theSamplesLayersProjectMonotonically() {
        for offset in [ParallaxOffset(x: 1, y: 0), ParallaxOffset(x: 0.3, y: -0.6), ParallaxOffset(x: -0.7, y: 1)] {
            let corner = { (z: Double) in self.effect.project(Point3D(x: 160, y: 284, z: z), for: offset)! }
            let centre = PerspectiveMotionEffect.sampleLayerDepths.map { effect.project(Point3D(x: 0, y: 0, z: $0), for: offset)! }
            let xs = centre.map(\.x)
            // Horizontal offset sign decides the direction; the order of the layers never changes.
            let increasing = offset.x > 0
            #expect(zip(xs, xs.dropFirst()).allSatisfy { increasing ? $0 < $1 : $0 > $1 })
            // Nearer layers are drawn larger: a corner lands farther from the centre.
            let spans = PerspectiveMotionEffect.sampleLayerDepths.map { z in
                let c = corner(z), o = effect.project(Point3D(x: 0, y: 0, z: z), for: offset)!
                return ((c.x - o.x) * (c.x - o.x) + (c.y - o.y) * (c.y - o.y)).squareRoot()
            }
            #expect(zip(spans, spans.dropFirst()).allSatisfy { $0 < $1 })
        }
    }

    @Test func badSettingsAndOffsetsStayFinite() {
        let broken = PerspectiveMotionEffect(
            eyeDistance: 0, cameraPositionZ: .nan, maximumViewingAngleX: .infinity, maximumViewingAngleY: .nan)
        #expect(broken.transform(for: ParallaxOffset(x: .nan, y: 5)).isFinite)
        #expect(effect.transform(for: ParallaxOffset(x: .infinity, y: -.infinity)).isFinite)
        #expect(effect.transform(for: ParallaxOffset(x: 7, y: 0)) == effect.transform(for: ParallaxOffset(x: 1, y: 0)))
    }
}
