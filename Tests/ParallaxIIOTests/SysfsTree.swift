import Glibc

/// A made-up sysfs tree in a temporary directory, removed when the value goes.
final class SysfsTree {
    let root: String

    init?(prefix: String) {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        root = String(cString: made)
    }

    deinit { _ = system("rm -rf '\(root)'") }

    /// Writes `text` and a newline to `path` under the root, making its directories; false if it cannot.
    @discardableResult
    func put(_ path: String, _ text: String) -> Bool {
        let full = "\(root)/\(path)"
        guard system("mkdir -p \"$(dirname '\(full)')\"") == 0, let file = fopen(full, "w") else { return false }
        fputs(text + "\n", file)
        return fclose(file) == 0
    }
}
