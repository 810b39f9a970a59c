// Where a flat layer is drawn (docs/wallpaper.md "Flat layers"). Coordinates are buffer pixels
// with the origin at the output's centre, x right, y down; the scene's lengths are logical pixels
// and are multiplied by the output scale.

import ParallaxClient

/// An axis-aligned rectangle, centred coordinates (x right, y down).
public struct PixelRect: Sendable, Hashable {
    public var minX, minY, maxX, maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }

    public func offsetBy(x: Double, y: Double) -> PixelRect {
        PixelRect(minX: minX + x, minY: minY + y, maxX: maxX + x, maxY: maxY + y)
    }

    /// A width × height rectangle centred on the origin.
    public static func centred(width: Double, height: Double) -> PixelRect {
        PixelRect(minX: -width / 2, minY: -height / 2, maxX: width / 2, maxY: height / 2)
    }
}

/// The output being drawn: its buffer size in pixels and its scale.
public struct OutputGeometry: Sendable, Hashable {
    public var width: Double
    public var height: Double
    public var scale: Double

    public init(width: Double, height: Double, scale: Double) {
        self.width = width
        self.height = height
        self.scale = scale
    }
}

public enum FlatPlacement {
    /// The layer's rectangle at offset (0, 0). cover: the image scaled (aspect kept) to cover the
    /// output plus the layer's travel |Depth| on every side, so no edge ever shows; none: one image
    /// pixel per buffer pixel. Both centred.
    public static func restingRect(imageWidth: Int, imageHeight: Int, fit: LayerFit, depth: Double, output: OutputGeometry) -> PixelRect {
        let width = Double(max(imageWidth, 1))
        let height = Double(max(imageHeight, 1))
        switch fit {
        case .none:
            return .centred(width: width, height: height)
        case .cover:
            let travel = abs(depth) * output.scale
            let factor = max((output.width + 2 * travel) / width, (output.height + 2 * travel) / height)
            return .centred(width: width * factor, height: height * factor)
        }
    }

    /// How far a layer of `depth` moves at `offset` (buffer pixels): Depth·x right and Depth·y
    /// down, UIKit's interpolation from −Depth to +Depth. Negative depth moves against the tilt
    /// (recessed), positive with it (floating).
    public static func shift(depth: Double, offset: ParallaxOffset, scale: Double) -> (x: Double, y: Double) {
        let clamped = offset.clamped
        return (depth * clamped.x * scale, depth * clamped.y * scale)
    }
}
