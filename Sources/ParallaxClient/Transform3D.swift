// A 4×4 homogeneous transform with Core Animation's layout, names and conventions, so that the
// maths of UIKit motion effects (and of Apple's samples) carries over line by line.
//
// Convention (Core Animation's): points are ROW vectors, p′ = [x y z 1] · M; the translation sits
// in m41 m42 m43 and the perspective in m34 (m34 = −1/d puts the eye at distance d on +z). Axes as
// on iOS: x to the right, y DOWN, z toward the viewer. `a * b` (CATransform3DConcat) applies `a`
// first, then `b`. `translated`, `rotated` and `scaled` put the new step BEFORE `self`, exactly as
// CATransform3DTranslate/Rotate/Scale do: t′ = step · t.
//
// For OpenGL: the sixteen numbers in the order m11, m12, …, m44 (`elements`) are the column-major
// form of the column-vector matrix Mᵀ, so they go to glUniformMatrix4fv unchanged (transpose
// GL_FALSE) for a shader computing M·v.

import Glibc

/// A point (or the point of a layer) in Core Animation coordinates: x right, y down, z toward the viewer.
public struct Point3D: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double = 0) {
        self.x = x
        self.y = y
        self.z = z
    }

    public static let zero = Point3D(x: 0, y: 0, z: 0)
}

/// A homogeneous 3D transform laid out like `CATransform3D` (row-vector convention).
public struct Transform3D: Sendable, Hashable {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    public init(
        m11: Double, m12: Double, m13: Double, m14: Double,
        m21: Double, m22: Double, m23: Double, m24: Double,
        m31: Double, m32: Double, m33: Double, m34: Double,
        m41: Double, m42: Double, m43: Double, m44: Double
    ) {
        (self.m11, self.m12, self.m13, self.m14) = (m11, m12, m13, m14)
        (self.m21, self.m22, self.m23, self.m24) = (m21, m22, m23, m24)
        (self.m31, self.m32, self.m33, self.m34) = (m31, m32, m33, m34)
        (self.m41, self.m42, self.m43, self.m44) = (m41, m42, m43, m44)
    }

    /// CATransform3DIdentity.
    public static let identity = Transform3D(
        m11: 1, m12: 0, m13: 0, m14: 0,
        m21: 0, m22: 1, m23: 0, m24: 0,
        m31: 0, m32: 0, m33: 1, m34: 0,
        m41: 0, m42: 0, m43: 0, m44: 1)

    // MARK: making

    /// CATransform3DMakeTranslation.
    public static func translation(x: Double, y: Double, z: Double) -> Transform3D {
        var t = identity
        (t.m41, t.m42, t.m43) = (x, y, z)
        return t
    }

    /// CATransform3DMakeScale.
    public static func scale(x: Double, y: Double, z: Double) -> Transform3D {
        var t = identity
        (t.m11, t.m22, t.m33) = (x, y, z)
        return t
    }

    /// CATransform3DMakeRotation: `angle` radians about the axis (x, y, z), right-handed in Core
    /// Animation's axes (about z: x′ = x cos − y sin, y′ = x sin + y cos). A zero or non-finite
    /// axis gives the identity, as Core Animation does for a zero axis.
    public static func rotation(angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0, length.isFinite else { return identity }
        let (ux, uy, uz) = (x / length, y / length, z / length)
        let c = cos(angle)
        let s = sin(angle)
        let k = 1 - c
        // The usual column-vector rotation matrix, transposed for row vectors.
        return Transform3D(
            m11: ux * ux * k + c, m12: ux * uy * k + uz * s, m13: ux * uz * k - uy * s, m14: 0,
            m21: ux * uy * k - uz * s, m22: uy * uy * k + c, m23: uy * uz * k + ux * s, m24: 0,
            m31: ux * uz * k + uy * s, m32: uy * uz * k - ux * s, m33: uz * uz * k + c, m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }

    /// The identity with m34 = −1/`eyeDistance`: a camera on +z at that distance from the z = 0
    /// plane, which keeps its scale (points nearer the eye grow). A distance that is not a
    /// positive finite number gives no perspective (the identity).
    public static func perspective(eyeDistance: Double) -> Transform3D {
        var t = identity
        if eyeDistance > 0, eyeDistance.isFinite { t.m34 = -1 / eyeDistance }
        return t
    }

    // MARK: combining

    /// CATransform3DConcat(a, b) = a · b: `a` acts first, then `b`.
    public static func * (a: Transform3D, b: Transform3D) -> Transform3D {
        Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// `self` then `next` (CATransform3DConcat(self, next)).
    public func concatenating(_ next: Transform3D) -> Transform3D { self * next }

    /// CATransform3DTranslate: translation · self (the translation acts first).
    public func translated(x: Double, y: Double, z: Double) -> Transform3D {
        .translation(x: x, y: y, z: z) * self
    }

    /// CATransform3DRotate: rotation · self (the rotation acts first).
    public func rotated(angle: Double, x: Double, y: Double, z: Double) -> Transform3D {
        .rotation(angle: angle, x: x, y: y, z: z) * self
    }

    /// CATransform3DScale: scale · self (the scale acts first).
    public func scaled(x: Double, y: Double, z: Double) -> Transform3D {
        .scale(x: x, y: y, z: z) * self
    }

    // MARK: applying

    /// [x y z 1] · M without the perspective divide: (x, y, z, w), e.g. for a GPU to divide.
    public func homogeneous(_ p: Point3D) -> (x: Double, y: Double, z: Double, w: Double) {
        (
            x: p.x * m11 + p.y * m21 + p.z * m31 + m41,
            y: p.x * m12 + p.y * m22 + p.z * m32 + m42,
            z: p.x * m13 + p.y * m23 + p.z * m33 + m43,
            w: p.x * m14 + p.y * m24 + p.z * m34 + m44
        )
    }

    /// The point transformed and divided by w: where it is drawn (x, y) and its depth (z). Nil when
    /// the point is at or behind the eye (w ≤ 0) or the result is not finite, so no caller ever
    /// draws at NaN or infinity.
    public func apply(to p: Point3D) -> Point3D? {
        let h = homogeneous(p)
        guard h.w > 0 else { return nil }
        let result = Point3D(x: h.x / h.w, y: h.y / h.w, z: h.z / h.w)
        guard result.x.isFinite, result.y.isFinite, result.z.isFinite else { return nil }
        return result
    }

    /// m11, m12, …, m44 in Core Animation's memory order, which is also OpenGL's column-major order
    /// for the column-vector form (glUniformMatrix4fv with transpose GL_FALSE).
    public var elements: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    /// `elements` as 32-bit floats, the type GLES uniforms take.
    public var floatElements: [Float] { elements.map { Float($0) } }

    /// True when every element is finite.
    public var isFinite: Bool { elements.allSatisfy(\.isFinite) }
}
