// EGL on the Wayland platform: one display, one GLES2 context shared by every output's surface
// (textures and programs are made once), one EGLSurface per wl_egl_window. Under Mesa without a
// GPU this is the software rasteriser (llvmpipe/softpipe), which is what the tests run.

import CWayland
import ParallaxWallpaper

final class EGLRenderContext {
    let display: EGLDisplay
    let config: EGLConfig
    let context: EGLContext

    init(wayland: OpaquePointer) throws(WaylandError) {
        guard let display = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_WAYLAND_KHR), UnsafeMutableRawPointer(wayland), nil) else {
            throw WaylandError(description: "EGL has no display for this Wayland connection (is Mesa's libegl-mesa0 installed?)")
        }
        var major: EGLint = 0
        var minor: EGLint = 0
        guard eglInitialize(display, &major, &minor) == EGL_TRUE else {
            throw WaylandError(description: "eglInitialize failed (\(Self.errorName()))")
        }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) == EGL_TRUE else {
            throw WaylandError(description: "EGL offers no OpenGL ES (\(Self.errorName()))")
        }
        let attributes: [EGLint] = [
            EGL_SURFACE_TYPE, EGL_WINDOW_BIT,
            EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
            EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 0,
            EGL_NONE,
        ]
        guard let config = Self.eightBitConfig(display: display, attributes: attributes) else {
            throw WaylandError(description: "EGL has no 8-bit RGB window config for GLES2 (\(Self.errorName()))")
        }
        let contextAttributes: [EGLint] = [EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE]
        guard let context = eglCreateContext(display, config, nil, contextAttributes) else {
            throw WaylandError(description: "cannot create a GLES2 context (\(Self.errorName()))")
        }
        self.display = display
        self.config = config
        self.context = context
        // Current without a surface until the first window exists (EGL_KHR_surfaceless_context,
        // which Mesa has), so textures can be uploaded at start.
        _ = eglMakeCurrent(display, nil, nil, context)
    }

    /// The config to draw into among those matching `attributes` (ColorDepthChoice: 8-bit
    /// colour without alpha, which EGL does not list first where it has deeper ones).
    private static func eightBitConfig(display: EGLDisplay, attributes: [EGLint]) -> EGLConfig? {
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, nil, 0, &count) == EGL_TRUE, count > 0 else { return nil }
        var configs = [EGLConfig?](repeating: nil, count: Int(count))
        guard eglChooseConfig(display, attributes, &configs, count, &count) == EGL_TRUE else { return nil }
        let found = configs.prefix(Int(count)).compactMap { $0 }
        func size(_ config: EGLConfig, _ attribute: EGLint) -> Int32 {
            var value: EGLint = 0
            return eglGetConfigAttrib(display, config, attribute, &value) == EGL_TRUE ? value : -1
        }
        let depths = found.map {
            ConfigColorDepth(red: size($0, EGL_RED_SIZE), green: size($0, EGL_GREEN_SIZE),
                             blue: size($0, EGL_BLUE_SIZE), alpha: size($0, EGL_ALPHA_SIZE))
        }
        return ColorDepthChoice.preferred(depths).map { found[$0] }
    }

    /// An EGLSurface for a wl_egl_window.
    func makeSurface(window: OpaquePointer) throws(WaylandError) -> EGLSurface {
        guard let surface = eglCreatePlatformWindowSurface(display, config, UnsafeMutableRawPointer(window), nil) else {
            throw WaylandError(description: "cannot create an EGL window surface (\(Self.errorName()))")
        }
        return surface
    }

    /// Makes `surface` current and swaps without waiting for the compositor: frames are paced by
    /// our own frame callbacks, and a blocking eglSwapBuffers would stall the other outputs.
    func makeCurrent(_ surface: EGLSurface) -> Bool {
        guard eglMakeCurrent(display, surface, surface, context) == EGL_TRUE else { return false }
        _ = eglSwapInterval(display, 0)
        return true
    }

    func swap(_ surface: EGLSurface) -> Bool {
        eglSwapBuffers(display, surface) == EGL_TRUE
    }

    func destroy(_ surface: EGLSurface) {
        _ = eglMakeCurrent(display, nil, nil, context)
        _ = eglDestroySurface(display, surface)
    }

    static func errorName() -> String {
        let code = eglGetError()
        switch code {
        case EGL_SUCCESS: return "no error"
        case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC"
        case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG"
        case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY"
        case EGL_BAD_MATCH: return "EGL_BAD_MATCH"
        case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW"
        case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED"
        default: return "EGL error 0x" + String(code, radix: 16)
        }
    }
}
