// Camera=perspective (docs/wallpaper.md "Perspective"): the seed's custom motion effect, Apple's
// MotionEffects sample, through ParallaxClient's PerspectiveMotionEffect. Two choices of ours:
// - The camera orbits a point of interest ON the screen plane (cameraPositionZ 0) with the eye
//   EyeDistance in front of it, so a layer at Z = 0 is drawn 1:1 at offset (0, 0). (The sample
//   pushes its scene back 1504 points with the eye 1500 away, which only scales the picture by
//   1500/3004; EyeDistance=3004 reproduces its perspective.)
// - The rotation about X is negated (maximumViewingAngleX = −V): the sample moves layers in front
//   UP for vertical > 0, flat floating layers move DOWN. Negated, a layer with Z < 0 moves like a
//   recessed flat layer on both axes (left for x > 0, up for y > 0), and Z > 0 like a floating one.
// All lengths here are buffer pixels (the scene's logical pixels times the output scale).

import ParallaxClient

public enum PerspectivePlacement {
    /// Offsets at which a cover layer must still cover the output: the corners, edges and centre.
    static let coverageProbe: [Double] = [-1, -0.5, 0, 0.5, 1]
    /// Largest cover factor tried (times the image's fitted size).
    static let maximumCoverFactor = 8.0

    /// The motion effect for `camera` at `scale`.
    public static func effect(_ camera: PerspectiveCamera, scale: Double) -> PerspectiveMotionEffect {
        PerspectiveMotionEffect(
            eyeDistance: camera.eyeDistance * scale,
            cameraPositionZ: 0,
            maximumViewingAngleX: -camera.maximumAngleVertical * .pi / 180,
            maximumViewingAngleY: camera.maximumAngleHorizontal * .pi / 180)
    }

    /// How much larger than drawn-size a thing at `z` must be to look its size at offset (0, 0)
    /// (things behind the screen look smaller).
    public static func depthCompensation(z: Double, eyeDistance: Double) -> Double {
        max(eyeDistance - z, 1) / eyeDistance
    }

    /// The resting rectangle (in the layer's own plane, centred) of an image at depth `z`:
    /// none: looks 1:1 at offset (0, 0); cover: the smallest size (aspect kept) that covers the
    /// output at every probed offset, so no edge ever shows.
    public static func restingRect(imageWidth: Int, imageHeight: Int, fit: LayerFit, z: Double,
                                   effect: PerspectiveMotionEffect, output: OutputGeometry) -> PixelRect {
        let width = Double(max(imageWidth, 1))
        let height = Double(max(imageHeight, 1))
        let compensation = depthCompensation(z: z, eyeDistance: effect.eyeDistance)
        switch fit {
        case .none:
            return .centred(width: width * compensation, height: height * compensation)
        case .cover:
            let fitted = max(output.width / width, output.height / height) * compensation
            var low = 1.0
            var high = maximumCoverFactor
            guard covers(factor: high, width * fitted, height * fitted, z: z, effect: effect, output: output) else {
                return .centred(width: width * fitted * high, height: height * fitted * high)
            }
            for _ in 0..<24 {
                let middle = (low + high) / 2
                if covers(factor: middle, width * fitted, height * fitted, z: z, effect: effect, output: output) {
                    high = middle
                } else {
                    low = middle
                }
            }
            return .centred(width: width * fitted * high, height: height * fitted * high)
        }
    }

    /// Where the corners of `rect` (in the plane at `z`) land on screen at `offset`, centred
    /// coordinates; nil when a corner is at or behind the eye.
    public static func projectedCorners(of rect: PixelRect, z: Double, effect: PerspectiveMotionEffect,
                                        offset: ParallaxOffset) -> [(x: Double, y: Double)]? {
        let transform = Transform3D.translation(x: 0, y: 0, z: z) * effect.transform(for: offset)
        var corners: [(x: Double, y: Double)] = []
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.maxX, rect.maxY), (rect.minX, rect.maxY)] {
            guard let point = transform.apply(to: Point3D(x: x, y: y, z: 0)) else { return nil }
            corners.append((point.x, point.y))
        }
        return corners
    }

    private static func covers(factor: Double, _ width: Double, _ height: Double, z: Double,
                               effect: PerspectiveMotionEffect, output: OutputGeometry) -> Bool {
        let rect = PixelRect.centred(width: width * factor, height: height * factor)
        let screen = [(-output.width / 2, -output.height / 2), (output.width / 2, -output.height / 2),
                      (output.width / 2, output.height / 2), (-output.width / 2, output.height / 2)]
        for x in coverageProbe {
            for y in coverageProbe {
                guard let quad = projectedCorners(of: rect, z: z, effect: effect, offset: ParallaxOffset(x: x, y: y)) else { return false }
                for corner in screen where !inside(corner, quad) { return false }
            }
        }
        return true
    }

    /// Whether `point` lies inside the convex quadrilateral `quad` (either winding).
    static func inside(_ point: (Double, Double), _ quad: [(x: Double, y: Double)]) -> Bool {
        var sign = 0.0
        for i in 0..<quad.count {
            let a = quad[i]
            let b = quad[(i + 1) % quad.count]
            let cross = (b.x - a.x) * (point.1 - a.y) - (b.y - a.y) * (point.0 - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }
}
