// The scene's images, decoded (PNG/JPEG through CImage), premultiplied and blurred once, ready to
// upload as textures. A file used by several layers with the same blur is decoded once.

import CImage

/// RGBA8 pixels with premultiplied alpha, rows top to bottom.
public struct LoadedImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

public enum ImageSet {
    /// One image per layer of `scene.layers`, in that order; problems name the Image= line.
    public static func load(scene: Scene, file: String) -> (images: [LoadedImage], errors: [SceneIssue]) {
        var images: [LoadedImage] = []
        var errors: [SceneIssue] = []
        var cache: [String: LoadedImage] = [:]
        for layer in scene.layers {
            let key = "\(layer.blur)\u{0}\(layer.image)"
            if let image = cache[key] {
                images.append(image)
                continue
            }
            switch decode(path: layer.image) {
            case .success(var image):
                GaussianBlur.apply(to: &image, radius: layer.blur)
                cache[key] = image
                images.append(image)
            case .failure(let message):
                errors.append(SceneIssue(file: file, line: layer.imageLine, message: "[Layer \(layer.name)] Image=: \(message.text)"))
            }
        }
        return (images, errors)
    }

    public struct DecodeError: Error {
        public var text: String
    }

    /// Decodes one file into premultiplied RGBA8.
    public static func decode(path: String) -> Result<LoadedImage, DecodeError> {
        var raw = plx_image()
        var message = [CChar](repeating: 0, count: 512)
        guard plx_image_load(path, &raw, &message, message.count) == 0, let source = raw.pixels else {
            return .failure(DecodeError(text: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        defer { plx_image_free(&raw) }
        let count = Int(raw.width) * Int(raw.height) * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            while index < count {
                let alpha = UInt32(source[index + 3])
                // Premultiply with rounding: c·a/255.
                for channel in 0..<3 {
                    let product = UInt32(source[index + channel]) * alpha + 128
                    buffer[index + channel] = UInt8((product + (product >> 8)) >> 8)
                }
                buffer[index + 3] = UInt8(alpha)
                index += 4
            }
            initialized = count
        }
        return .success(LoadedImage(width: Int(raw.width), height: Int(raw.height), pixels: pixels))
    }
}
