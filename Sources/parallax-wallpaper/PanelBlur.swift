// The parallax blur panel on the GPU: copy the screen area under the panel (everything drawn
// before it) from the back buffer, blur it with a separable Gaussian (σ = Blur/2, as layers) at a
// reduced resolution when the radius is large, then draw the panel's shape sampling the blurred
// copy at the same screen position, with the tint over it.

import CWayland
import ParallaxClient
import ParallaxWallpaper

final class PanelBlur {
    /// Taps on each side of the centre per pass; larger blurs work on a downscaled copy instead.
    static let maximumTaps = 8

    private let blurProgram: GLProgram
    private let blurStep, blurWeights, blurSource: GLint
    private let panelProgram: GLProgram
    private let panelMatrix, panelRect, panelOrigin, panelSize, panelTint: GLint
    private let copy = Surface()
    private let horizontal = Surface()
    private let vertical = Surface()
    private let fullscreen: GLuint

    /// A texture with a framebuffer around it, (re)allocated to the size asked for.
    private final class Surface {
        var texture: GLuint = 0
        var framebuffer: GLuint = 0
        var width: Int32 = 0
        var height: Int32 = 0

        func ensure(width: Int32, height: Int32, framebuffer wanted: Bool) {
            if texture == 0 { glGenTextures(1, &texture) }
            glBindTexture(GLenum(GL_TEXTURE_2D), texture)
            if width != self.width || height != self.height {
                GLResources.setSampling()
                glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, width, height, 0, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
                self.width = width
                self.height = height
            }
            if wanted && framebuffer == 0 {
                glGenFramebuffers(1, &framebuffer)
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer)
                glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
                glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            }
        }
    }

    private static let blurVertex = """
        attribute vec2 a_corner;
        varying vec2 v_uv;
        void main() { v_uv = a_corner; gl_Position = vec4(a_corner * 2.0 - 1.0, 0.0, 1.0); }
        """
    private static let blurFragment = ScenePrograms.precision + """
        uniform sampler2D u_source;
        uniform vec2 u_step;
        uniform float u_weights[\(maximumTaps + 1)];
        varying vec2 v_uv;
        void main() {
            vec4 sum = texture2D(u_source, v_uv) * u_weights[0];
            for (int i = 1; i <= \(maximumTaps); i++) {
                vec2 d = u_step * float(i);
                sum += (texture2D(u_source, v_uv + d) + texture2D(u_source, v_uv - d)) * u_weights[i];
            }
            gl_FragColor = sum;
        }
        """
    private static let panelFragment = ScenePrograms.precision + """
        uniform sampler2D u_blurred;
        uniform vec2 u_origin;
        uniform vec2 u_size;
        uniform vec4 u_tint;
        void main() {
            vec4 behind = texture2D(u_blurred, (gl_FragCoord.xy - u_origin) / u_size);
            gl_FragColor = vec4(behind.rgb * (1.0 - u_tint.a) + u_tint.rgb * u_tint.a, 1.0);
        }
        """

    init() throws(WaylandError) {
        blurProgram = try GLProgram(vertex: Self.blurVertex, fragment: Self.blurFragment)
        blurStep = blurProgram.uniform("u_step")
        blurWeights = blurProgram.uniform("u_weights")
        blurSource = blurProgram.uniform("u_source")
        panelProgram = try GLProgram(vertex: ScenePrograms.vertexShader, fragment: Self.panelFragment)
        panelMatrix = panelProgram.uniform("u_matrix")
        panelRect = panelProgram.uniform("u_rect")
        panelOrigin = panelProgram.uniform("u_origin")
        panelSize = panelProgram.uniform("u_size")
        panelTint = panelProgram.uniform("u_tint")
        fullscreen = GLResources.unitQuad()
    }

    func draw(_ panel: ScenePanel, placed: PlacedPanel, matrix: Transform3D, output: OutputGeometry, quad: GLuint) {
        let sigma = GaussianBlur.sigma(radius: panel.blur) * output.scale
        let margin = (3 * sigma).rounded(.up)
        // The screen area to copy, in window coordinates (origin bottom left), clipped to the output.
        let bounds = placed.screenBounds
        let x0 = max(Int32((bounds.minX + output.width / 2 - margin).rounded(.down)), 0)
        let x1 = min(Int32((bounds.maxX + output.width / 2 + margin).rounded(.up)), Int32(output.width))
        let y0 = max(Int32((output.height / 2 - bounds.maxY - margin).rounded(.down)), 0)
        let y1 = min(Int32((output.height / 2 - bounds.minY + margin).rounded(.up)), Int32(output.height))
        guard x1 > x0, y1 > y0 else { return }
        let width = x1 - x0
        let height = y1 - y0

        glDisable(GLenum(GL_BLEND))
        copy.ensure(width: width, height: height, framebuffer: false)
        glCopyTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, x0, y0, width, height)

        var blurred = copy
        if sigma >= 0.5 {
            let factor = max(1, Int32((3 * sigma / Double(Self.maximumTaps)).rounded(.up)))
            let smallWidth = (width + factor - 1) / factor
            let smallHeight = (height + factor - 1) / factor
            let weights = Self.weights(sigma: sigma, spacing: Double(factor))
            horizontal.ensure(width: smallWidth, height: smallHeight, framebuffer: true)
            vertical.ensure(width: smallWidth, height: smallHeight, framebuffer: true)
            glUseProgram(blurProgram.id)
            glUniform1i(blurSource, 0)
            weights.withUnsafeBufferPointer { glUniform1fv(blurWeights, GLsizei($0.count), $0.baseAddress) }
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), fullscreen)
            glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
            glViewport(0, 0, smallWidth, smallHeight)
            pass(from: copy, into: horizontal, step: (Float(factor) / Float(width), 0))
            pass(from: horizontal, into: vertical, step: (0, 1 / Float(smallHeight)))
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
            glViewport(0, 0, Int32(output.width), Int32(output.height))
            blurred = vertical
        }

        glUseProgram(panelProgram.id)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), blurred.texture)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), quad)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        matrix.floatElements.withUnsafeBufferPointer { glUniformMatrix4fv(panelMatrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        let rect = placed.rect
        glUniform4f(panelRect, Float(rect.minX), Float(rect.minY), Float(rect.maxX), Float(rect.maxY))
        glUniform2f(panelOrigin, Float(x0), Float(y0))
        glUniform2f(panelSize, Float(width), Float(height))
        let tint = panel.tint
        glUniform4f(panelTint, Float(tint.red), Float(tint.green), Float(tint.blue), Float(tint.alpha))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    private func pass(from source: Surface, into target: Surface, step: (Float, Float)) {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), target.framebuffer)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), source.texture)
        glUniform2f(blurStep, step.0, step.1)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }

    /// Normalised Gaussian weights for taps `spacing` pixels apart (centre first).
    static func weights(sigma: Double, spacing: Double) -> [Float] {
        var raw = (0...maximumTaps).map { i -> Double in
            let distance = Double(i) * spacing
            return distance > 3 * sigma + spacing ? 0 : exp(-distance * distance / (2 * sigma * sigma))
        }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        raw = raw.map { $0 / total }
        return raw.map(Float.init)
    }
}
