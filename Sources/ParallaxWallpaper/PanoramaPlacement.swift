// Where a Panorama= layer is drawn (docs/wallpaper.md "Panorama layers"): the image spans
// `degrees` and the output shows `fieldOfView` of them, so the whole image is degrees/fieldOfView
// output widths wide. At heading yaw the visible window is centred at yaw: turning right by θ
// moves the picture LEFT by θ/fieldOfView of the output width. Tilt moves it like a flat layer of
// its Depth on top of that. Without heading (no gyroscope, yaw nil) the window stays at yaw 0 and
// the layer is a flat layer. A 360° panorama wraps: copies sit side by side, one image width apart.
// Buffer pixels, centred coordinates (x right, y down), like FlatPlacement.

import ParallaxClient

public enum PanoramaPlacement {
    /// The whole panorama at yaw 0 and offset (0, 0), centred. Its width is fixed by the angles;
    /// its height keeps the image's aspect, and with Fit=cover is stretched (vertically only) when
    /// that is not enough to cover the output plus the layer's travel |Depth| above and below.
    public static func restingRect(imageWidth: Int, imageHeight: Int, panorama: Panorama, fit: LayerFit, depth: Double,
                                   output: OutputGeometry) -> PixelRect {
        let width = output.width * panorama.degrees / panorama.fieldOfView
        var height = width * Double(max(imageHeight, 1)) / Double(max(imageWidth, 1))
        if fit == .cover {
            height = max(height, output.height + 2 * abs(depth) * output.scale)
        }
        return .centred(width: width, height: height)
    }

    /// How far the picture moves for heading `yaw` (radians, positive = turned right): left by
    /// θ/fieldOfView of the output width. Non-finite counts as 0.
    public static func yawShift(yaw: Double, panorama: Panorama, output: OutputGeometry) -> Double {
        guard yaw.isFinite else { return 0 }
        let degrees = yaw * 180 / .pi
        return -degrees / panorama.fieldOfView * output.width
    }

    /// The rectangles to draw the image into at `offset` and `yaw`: one, or for a 360° panorama as
    /// many side-by-side copies as it takes to cover the output's width.
    public static func place(imageWidth: Int, imageHeight: Int, panorama: Panorama, fit: LayerFit, depth: Double,
                             output: OutputGeometry, offset: ParallaxOffset, yaw: Double?) -> [PixelRect] {
        let resting = restingRect(imageWidth: imageWidth, imageHeight: imageHeight, panorama: panorama, fit: fit,
                                  depth: depth, output: output)
        let tilt = FlatPlacement.shift(depth: depth, offset: offset, scale: output.scale)
        let turn = yaw.map { yawShift(yaw: $0, panorama: panorama, output: output) } ?? 0
        let moved = resting.offsetBy(x: tilt.x + turn, y: tilt.y)
        guard panorama.wraps, moved.width > 0 else { return [moved] }
        // The copy whose span holds the output's left edge, then copies to the right of it.
        let left = -output.width / 2
        let steps = ((left - moved.minX) / moved.width).rounded(.down)
        var copy = moved.offsetBy(x: steps * moved.width, y: 0)
        var copies: [PixelRect] = []
        while copy.minX < output.width / 2 && copies.count < 4 {
            copies.append(copy)
            copy = copy.offsetBy(x: moved.width, y: 0)
        }
        return copies
    }
}
