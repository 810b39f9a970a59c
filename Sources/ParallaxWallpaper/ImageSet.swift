// The scene's images, decoded (PNG/JPEG through CImage) at the size they are shown at
// (DecodeSize), premultiplied and blurred once, ready to upload as textures. A file used by several
// items at the same size and blur is decoded once.

import CImage

/// RGBA8 pixels with premultiplied alpha, rows top to bottom. `sourceWidth` × `sourceHeight` is the
/// file's size, which placement uses (a picture decoded smaller still covers the same rectangle).
public struct LoadedImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]
    public var sourceWidth: Int
    public var sourceHeight: Int

    public init(width: Int, height: Int, pixels: [UInt8], sourceWidth: Int? = nil, sourceHeight: Int? = nil) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
    }
}

public enum ImageSet {
    /// One image per picture of `scene.pictures` (layers and meshes), in that order, each decoded
    /// within DecodeSize.limit for `outputs` (none: full size up to `textureLimit`); problems
    /// name the Image= line.
    public static func load(scene: Scene, file: String, outputs: [OutputGeometry] = [],
                            textureLimit: Int? = nil) -> (images: [LoadedImage], errors: [SceneIssue]) {
        var images: [LoadedImage] = []
        var errors: [SceneIssue] = []
        var cache: [String: LoadedImage] = [:]
        let items = scene.items.filter { if case .panel = $0 { false } else { true } }
        for (item, picture) in zip(items, scene.pictures) {
            let source: (width: Int, height: Int)
            switch probe(path: picture.image) {
            case .success(let size): source = size
            case .failure(let message):
                errors.append(SceneIssue(file: file, line: picture.imageLine, message: "\(picture.label) Image=: \(message.text)"))
                continue
            }
            let box = DecodeSize.limit(item, camera: scene.camera, imageWidth: source.width, imageHeight: source.height,
                                       outputs: outputs, textureLimit: textureLimit)
            let key = "\(picture.blur)\u{0}\(box.width)x\(box.height)\u{0}\(picture.image)"
            if let image = cache[key] {
                images.append(image)
                continue
            }
            switch decode(path: picture.image, maximumWidth: box.width, maximumHeight: box.height) {
            case .success(var image):
                // Blur= is in the file's pixels: a picture decoded smaller gets a smaller radius.
                GaussianBlur.apply(to: &image, radius: picture.blur * Double(image.width) / Double(max(image.sourceWidth, 1)))
                cache[key] = image
                images.append(image)
            case .failure(let message):
                errors.append(SceneIssue(file: file, line: picture.imageLine, message: "\(picture.label) Image=: \(message.text)"))
            }
        }
        return (images, errors)
    }

    /// Reads only the headers: a missing file or one that is not a PNG or JPEG, without decoding.
    public static func probeAll(scene: Scene, file: String) -> [SceneIssue] {
        scene.pictures.compactMap { picture in
            guard case .failure(let message) = probe(path: picture.image) else { return nil }
            return SceneIssue(file: file, line: picture.imageLine, message: "\(picture.label) Image=: \(message.text)")
        }
    }

    public struct DecodeError: Error {
        public var text: String
    }

    /// The file's size from its header.
    public static func probe(path: String) -> Result<(width: Int, height: Int), DecodeError> {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 512)
        guard plx_image_probe(path, &width, &height, &message, message.count) == 0 else {
            return .failure(DecodeError(text: text(message)))
        }
        return .success((Int(width), Int(height)))
    }

    /// Decodes one file into premultiplied RGBA8 within maximumWidth × maximumHeight (0 = no
    /// limit), aspect kept, never enlarged.
    public static func decode(path: String, maximumWidth: Int = 0, maximumHeight: Int = 0) -> Result<LoadedImage, DecodeError> {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 512)
        guard plx_image_probe(path, &width, &height, &message, message.count) == 0 else {
            return .failure(DecodeError(text: text(message)))
        }
        var raw = plx_image()
        guard plx_image_load(path, UInt32(clamping: maximumWidth), UInt32(clamping: maximumHeight), &raw, &message, message.count) == 0,
              let source = raw.pixels
        else {
            return .failure(DecodeError(text: text(message)))
        }
        defer { plx_image_free(&raw) }
        let count = Int(raw.width) * Int(raw.height) * 4
        let pixels = [UInt8](UnsafeBufferPointer(start: source, count: count))
        return .success(LoadedImage(width: Int(raw.width), height: Int(raw.height), pixels: pixels,
                                    sourceWidth: Int(width), sourceHeight: Int(height)))
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
