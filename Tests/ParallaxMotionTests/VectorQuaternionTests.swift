// Vector and quaternion basics the rest of the math builds on.
import Testing
import ParallaxMotion

@Suite struct VectorTests {
    @Test func arithmeticDotCrossLength() {
        let a = Vector3(1, 2, 3), b = Vector3(-2, 0.5, 4)
        #expect(a + b == Vector3(-1, 2.5, 7))
        #expect(a - b == Vector3(3, 1.5, -1))
        #expect(a * 2 == Vector3(2, 4, 6))
        #expect(2 * a == a * 2)
        #expect(a.dot(b) == -2 + 1 + 12)
        // Right-handed: X × Y = Z, and the cross product is perpendicular to both factors.
        #expect(Vector3.unitX.cross(.unitY) == .unitZ)
        #expect(abs(a.cross(b).dot(a)) < 1e-12 && abs(a.cross(b).dot(b)) < 1e-12)
        #expect(Vector3(3, 4, 12).length == 13)
    }

    @Test func normalizedRejectsZeroAndNonFinite() {
        let n = Vector3(0, 3, 4).normalized()
        #expect(n != nil && close(n!, Vector3(0, 0.6, 0.8)))
        #expect(Vector3.zero.normalized() == nil)
        #expect(Vector3(1e-15, 0, 0).normalized() == nil)
        #expect(Vector3(.nan, 1, 0).normalized() == nil)
        #expect(Vector3(.infinity, 1, 0).normalized() == nil)
        #expect(!Vector3(0, .nan, 0).isFinite && Vector3(1, 2, 3).isFinite)
    }

    @Test func angleBetweenVectors() {
        #expect(abs(Vector3.unitX.angle(to: .unitY) - .pi / 2) < 1e-12)
        #expect(abs(Vector3.unitX.angle(to: -Vector3.unitX) - .pi) < 1e-12)
        #expect(Vector3(2, 0, 0).angle(to: .unitX) == 0)
    }
}

@Suite struct QuaternionTests {
    @Test func axisAngleRotatesRightHanded() {
        let q = Quaternion(axis: .unitZ, angle: .pi / 2)
        #expect(close(q.rotate(.unitX), .unitY))
        #expect(close(q.rotate(.unitY), -Vector3.unitX))
        #expect(close(Quaternion(axis: .unitX, angle: .pi / 2).rotate(.unitY), .unitZ))
        #expect(close(Quaternion(axis: .unitY, angle: .pi / 2).rotate(.unitZ), .unitX))
        // The axis need not be unit length.
        #expect(sameRotation(Quaternion(axis: Vector3(0, 0, 7), angle: 1), Quaternion(axis: .unitZ, angle: 1)))
        #expect(Quaternion(axis: .zero, angle: 1) == .identity)
    }

    @Test func productComposesRotations() {
        let a = Quaternion(axis: Vector3(1, 2, 3), angle: 0.7)
        let b = Quaternion(axis: Vector3(-1, 0.5, 2), angle: 1.9)
        let v = Vector3(0.3, -1.2, 2.5)
        #expect(close((a * b).rotate(v), a.rotate(b.rotate(v)), 1e-12))
        #expect(sameRotation(a * a.conjugate, .identity, 1e-12))
        #expect(close(a.conjugate.rotate(a.rotate(v)), v, 1e-12))
        #expect(abs((a * b).norm - 1) < 1e-12)
    }

    @Test func angleToIsShortest() {
        let a = Quaternion(axis: .unitY, angle: 0.2)
        #expect(abs(Quaternion.identity.angle(to: a) - 0.2) < 1e-12)
        let negated = Quaternion(w: -a.w, x: -a.x, y: -a.y, z: -a.z)
        #expect(a.angle(to: negated) < 1e-12)
        // 350° about an axis is 10° the other way.
        let big = Quaternion(axis: .unitX, angle: 350 * degree)
        #expect(abs(Quaternion.identity.angle(to: big) - 10 * degree) < 1e-9)
    }

    @Test func stepTowardNeverOvershoots() {
        let target = Quaternion(axis: Vector3(1, 1, 0), angle: 0.5)
        let partway = Quaternion.identity.step(toward: target, maxAngle: 0.2)
        #expect(abs(Quaternion.identity.angle(to: partway) - 0.2) < 1e-12)
        #expect(abs(partway.angle(to: target) - 0.3) < 1e-12)
        #expect(Quaternion.identity.step(toward: target, maxAngle: 0.6) == target)
        #expect(Quaternion.identity.step(toward: target, maxAngle: 0) == .identity)
        #expect(Quaternion.identity.step(toward: target, maxAngle: .nan) == .identity)
        // Along the shortest way even when the target is stored as −q.
        let negated = Quaternion(w: -target.w, x: -target.x, y: -target.y, z: -target.z)
        let viaNegated = Quaternion.identity.step(toward: negated, maxAngle: 0.2)
        #expect(sameRotation(viaNegated, partway, 1e-12))
        let half = Quaternion.identity.slerp(to: target, t: 0.5)
        #expect(abs(half.angle(to: target) - 0.25) < 1e-12)
    }

    @Test(arguments: [1e-7, 0.003, 0.09, 0.2, 1.5, 3.0])
    func rotationVectorMatchesAxisAngle(angle: Double) {
        let axis = Vector3(0.3, -0.5, 0.81).normalized()!
        let q = Quaternion(rotationVector: axis * angle)
        #expect(sameRotation(q, Quaternion(axis: axis, angle: angle), 1e-14))
        #expect(abs(q.norm - 1) < 1e-15)
    }

    @Test func fromToIsTheShortestArc() {
        let pairs: [(Vector3, Vector3)] = [
            (.unitX, .unitY), (Vector3(1, 2, 3), Vector3(-3, 0.2, 1)), (.unitZ, .unitZ), (.unitZ, -Vector3.unitZ),
            (Vector3(0.3, 0.2, -0.9), Vector3(-0.3, -0.2, 0.9)),
        ]
        for (f, t) in pairs {
            let q = Quaternion(from: f, to: t)
            #expect(close(q.rotate(f.normalized()!), t.normalized()!, 1e-12))
            #expect(abs(Quaternion.identity.angle(to: q) - f.angle(to: t)) < 1e-9)
        }
    }

    @Test func normalizedNeverProducesNaN() {
        #expect(Quaternion(w: 0, x: 0, y: 0, z: 0).normalized() == .identity)
        #expect(Quaternion(w: .nan, x: 0, y: 0, z: 0).normalized() == .identity)
        #expect(Quaternion(w: .infinity, x: 1, y: 0, z: 0).normalized() == .identity)
        let n = Quaternion(w: 2, x: 0, y: 0, z: 2).normalized()
        #expect(abs(n.norm - 1) < 1e-15 && abs(n.w - 0.5.squareRoot()) < 1e-15)
    }
}
