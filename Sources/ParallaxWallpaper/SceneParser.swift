// Reads a scene file (INI, parsed by libinih) into a Scene. Every problem names file and line
// (`--check` prints them and exits 78, as parallaxd does); unknown sections and keys are warnings,
// so a scene written for a newer parallax-wallpaper still shows on an older one.

import CInih
import Glibc

public struct SceneIssue: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}

public struct SceneLoad: Sendable {
    public var scene: Scene
    public var errors: [SceneIssue]
    public var warnings: [SceneIssue]
}

public enum SceneParser {
    /// Largest scene file read (bytes).
    static let maximumFileSize = 1 << 20

    /// Reads and parses `path`; images are named relative to the file's directory.
    public static func load(path: String) -> SceneLoad {
        switch readFile(path) {
        case .success(let text):
            return parse(text, file: path)
        case .failure(let failure):
            return SceneLoad(scene: Scene(), errors: [SceneIssue(file: path, line: 0, message: failure.message)], warnings: [])
        }
    }

    /// Parses a scene's text; `file` names it in issues and anchors relative image paths.
    public static func parse(_ text: String, file: String) -> SceneLoad {
        let builder = SceneBuilder(text: text, file: file, directory: directory(of: file))
        let unmanaged = Unmanaged.passRetained(builder)
        defer { unmanaged.release() }
        let rc = ini_parse_stream({ buffer, capacity, stream in
            Unmanaged<SceneBuilder>.fromOpaque(stream!).takeUnretainedValue().nextLine(into: buffer!, capacity: Int(capacity))
        }, unmanaged.toOpaque(), { user, section, name, value in
            let builder = Unmanaged<SceneBuilder>.fromOpaque(user!).takeUnretainedValue()
            builder.handle(section: String(cString: section!), key: String(cString: name!), value: String(cString: value!))
            return 1
        }, unmanaged.toOpaque())
        builder.finish()
        if rc > 0 && !builder.errors.contains(where: { $0.line == Int(rc) }) {
            builder.errors.append(SceneIssue(file: file, line: Int(rc), message: "syntax error: expected [Section], Key=value or a # comment"))
        }
        return SceneLoad(scene: builder.scene, errors: builder.errors.sorted { $0.line < $1.line }, warnings: builder.warnings)
    }

    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    struct ReadError: Error {
        var message: String
    }

    static func readFile(_ path: String) -> Result<String, ReadError> {
        guard let stream = fopen(path, "rb") else { return .failure(ReadError(message: "cannot read: \(String(cString: strerror(errno)))")) }
        defer { fclose(stream) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = fread(&chunk, 1, chunk.count, stream)
            if count == 0 { break }
            bytes += chunk[..<count]
            if bytes.count > maximumFileSize { return .failure(ReadError(message: "larger than \(maximumFileSize) bytes: not a scene file")) }
        }
        if ferror(stream) != 0 { return .failure(ReadError(message: "cannot read: \(String(cString: strerror(errno)))")) }
        return .success(String(decoding: bytes, as: UTF8.self))
    }
}
