// Transform3D follows Core Animation: row vectors, translation in m41…m43, m34 perspective,
// CATransform3DTranslate/Rotate put the new step first, Concat(a, b) applies a then b.

import ParallaxClient
import Testing

@Suite struct Transform3DTests {
    @Test func rotationAboutZTurnsXTowardY() {
        let p = Transform3D.rotation(angle: .pi / 2, x: 0, y: 0, z: 1).apply(to: Point3D(x: 1, y: 0, z: 0))!
        #expect(abs(p.x) < 1e-15 && abs(p.y - 1) < 1e-15)
        // The axis need not be a unit vector; a zero axis is the identity.
        #expect(Transform3D.rotation(angle: 1, x: 0, y: 0, z: 5) == .rotation(angle: 1, x: 0, y: 0, z: 1))
        #expect(Transform3D.rotation(angle: 1, x: 0, y: 0, z: 0) == .identity)
    }

    @Test func translatedPutsTheTranslationFirst() {
        // CATransform3DTranslate on a perspective matrix: translate · P, so m44 = 1 + tz·m34.
        let t = Transform3D.perspective(eyeDistance: 1000).translated(x: 0, y: 0, z: -500)
        #expect(t.m43 == -500 && t.m34 == -0.001 && t.m44 == 1.5)
        // Scale then translate differ: scaled() scales first, so the translation is not scaled.
        let moved = Transform3D.translation(x: 10, y: 0, z: 0)
        #expect(moved.scaled(x: 2, y: 2, z: 2).apply(to: Point3D(x: 1, y: 0))!.x == 12)
        #expect(moved.concatenating(.scale(x: 2, y: 2, z: 2)).apply(to: Point3D(x: 1, y: 0))!.x == 22)
    }

    @Test func perspectiveDividesByW() {
        let eye = Transform3D.perspective(eyeDistance: 1000)
        // w = 1 − z/1000: a point 500 in front is drawn twice as far from the centre.
        #expect(eye.apply(to: Point3D(x: 10, y: -4, z: 500)) == Point3D(x: 20, y: -8, z: 1000))
        #expect(eye.apply(to: Point3D(x: 10, y: 0, z: -1000))!.x == 5)
        #expect(eye.apply(to: Point3D(x: 10, y: 0, z: 1000)) == nil)  // at the eye
        #expect(eye.apply(to: Point3D(x: 10, y: 0, z: 2000)) == nil)  // behind it
        #expect(Transform3D.perspective(eyeDistance: -3) == .identity)
    }

    @Test func elementsAreInCoreAnimationsMemoryOrder() {
        let t = Transform3D.translation(x: 1, y: 2, z: 3)
        #expect(t.elements == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1])
        #expect(t.floatElements.count == 16 && t.floatElements[12] == 1)
    }
}
