// Draws a scene with GLES2 for one output at one offset, back to front in file order: flat and
// perspective layers, panoramas (side-by-side copies for a 360° one), mesh pieces (each a part of
// the texture through its own turn), and blur panels (PanelBlur). The GL programs live in
// ScenePrograms, made once and shared by every scene the wallpaper loads; a SceneRenderer owns its
// scene's textures, uploaded when it is made (the CPU copies of the pixels are dropped then).

import CWayland
import ParallaxClient
import ParallaxWallpaper

/// The GL programs and the unit quad: compiled on the first frame, kept across scene reloads.
final class ScenePrograms {
    let quad: GLuint
    let image: GLProgram
    let imageMatrix, imageRect, imageTextureRect: GLint
    let panelBlur: PanelBlur

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
    /// Like vertexShader, but showing only the part u_texture_rect (x0, y0, x1, y1 in 0…1) of the texture.
    private static let imageVertexShader = """
        attribute vec2 a_corner;
        uniform mat4 u_matrix;
        uniform vec4 u_rect;
        uniform vec4 u_texture_rect;
        varying vec2 v_uv;
        void main() {
            v_uv = mix(u_texture_rect.xy, u_texture_rect.zw, a_corner);
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

    init() throws(WaylandError) {
        image = try GLProgram(vertex: Self.imageVertexShader, fragment: Self.imageShader)
        imageMatrix = image.uniform("u_matrix")
        imageRect = image.uniform("u_rect")
        imageTextureRect = image.uniform("u_texture_rect")
        quad = GLResources.unitQuad()
        panelBlur = try PanelBlur()
    }

    /// The largest texture side this GPU takes (GL_MAX_TEXTURE_SIZE); needs a current context.
    static func maximumTextureSize() -> Int {
        var size: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &size)
        return Int(size)
    }
}

final class SceneRenderer {
    let scene: Scene
    /// Per picture (layers and meshes, file order): the file's size, which placement uses.
    private let imageSizes: [(width: Int, height: Int)]
    private let textures: [GLuint]

    /// Uploads the images as textures (the EGL context must be current: it always is, with a
    /// window surface or surfaceless) and keeps only their sizes.
    init(scene: Scene, images: [LoadedImage]) {
        self.scene = scene
        imageSizes = images.map { ($0.sourceWidth, $0.sourceHeight) }
        textures = images.map(GLResources.texture)
    }

    deinit {
        var names = textures
        glDeleteTextures(GLsizei(names.count), &names)
    }

    /// Centred pixel coordinates (x right, y down) → clip space, keeping w for the perspective.
    static func projection(width: Double, height: Double) -> Transform3D {
        .scale(x: 2 / width, y: -2 / height, z: 0)
    }

    /// Draws the scene at `offset`; `yaw` is the heading (radians) for panoramas, nil without one.
    func draw(width: Int32, height: Int32, scale: Double, offset: ParallaxOffset, yaw: Double?, programs: ScenePrograms) {
        let output = OutputGeometry(width: Double(width), height: Double(height), scale: scale)
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
        bindQuad(programs)

        let whole = PixelRect(minX: 0, minY: 0, maxX: 1, maxY: 1)
        var pictureIndex = 0
        for item in scene.items {
            switch item {
            case .layer(let layer):
                let size = imageSizes[pictureIndex]
                let texture = textures[pictureIndex]
                pictureIndex += 1
                if let panorama = layer.panorama {
                    for rect in PanoramaPlacement.place(imageWidth: size.width, imageHeight: size.height, panorama: panorama,
                                                        fit: layer.fit, depth: layer.depth, output: output, offset: offset, yaw: yaw) {
                        drawImage(texture, rect: rect, part: whole, matrix: projection, programs: programs)
                    }
                } else if let perspective {
                    let z = layer.z * output.scale
                    let rect = PerspectivePlacement.restingRect(imageWidth: size.width, imageHeight: size.height, fit: layer.fit,
                                                                z: z, effect: perspective, output: output)
                    drawImage(texture, rect: rect, part: whole, matrix: .translation(x: 0, y: 0, z: z) * camera * projection, programs: programs)
                } else {
                    let rect = FlatPlacement.restingRect(imageWidth: size.width, imageHeight: size.height, fit: layer.fit,
                                                         depth: layer.depth, output: output)
                    let shift = FlatPlacement.shift(depth: layer.depth, offset: offset, scale: output.scale)
                    drawImage(texture, rect: rect, part: whole, matrix: .translation(x: shift.x, y: shift.y, z: 0) * projection, programs: programs)
                }
            case .mesh(let mesh):
                let size = imageSizes[pictureIndex]
                let texture = textures[pictureIndex]
                pictureIndex += 1
                let z = mesh.z * output.scale
                // Under Camera=perspective the plane sits at Z and looks its size at rest, as a layer's.
                let k = perspective.map { PerspectivePlacement.depthCompensation(z: z, eyeDistance: $0.eyeDistance) } ?? 1
                let pieces = MeshPlacement.pieces(mesh, imageWidth: size.width, imageHeight: size.height, output: output, offset: offset,
                                                  flatEyeDistance: perspective == nil ? scene.eyeDistance * output.scale : nil)
                for piece in pieces {
                    var rect = piece.rect
                    var matrix = piece.transform * projection
                    if perspective != nil {
                        rect = PixelRect(minX: rect.minX * k, minY: rect.minY * k, maxX: rect.maxX * k, maxY: rect.maxY * k)
                        let turn = MeshPlacement.turn(angle: piece.turn, centreX: (rect.minX + rect.maxX) / 2)
                        matrix = turn * .translation(x: 0, y: 0, z: z) * camera * projection
                    }
                    drawImage(texture, rect: rect, part: piece.textureRect, matrix: matrix, programs: programs)
                }
            case .panel(let panel):
                let placed = PanelPlacement.place(panel, output: output, offset: offset, perspective: perspective)
                let matrix = perspective == nil ? projection : .translation(x: 0, y: 0, z: panel.z * output.scale) * camera * projection
                programs.panelBlur.draw(panel, placed: placed, matrix: matrix, output: output, quad: programs.quad)
                bindQuad(programs)
            }
        }
    }

    private func bindQuad(_ programs: ScenePrograms) {
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), programs.quad)
        glEnableVertexAttribArray(0)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
    }

    private func drawImage(_ texture: GLuint, rect: PixelRect, part: PixelRect, matrix: Transform3D, programs: ScenePrograms) {
        glUseProgram(programs.image.id)
        glEnable(GLenum(GL_BLEND))
        glBlendFunc(GLenum(GL_ONE), GLenum(GL_ONE_MINUS_SRC_ALPHA))  // premultiplied alpha
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        matrix.floatElements.withUnsafeBufferPointer { glUniformMatrix4fv(programs.imageMatrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        glUniform4f(programs.imageRect, Float(rect.minX), Float(rect.minY), Float(rect.maxX), Float(rect.maxY))
        glUniform4f(programs.imageTextureRect, Float(part.minX), Float(part.minY), Float(part.maxX), Float(part.maxY))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }
}
