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

    public init(name: String, image: String, depth: Double = 0, z: Double = 0, fit: LayerFit = .cover, blur: Double = 0,
                imageLine: Int = 0) {
        self.imageLine = imageLine
        self.name = name
        self.image = image
        self.depth = depth
        self.z = z
        self.fit = fit
        self.blur = blur
    }
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
    /// Drawn back to front in this order.
    public var items: [SceneItem] = []

    public init() {}

    public var layers: [SceneLayer] {
        items.compactMap { if case .layer(let layer) = $0 { layer } else { nil } }
    }
}
