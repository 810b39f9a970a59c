// Small GLES2 helpers: compiling a program, uploading a texture, the unit quad.

import CWayland
import ParallaxWallpaper

struct GLProgram {
    let id: GLuint

    init(vertex: String, fragment: String) throws(WaylandError) {
        let vertexShader = try Self.compile(GLenum(GL_VERTEX_SHADER), vertex)
        let fragmentShader = try Self.compile(GLenum(GL_FRAGMENT_SHADER), fragment)
        id = glCreateProgram()
        glAttachShader(id, vertexShader)
        glAttachShader(id, fragmentShader)
        glBindAttribLocation(id, 0, "a_corner")
        glLinkProgram(id)
        glDeleteShader(vertexShader)
        glDeleteShader(fragmentShader)
        var linked: GLint = 0
        glGetProgramiv(id, GLenum(GL_LINK_STATUS), &linked)
        guard linked != 0 else { throw WaylandError(description: "GLES2 program does not link: \(Self.log(program: id))") }
    }

    func uniform(_ name: String) -> GLint { glGetUniformLocation(id, name) }

    private static func compile(_ kind: GLenum, _ source: String) throws(WaylandError) -> GLuint {
        let shader = glCreateShader(kind)
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var compiled: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &compiled)
        guard compiled != 0 else {
            var buffer = [GLchar](repeating: 0, count: 2048)
            glGetShaderInfoLog(shader, GLsizei(buffer.count), nil, &buffer)
            throw WaylandError(description: "GLES2 shader does not compile: \(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return shader
    }

    private static func log(program: GLuint) -> String {
        var buffer = [GLchar](repeating: 0, count: 2048)
        glGetProgramInfoLog(program, GLsizei(buffer.count), nil, &buffer)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

enum GLResources {
    /// A texture from premultiplied RGBA8 pixels, linear filtering, edges clamped.
    static func texture(_ image: LoadedImage) -> GLuint {
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        setSampling()
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        image.pixels.withUnsafeBytes { bytes in
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(image.width), GLsizei(image.height), 0,
                         GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), bytes.baseAddress)
        }
        return texture
    }

    static func setSampling() {
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), GL_LINEAR)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
    }

    /// The unit square (0,0)-(1,1) as a triangle strip, in attribute 0.
    static func unitQuad() -> GLuint {
        var buffer: GLuint = 0
        glGenBuffers(1, &buffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        let corners: [GLfloat] = [0, 0, 1, 0, 0, 1, 1, 1]
        corners.withUnsafeBytes { bytes in
            glBufferData(GLenum(GL_ARRAY_BUFFER), bytes.count, bytes.baseAddress, GLenum(GL_STATIC_DRAW))
        }
        return buffer
    }
}
