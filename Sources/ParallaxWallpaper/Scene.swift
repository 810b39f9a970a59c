// A wallpaper scene as values (docs/wallpaper.md "Scene files"): what is drawn, back to front,
// and how each thing moves with the viewer offset. Lengths are in logical pixels (surface units:
// output pixels at scale 1); the renderer multiplies them by the output's scale.

/// An RGBA colour, each component in [0, 1], straight (not premultiplied) alpha.
public struct SceneColor: Sendable, Hashable {
    public var red, green, blue, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let black = SceneColor(red: 0, green: 0, blue: 0)
}

/// How a layer's image is sized to the output.
public enum LayerFit: String, Sendable, Hashable, CaseIterable {
    /// Scaled (aspect kept) to cover the output plus its travel on every side, centred.
    case cover
    /// One image pixel per output pixel, centred.
    case none
}

/// Where reduce motion comes from.
public enum ReduceMotionSource: String, Sendable, Hashable, CaseIterable {
    /// The daemon's `reduce_motion` state or the desktop's `reduced-motion` preference.
    case system
    /// Always: the scene is drawn centred and never moves.
    case on
    /// Never, whatever the daemon or desktop say.
    case off
}

/// The seed's custom motion effect as a scene camera (docs/wallpaper.md "Perspective").
public struct PerspectiveCamera: Sendable, Hashable {
    /// Apple's MotionEffects sample: 18° about the vertical axis for horizontal offset, 2° about
    /// the horizontal axis for vertical offset.
    public static let defaultMaximumAngleHorizontal = 18.0
    public static let defaultMaximumAngleVertical = 2.0
    /// Distance from the eye to the Z = 0 plane (logical pixels); the sample's 1500.
    public static let defaultEyeDistance = 1500.0

    /// Rotation at full horizontal offset (degrees, about the vertical axis).
    public var maximumAngleHorizontal: Double
    /// Rotation at full vertical offset (degrees, about the horizontal axis).
    public var maximumAngleVertical: Double
    public var eyeDistance: Double

    public init(
        maximumAngleHorizontal: Double = PerspectiveCamera.defaultMaximumAngleHorizontal,
        maximumAngleVertical: Double = PerspectiveCamera.defaultMaximumAngleVertical,
        eyeDistance: Double = PerspectiveCamera.defaultEyeDistance
    ) {
        self.maximumAngleHorizontal = maximumAngleHorizontal
        self.maximumAngleVertical = maximumAngleVertical
        self.eyeDistance = eyeDistance
    }
}

public enum SceneCamera: Sendable, Hashable {
    case flat
    case perspective(PerspectiveCamera)
}

/// An image that moves with the offset.
public struct SceneLayer: Sendable, Hashable {
    public var name: String
    /// Absolute path of the PNG or JPEG.
    public var image: String
    /// Flat camera: logical pixels moved at full offset (Depth·x right, Depth·y down); negative
    /// is recessed behind the screen, positive floats in front of it.
    public var depth: Double
    /// Perspective camera: position along the view axis (logical pixels, negative = behind).
    public var z: Double
    public var fit: LayerFit
    /// Gaussian blur radius (logical pixels), applied once when the image is loaded.
    public var blur: Double
    /// The scene file's line with `Image=`, for errors found when the image is read.
    public var imageLine: Int
    /// `Panorama=`: the image is a panorama that turns with the device's heading; nil = a plain layer.
    public var panorama: Panorama?

    public init(name: String, image: String, depth: Double = 0, z: Double = 0, fit: LayerFit = .cover, blur: Double = 0,
                imageLine: Int = 0, panorama: Panorama? = nil) {
        self.imageLine = imageLine
        self.panorama = panorama
        self.name = name
        self.image = image
        self.depth = depth
        self.z = z
        self.fit = fit
        self.blur = blur
    }
}

/// A layer's `Panorama=` and `FieldOfView=` (docs/wallpaper.md "Panorama layers"): the image spans
/// `degrees` horizontally and the output shows `fieldOfView` of them, so turning the device by θ
/// moves the picture by θ/fieldOfView of the output's width.
public struct Panorama: Sendable, Hashable {
    public static let defaultFieldOfView = 60.0
    public static let degreeRange = 30.0...360.0
    public static let fieldOfViewRange = 10.0...180.0

    /// Horizontal angle the whole image spans (30–360); 360 wraps around seamlessly.
    public var degrees: Double
    /// Horizontal angle the output shows (10–180).
    public var fieldOfView: Double

    public init(degrees: Double, fieldOfView: Double = Panorama.defaultFieldOfView) {
        self.degrees = degrees
        self.fieldOfView = fieldOfView
    }

    /// A full circle: the image's right edge continues into its left edge.
    public var wraps: Bool { degrees >= 360 }
}

/// A rectangle in logical pixels from the output's top left (a scene's `Rect=x,y,width,height`).
public struct LogicalRect: Sendable, Hashable {
    public var x, y, width, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// `[Mesh NAME]` (docs/wallpaper.md "Mesh layers"): an image cut into a grid of pieces, each moving
/// like a flat layer of its own depth and turning about its own vertical centre line, like
/// spacetime's per-instance transforms.
public struct SceneMesh: Sendable, Hashable {
    public var name: String
    /// Absolute path of the PNG or JPEG.
    public var image: String
    public var imageLine: Int
    public var columns: Int
    public var rows: Int
    /// Flat camera: logical pixels each piece moves at full offset, row-major (columns × rows).
    public var depths: [Double]
    /// Degrees each piece turns about its own vertical centre line at x = ±1, row-major.
    public var turns: [Double]
    /// x, y, width, height (logical pixels, from the output's top left) of the whole mesh at offset
    /// (0, 0); nil = centred at the image's size (one image pixel per output pixel).
    public var rect: LogicalRect?
    /// Perspective camera: the plane of the whole mesh (logical pixels, negative = behind).
    public var z: Double

    public init(name: String, image: String, imageLine: Int = 0, columns: Int = 1, rows: Int = 1,
                depths: [Double]? = nil, turns: [Double]? = nil, z: Double = 0) {
        self.name = name
        self.image = image
        self.imageLine = imageLine
        self.columns = columns
        self.rows = rows
        self.depths = depths ?? Array(repeating: 0, count: columns * rows)
        self.turns = turns ?? Array(repeating: 0, count: columns * rows)
        self.z = z
    }

    public var pieceCount: Int { columns * rows }
}

/// The seed's parallax blur: a clipped panel showing a blurred, tinted copy of everything drawn
/// before it. The panel moves like a layer of its depth; its content stays aligned with what is
/// behind it.
public struct ScenePanel: Sendable, Hashable {
    public var name: String
    /// x, y, width, height (logical pixels) at offset (0, 0), from the output's top left.
    public var x, y, width, height: Double
    public var depth: Double
    public var z: Double
    /// Gaussian blur radius of the content (logical pixels).
    public var blur: Double
    public var tint: SceneColor

    public init(name: String, x: Double, y: Double, width: Double, height: Double, depth: Double = 0, z: Double = 0,
                blur: Double = ScenePanel.defaultBlur, tint: SceneColor = ScenePanel.defaultTint) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.depth = depth
        self.z = z
        self.blur = blur
        self.tint = tint
    }

    public static let defaultBlur = 16.0
    /// A light frosted glass: white at 25 % (#ffffff40).
    public static let defaultTint = SceneColor(red: 1, green: 1, blue: 1, alpha: 0x40 / 255.0)
}

public enum SceneItem: Sendable, Hashable {
    case layer(SceneLayer)
    case panel(ScenePanel)
    case mesh(SceneMesh)
}

/// An image a scene item shows, named for messages ("[Layer sky]").
public struct ScenePicture: Sendable, Hashable {
    public var label: String
    public var image: String
    public var blur: Double
    public var imageLine: Int
}

public struct Scene: Sendable, Hashable {
    public static let defaultRate = 60

    public var background = SceneColor.black
    /// Subscription rate (Hz).
    public var rate = Scene.defaultRate
    public var reduceMotion = ReduceMotionSource.system
    /// Time constant (seconds) of an exponential smoother on the offset; 0 = none.
    public var smoothing = 0.0
    public var camera = SceneCamera.flat
    /// Eye to the screen plane (logical pixels): the perspective camera's, and in a flat scene the
    /// one a [Mesh]'s turned pieces are drawn with.
    public var eyeDistance = PerspectiveCamera.defaultEyeDistance
    /// Drawn back to front in this order.
    public var items: [SceneItem] = []

    public init() {}

    public var layers: [SceneLayer] {
        items.compactMap { if case .layer(let layer) = $0 { layer } else { nil } }
    }

    /// The images of the layers and meshes, in file order (panels have none).
    public var pictures: [ScenePicture] {
        items.compactMap {
            switch $0 {
            case .layer(let layer):
                ScenePicture(label: "[Layer \(layer.name)]", image: layer.image, blur: layer.blur, imageLine: layer.imageLine)
            case .mesh(let mesh):
                ScenePicture(label: "[Mesh \(mesh.name)]", image: mesh.image, blur: 0, imageLine: mesh.imageLine)
            case .panel:
                nil
            }
        }
    }

    /// A panorama layer turns with the heading: subscribe with "heading": true.
    public var wantsHeading: Bool {
        layers.contains { $0.panorama != nil }
    }
}
