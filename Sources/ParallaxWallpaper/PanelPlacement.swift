// Where a [Panel] is at an offset (docs/wallpaper.md "Blur panels"): the rectangle to draw, in its
// own plane, and the screen area it covers, whose blurred copy it shows. Because the blurred copy
// is taken from the screen under the panel's current position, its content stays aligned with
// what is behind it while the panel moves: the sample's counter-moved snapshot, done exactly.

import ParallaxClient

public struct PlacedPanel: Sendable, Hashable {
    /// The rectangle to draw through the panel's matrix (flat: already moved; perspective: in the
    /// plane at the panel's Z).
    public var rect: PixelRect
    /// Its bounding box on screen (centred coordinates, y down).
    public var screenBounds: PixelRect
}

public enum PanelPlacement {
    /// The panel's rectangle at offset (0, 0), centred coordinates, buffer pixels.
    public static func restingRect(_ panel: ScenePanel, output: OutputGeometry) -> PixelRect {
        let s = output.scale
        let minX = panel.x * s - output.width / 2
        let minY = panel.y * s - output.height / 2
        return PixelRect(minX: minX, minY: minY, maxX: minX + panel.width * s, maxY: minY + panel.height * s)
    }

    public static func place(_ panel: ScenePanel, output: OutputGeometry, offset: ParallaxOffset,
                             perspective: PerspectiveMotionEffect?) -> PlacedPanel {
        let resting = restingRect(panel, output: output)
        guard let perspective else {
            let shift = FlatPlacement.shift(depth: panel.depth, offset: offset, scale: output.scale)
            let moved = resting.offsetBy(x: shift.x, y: shift.y)
            return PlacedPanel(rect: moved, screenBounds: moved)
        }
        let z = panel.z * output.scale
        let k = PerspectivePlacement.depthCompensation(z: z, eyeDistance: perspective.eyeDistance)
        let plane = PixelRect(minX: resting.minX * k, minY: resting.minY * k, maxX: resting.maxX * k, maxY: resting.maxY * k)
        guard let corners = PerspectivePlacement.projectedCorners(of: plane, z: z, effect: perspective, offset: offset) else {
            return PlacedPanel(rect: plane, screenBounds: resting)
        }
        let bounds = PixelRect(minX: corners.map(\.x).min()!, minY: corners.map(\.y).min()!,
                               maxX: corners.map(\.x).max()!, maxY: corners.map(\.y).max()!)
        return PlacedPanel(rect: plane, screenBounds: bounds)
    }
}
