// Where the pieces of a [Mesh] are drawn (docs/wallpaper.md "Mesh layers"), spacetime's
// per-instance transforms: the image is cut into a COLS×ROWS grid; piece i moves like a flat layer
// of Depths[i] (Depths[i]·x right, Depths[i]·y down) and turns by Turn[i]·x degrees about its own
// vertical centre line, drawn in perspective from the scene's EyeDistance. A positive turn at
// x > 0 sends the piece's right edge away from the viewer, the way the screen itself turned.
// Buffer pixels, centred coordinates (x right, y down, z toward the viewer).

import Glibc
import ParallaxClient

/// One piece of a mesh, ready to draw: its rectangle (moved by its depth), the part of the image
/// it shows (texture coordinates 0…1), and the transform that turns it about its centre line.
public struct MeshPiece: Sendable, Hashable {
    public var rect: PixelRect
    public var textureRect: PixelRect
    /// Radians about the vertical axis through the piece's centre (positive: right edge away).
    public var turn: Double
    /// The turn about the centre line, to apply before the camera (flat: the perspective from the
    /// eye distance; Camera=perspective: the scene camera).
    public var transform: Transform3D
}

public enum MeshPlacement {
    /// The whole mesh at offset (0, 0): Rect= (logical pixels from the output's top left), else the
    /// image's size (one image pixel per buffer pixel) centred.
    public static func restingRect(_ mesh: SceneMesh, imageWidth: Int, imageHeight: Int, output: OutputGeometry) -> PixelRect {
        guard let rect = mesh.rect else {
            return .centred(width: Double(max(imageWidth, 1)), height: Double(max(imageHeight, 1)))
        }
        let s = output.scale
        let minX = rect.x * s - output.width / 2
        let minY = rect.y * s - output.height / 2
        return PixelRect(minX: minX, minY: minY, maxX: minX + rect.width * s, maxY: minY + rect.height * s)
    }

    /// A turn of `angle` radians about the vertical line x = `centreX`: a point (x, y, z) goes to
    /// (c + (x − c)·cos a + z·sin a, y, −(x − c)·sin a + z·cos a).
    public static func turn(angle: Double, centreX: Double) -> Transform3D {
        guard angle != 0, angle.isFinite else { return .identity }
        var rotation = Transform3D.identity
        rotation.m11 = cos(angle)
        rotation.m13 = -sin(angle)
        rotation.m31 = sin(angle)
        rotation.m33 = cos(angle)
        return Transform3D.translation(x: -centreX, y: 0, z: 0) * rotation * .translation(x: centreX, y: 0, z: 0)
    }

    /// The pieces at `offset`, row-major. `flatEyeDistance` (buffer pixels): the perspective a
    /// turned piece is drawn with under the flat camera; nil under Camera=perspective (the camera
    /// supplies it, and Depths= do not apply).
    public static func pieces(_ mesh: SceneMesh, imageWidth: Int, imageHeight: Int, output: OutputGeometry,
                              offset: ParallaxOffset, flatEyeDistance: Double?) -> [MeshPiece] {
        let whole = restingRect(mesh, imageWidth: imageWidth, imageHeight: imageHeight, output: output)
        let clamped = offset.clamped
        let columns = max(mesh.columns, 1)
        let rows = max(mesh.rows, 1)
        var pieces: [MeshPiece] = []
        pieces.reserveCapacity(columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                let index = row * columns + column
                let u0 = Double(column) / Double(columns), u1 = Double(column + 1) / Double(columns)
                let v0 = Double(row) / Double(rows), v1 = Double(row + 1) / Double(rows)
                var rect = PixelRect(minX: whole.minX + whole.width * u0, minY: whole.minY + whole.height * v0,
                                     maxX: whole.minX + whole.width * u1, maxY: whole.minY + whole.height * v1)
                if flatEyeDistance != nil {
                    let depth = index < mesh.depths.count ? mesh.depths[index] : 0
                    let shift = FlatPlacement.shift(depth: depth, offset: offset, scale: output.scale)
                    rect = rect.offsetBy(x: shift.x, y: shift.y)
                }
                let degrees = index < mesh.turns.count ? mesh.turns[index] : 0
                let angle = degrees * clamped.x * .pi / 180
                var transform = turn(angle: angle, centreX: (rect.minX + rect.maxX) / 2)
                if let eye = flatEyeDistance { transform = transform * .perspective(eyeDistance: eye) }
                pieces.append(MeshPiece(rect: rect, textureRect: PixelRect(minX: u0, minY: v0, maxX: u1, maxY: v1),
                                        turn: angle, transform: transform))
            }
        }
        return pieces
    }

    /// Where a flat-camera piece's corners land on screen (top left, top right, bottom right,
    /// bottom left); nil when one is at or behind the eye.
    public static func projectedCorners(of piece: MeshPiece) -> [(x: Double, y: Double)]? {
        let r = piece.rect
        var corners: [(x: Double, y: Double)] = []
        for (x, y) in [(r.minX, r.minY), (r.maxX, r.minY), (r.maxX, r.maxY), (r.minX, r.maxY)] {
            guard let point = piece.transform.apply(to: Point3D(x: x, y: y, z: 0)) else { return nil }
            corners.append((point.x, point.y))
        }
        return corners
    }
}
