// How large an image needs to be decoded: the size it is shown at on the largest output (buffer
// pixels), never more than the GPU's texture limit (GL_MAX_TEXTURE_SIZE). A photo larger than the
// screen is decoded scaled down (CImage), so memory follows the screen, not the file: an
// 8000×6000 JPEG as a cover layer on a 1920×1080 output becomes about 1960×1470.

import ParallaxClient

public enum DecodeSize {
    /// The size (buffer pixels) at which `item` draws an image of the given size on `output`.
    public static func shown(_ item: SceneItem, camera: SceneCamera, imageWidth: Int, imageHeight: Int,
                             output: OutputGeometry) -> (width: Double, height: Double) {
        let rect: PixelRect
        switch item {
        case .layer(let layer):
            if let panorama = layer.panorama {
                rect = PanoramaPlacement.restingRect(imageWidth: imageWidth, imageHeight: imageHeight, panorama: panorama,
                                                     fit: layer.fit, depth: layer.depth, output: output)
            } else if case .perspective(let settings) = camera {
                let effect = PerspectivePlacement.effect(settings, scale: output.scale)
                let z = layer.z * output.scale
                let plane = PerspectivePlacement.restingRect(imageWidth: imageWidth, imageHeight: imageHeight, fit: layer.fit,
                                                             z: z, effect: effect, output: output)
                // A plane behind the screen is drawn smaller than its size in its own plane.
                let k = PerspectivePlacement.depthCompensation(z: z, eyeDistance: effect.eyeDistance)
                rect = .centred(width: plane.width / k, height: plane.height / k)
            } else {
                rect = FlatPlacement.restingRect(imageWidth: imageWidth, imageHeight: imageHeight, fit: layer.fit,
                                                 depth: layer.depth, output: output)
            }
        case .mesh(let mesh):
            rect = MeshPlacement.restingRect(mesh, imageWidth: imageWidth, imageHeight: imageHeight, output: output)
        case .panel:
            return (0, 0)
        }
        return (rect.width, rect.height)
    }

    /// The box (pixels; 0 = no limit on that side) to decode an image of the given size within: its
    /// largest shown size over `outputs` (none known: no limit), and at most `textureLimit` a side.
    public static func limit(_ item: SceneItem, camera: SceneCamera, imageWidth: Int, imageHeight: Int,
                             outputs: [OutputGeometry], textureLimit: Int?) -> (width: Int, height: Int) {
        var width = 0.0
        var height = 0.0
        for output in outputs {
            let size = shown(item, camera: camera, imageWidth: imageWidth, imageHeight: imageHeight, output: output)
            width = max(width, size.width)
            height = max(height, size.height)
        }
        var box = (width: outputs.isEmpty ? 0 : Int(min(width.rounded(.up), 1e9)),
                   height: outputs.isEmpty ? 0 : Int(min(height.rounded(.up), 1e9)))
        if !outputs.isEmpty {
            box.width = max(box.width, 1)
            box.height = max(box.height, 1)
        }
        if let textureLimit, textureLimit > 0 {
            box.width = box.width == 0 ? textureLimit : min(box.width, textureLimit)
            box.height = box.height == 0 ? textureLimit : min(box.height, textureLimit)
        }
        return box
    }
}
