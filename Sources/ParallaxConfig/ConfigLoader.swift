import Glibc
import Logging
import ParallaxIIO
import ParallaxMotion
import SystemPackage

/// A problem in a config file, located to the line.
public struct ConfigIssue: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    public var description: String { "\(file):\(line): \(message)" }

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }
}

/// The result of loading: the config plus every error and warning found on the way.
public struct ConfigLoad: Sendable {
    public var config: DaemonConfig
    public var errors: [ConfigIssue]
    public var warnings: [ConfigIssue]
    /// Files read, in order (main file, then drop-ins).
    public var files: [String]
}

/// Reads systemd-style INI config through libinih: the main file, then `<file>.d/*.conf` in
/// lexical order, later values overriding earlier ones (as systemd drop-ins do).
///
/// Unknown sections and keys are warnings, not errors: a config written for a newer parallaxd
/// must still start an older one. Values that do not parse are errors that name file and line.
public enum ConfigLoader {
    public static func load(path: String, required: Bool) -> ConfigLoad {
        var result = ConfigLoad(config: DaemonConfig(), errors: [], warnings: [], files: [])
        switch readFile(path) {
        case .success(let text):
            parse(text, file: path, into: &result)
        case .failure(let errno):
            if required || errno != .noSuchFileOrDirectory {
                result.errors.append(ConfigIssue(file: path, line: 0, message: "cannot read: \(errno)"))
            }
        }
        for dropIn in dropIns(of: path) {
            switch readFile(dropIn) {
            case .success(let text): parse(text, file: dropIn, into: &result)
            case .failure(let errno): result.errors.append(ConfigIssue(file: dropIn, line: 0, message: "cannot read: \(errno)"))
            }
        }
        return result
    }

    /// Parses one file's text (exposed for tests).
    public static func parse(_ text: String, file: String, into result: inout ConfigLoad) {
        var config = result.config
        var errors: [ConfigIssue] = []
        var warnings: [ConfigIssue] = []
        let rc = IniText.parse(text) { section, key, value, line in
            guard let keys = ConfigKeys.table[section] else {
                warnings.append(ConfigIssue(file: file, line: line, message: "unknown section [\(section)], ignored"))
                return true
            }
            guard let apply = keys[key] else {
                warnings.append(ConfigIssue(file: file, line: line, message: "unknown key \(key)= in [\(section)], ignored"))
                return true
            }
            do throws(ConfigValueError) {
                try apply(&config, value)
                return true
            } catch {
                errors.append(ConfigIssue(file: file, line: line, message: "[\(section)] \(key)=\(value): \(error.message)"))
                return false
            }
        }
        // inih reports syntax errors (a line that is neither section, key=value nor comment) as
        // the first failing line; our handler has already recorded value errors with messages.
        if rc > 0 && !errors.contains(where: { $0.line == rc }) {
            errors.append(ConfigIssue(file: file, line: rc, message: "syntax error: expected [Section], Key=value or a # comment"))
        }
        result.config = config
        result.errors += errors.sorted { $0.line < $1.line }
        result.warnings += warnings
        result.files.append(file)
    }

    static func dropIns(of path: String) -> [String] {
        let dir = path + ".d"
        guard let handle = opendir(dir) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".conf") && !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted().map { dir + "/" + $0 }
    }

    /// A small text file (a config, a drop-in, the calibration file); at most 1 MiB.
    public static func readFile(_ path: String) -> Result<String, Errno> {
        do {
            let fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
            defer { try? fd.close() }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 16384)
            while true {
                let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
                if n == 0 { break }
                bytes += chunk[0..<n]
                // A config is small; a "file" that never ends (a device node) must not hang us.
                if bytes.count > 1 << 20 { return .failure(.fileTooLarge) }
            }
            return .success(String(decoding: bytes, as: UTF8.self))
        } catch let error as Errno {
            return .failure(error)
        } catch {
            return .failure(.ioError)
        }
    }
}
