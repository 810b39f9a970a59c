// Draws a scene with GLES2 for one output at one offset.

import CWayland
import ParallaxClient
import ParallaxWallpaper

final class SceneRenderer {
    private let scene: Scene

    init(scene: Scene, images: [LoadedImage]) throws(WaylandError) {
        self.scene = scene
    }

    func draw(width: Int32, height: Int32, scale: Int32, offset: ParallaxOffset) {
        glViewport(0, 0, width, height)
        let background = scene.background
        glClearColor(Float(background.red), Float(background.green), Float(background.blue), 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
    }
}
