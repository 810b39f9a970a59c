// UIKit's motion effect model as values: interpolation, groups and custom effects, each checked
// against numbers worked out by hand from the formulas (min + (max − min)(offset/2 + 1/2)).

import ParallaxClient
import Testing

@Suite struct MotionEffectTests {
    @Test func interpolationIsUIKitsLinearMap() {
        // Apple's sample: foreground −15…15 pt, background 25…−25 pt (recessed: reversed signs).
        #expect(InterpolatingMotionEffect.interpolate(-1, minimum: -15, maximum: 15) == -15)
        #expect(InterpolatingMotionEffect.interpolate(0, minimum: -15, maximum: 15) == 0)
        #expect(InterpolatingMotionEffect.interpolate(1, minimum: -15, maximum: 15) == 15)
        #expect(InterpolatingMotionEffect.interpolate(0.5, minimum: -15, maximum: 15) == 7.5)
        #expect(InterpolatingMotionEffect.interpolate(0.5, minimum: 25, maximum: -25) == -12.5)
        // Not centred on zero: 10 + (30 − 10)(−0.5/2 + 1/2) = 15.
        #expect(InterpolatingMotionEffect.interpolate(-0.5, minimum: 10, maximum: 30) == 15)
    }

    @Test func interpolationClampsAndNeverReturnsNaN() {
        #expect(InterpolatingMotionEffect.interpolate(3, minimum: -15, maximum: 15) == 15)
        #expect(InterpolatingMotionEffect.interpolate(-7, minimum: -15, maximum: 15) == -15)
        #expect(InterpolatingMotionEffect.interpolate(.nan, minimum: -15, maximum: 15) == 0)
        #expect(InterpolatingMotionEffect.interpolate(.infinity, minimum: -15, maximum: 15) == 0)
    }

    @Test func anEffectReadsOnlyItsAxis() {
        let horizontal = InterpolatingMotionEffect(key: "x", axis: .horizontal, minimum: -20, maximum: 20)
        let vertical = InterpolatingMotionEffect(key: "y", axis: .vertical, minimum: -20, maximum: 20)
        let offset = ParallaxOffset(x: 0.25, y: -0.75)
        #expect(horizontal.values(for: offset) == ["x": .scalar(5)])
        #expect(vertical.values(for: offset) == ["y": .scalar(-15)])
        #expect(horizontal.values(for: ParallaxOffset(x: .nan, y: 1)) == ["x": .scalar(0)])
    }

    @Test func aGroupAddsScalarsForTheSameKey() {
        let group = MotionEffectGroup([
            InterpolatingMotionEffect(key: "x", axis: .horizontal, minimum: -15, maximum: 15),
            InterpolatingMotionEffect(key: "x", axis: .vertical, minimum: 0, maximum: 10),
            InterpolatingMotionEffect(key: "y", axis: .vertical, minimum: -32, maximum: 32),
        ])
        let values = group.values(for: ParallaxOffset(x: 0.5, y: 0.5))
        // x: 7.5 (horizontal) + 7.5 (vertical, 0 + 10·0.75); y: 16.
        #expect(values == ["x": .scalar(15), "y": .scalar(16)])
        #expect(values.scalar("x") == 15 && values.scalar("missing") == 0)
    }

    @Test func aGroupMultipliesTransformsInItsOrder() {
        let move = CustomMotionEffect { o in ["t": .transform(.translation(x: 100 * o.x, y: 0, z: 0))] }
        let turn = CustomMotionEffect { _ in ["t": .transform(.rotation(angle: .pi / 2, x: 0, y: 0, z: 1))] }
        let offset = ParallaxOffset(x: 0.5, y: 0)
        let moveThenTurn = MotionEffectGroup([move, turn]).values(for: offset).transform("t")
        let turnThenMove = MotionEffectGroup([turn, move]).values(for: offset).transform("t")
        // The origin moved 50 right, then turned 90° about z: x′ = x cos − y sin, y′ = x sin + y cos.
        let a = moveThenTurn.apply(to: .zero)!
        #expect(abs(a.x - 0) < 1e-12 && abs(a.y - 50) < 1e-12)
        // Turned first (the origin stays), then moved 50 right.
        let b = turnThenMove.apply(to: .zero)!
        #expect(abs(b.x - 50) < 1e-12 && abs(b.y) < 1e-12)
        #expect(MotionEffectGroup([]).values(for: offset).transform("t") == .identity)
    }

    @Test func groupsNestAndKeepTheFirstValueWhenKindsDiffer() {
        let scalar = CustomMotionEffect { _ in ["k": .scalar(3)] }
        let transform = CustomMotionEffect { _ in ["k": .transform(.scale(x: 2, y: 2, z: 1))] }
        let inner = MotionEffectGroup([scalar, scalar])
        #expect(MotionEffectGroup([inner, scalar]).values(for: .zero) == ["k": .scalar(9)])
        #expect(MotionEffectGroup([scalar, transform]).values(for: .zero) == ["k": .scalar(3)])
        #expect(MotionEffectGroup([transform, scalar]).values(for: .zero)["k"]?.transform == .scale(x: 2, y: 2, z: 1))
    }

    @Test func aCustomEffectSeesAClampedOffsetAndIsAFunctionOfItAlone() {
        let effect = CustomMotionEffect { o in
            ["opacity": .scalar(1 - 0.5 * abs(o.x)), "blur": .scalar(4 * o.y * o.y)]
        }
        #expect(effect.values(for: ParallaxOffset(x: 0.5, y: -0.5)) == ["opacity": .scalar(0.75), "blur": .scalar(1)])
        // Outside the range and NaN: the function sees 1 and 0.
        #expect(effect.values(for: ParallaxOffset(x: 9, y: .nan)) == ["opacity": .scalar(0.5), "blur": .scalar(0)])
        // Stateless: asking again after another offset gives the same values.
        _ = effect.values(for: ParallaxOffset(x: -1, y: 1))
        #expect(effect.values(for: ParallaxOffset(x: 0.5, y: -0.5)) == ["opacity": .scalar(0.75), "blur": .scalar(1)])
    }

    @Test func relativeValuesApplyToRestingValues() {
        #expect(MotionEffectValue.scalar(7.5).applied(to: .scalar(100)) == .scalar(107.5))
        let resting = Transform3D.translation(x: 10, y: 0, z: 0)
        let relative = Transform3D.scale(x: 2, y: 2, z: 2)
        // Resting first, then the relative transform: (0,0,0) → (10,0,0) → (20,0,0).
        let applied = MotionEffectValue.transform(relative).applied(to: .transform(resting)).transform!
        #expect(applied.apply(to: .zero) == Point3D(x: 20, y: 0, z: 0))
    }
}
