// Draws a scene with GLES2 for one output at one offset, back to front in file order. One
// program for images (a textured quad through a 4×4 matrix: a translation for flat layers, the
// perspective camera otherwise) and the panel blur (PanelBlur). GL objects are made on the first
// frame, when a surface is current, and shared by every output.

import CWayland
import ParallaxClient
import ParallaxWallpaper

final class SceneRenderer {
    private let scene: Scene
    private let images: [LoadedImage]
    private var resources: Resources?

    private struct Resources {
        let quad: GLuint
        let image: GLProgram
        let imageMatrix, imageRect: GLint
        let textures: [GLuint]
        let panelBlur: PanelBlur
    }

    static let vertexShader = """
        attribute vec2 a_corner;
        uniform mat4 u_matrix;
        uniform vec4 u_rect;
        varying vec2 v_uv;
        void main() {
            v_uv = a_corner;
            gl_Position = u_matrix * vec4(mix(u_rect.xy, u_rect.zw, a_corner), 0.0, 1.0);
        }
        """
    static let precision = """
        #ifdef GL_FRAGMENT_PRECISION_HIGH
        precision highp float;
        #else
        precision mediump float;
        #endif

        """
    private static let imageShader = precision + """
        uniform sampler2D u_texture;
        varying vec2 v_uv;
        void main() { gl_FragColor = texture2D(u_texture, v_uv); }
        """

    init(scene: Scene, images: [LoadedImage]) throws(WaylandError) {
        self.scene = scene
        self.images = images
    }

    private func prepare() throws(WaylandError) -> Resources {
        if let resources { return resources }
        var maximumSize: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maximumSize)
        for (layer, picture) in zip(scene.layers, images) where picture.width > Int(maximumSize) || picture.height > Int(maximumSize) {
            WallpaperApp.log("[Layer \(layer.name)] \(layer.image) is \(picture.width)x\(picture.height), larger than this GPU's textures (\(maximumSize) pixels a side): it will not show; scale it down")
        }
        let image = try GLProgram(vertex: Self.vertexShader, fragment: Self.imageShader)
        let made = Resources(
            quad: GLResources.unitQuad(), image: image,
            imageMatrix: image.uniform("u_matrix"), imageRect: image.uniform("u_rect"),
            textures: images.map(GLResources.texture),
            panelBlur: try PanelBlur())
        resources = made
        return made
    }

    /// Centred pixel coordinates (x right, y down) → clip space, keeping w for the perspective.
    static func projection(width: Double, height: Double) -> Transform3D {
        .scale(x: 2 / width, y: -2 / height, z: 0)
    }

    func draw(width: Int32, height: Int32, scale: Int32, offset: ParallaxOffset) {
        let resources: Resources
        do {
            resources = try prepare()
        } catch {
            WallpaperApp.log(error.description)
            return
        }
        let output = OutputGeometry(width: Double(width), height: Double(height), scale: Double(scale))
        let projection = Self.projection(width: output.width, height: output.height)
        let perspective: PerspectiveMotionEffect?
        let camera: Transform3D
        if case .perspective(let settings) = scene.camera {
            let effect = PerspectivePlacement.effect(settings, scale: output.scale)
            perspective = effect
            camera = effect.transform(for: offset)
        } else {
            perspective = nil
            camera = .identity
        }

        glViewport(0, 0, width, height)
        let background = scene.background
        glClearColor(Float(background.red), Float(background.green), Float(background.blue), 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), resources.quad)
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)

        var layerIndex = 0
        for item in scene.items {
            switch item {
            case .layer(let layer):
                let image = images[layerIndex]
                let texture = resources.textures[layerIndex]
                layerIndex += 1
                let rect: PixelRect
                let matrix: Transform3D
                if let perspective {
                    let z = layer.z * output.scale
                    rect = PerspectivePlacement.restingRect(imageWidth: image.width, imageHeight: image.height, fit: layer.fit,
                                                            z: z, effect: perspective, output: output)
                    matrix = .translation(x: 0, y: 0, z: z) * camera * projection
                } else {
                    rect = FlatPlacement.restingRect(imageWidth: image.width, imageHeight: image.height, fit: layer.fit,
                                                     depth: layer.depth, output: output)
                    let shift = FlatPlacement.shift(depth: layer.depth, offset: offset, scale: output.scale)
                    matrix = .translation(x: shift.x, y: shift.y, z: 0) * projection
                }
                drawImage(texture, rect: rect, matrix: matrix, resources: resources)
            case .panel(let panel):
                let placed = PanelPlacement.place(panel, output: output, offset: offset, perspective: perspective)
                let matrix = perspective == nil ? projection : .translation(x: 0, y: 0, z: panel.z * output.scale) * camera * projection
                resources.panelBlur.draw(panel, placed: placed, matrix: matrix, output: output, quad: resources.quad)
                glBindBuffer(GLenum(GL_ARRAY_BUFFER), resources.quad)
                glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
            }
        }
    }

    private func drawImage(_ texture: GLuint, rect: PixelRect, matrix: Transform3D, resources: Resources) {
        glUseProgram(resources.image.id)
        glEnable(GLenum(GL_BLEND))
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))  // premultiplied alpha
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        matrix.floatElements.withUnsafeBufferPointer { glUniformMatrix4fv(resources.imageMatrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        glUniform4f(resources.imageRect, Float(rect.minX), Float(rect.minY), Float(rect.maxX), Float(rect.maxY))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }
}
