// The protocol's wire cases, written once for every implementation (Tests/protocol/wire-cases.json,
// read here with the protocol module's own JSON reader): each case's name, its line's bytes and
// what it should give. Both Swift sides read them here: the kit's server lines
// (WireCaseServerLineTests) and the daemon's parser of client lines, ParallaxProtocol's
// ClientRequest (WireCaseClientLineTests).

import Glibc
import ParallaxProtocol

struct WireCase: CustomStringConvertible {
    let name: String
    let line: [UInt8]
    let expect: JSONValue
    var description: String { name }

    /// The cases of one side ("server" or "client") that apply to `kit` (the others are excepted
    /// in the file, with the reason).
    static func load(_ side: String, kit: String, file: String = #filePath) -> [WireCase] {
        // …/Tests/<target>/<this file> → …/Tests/protocol/wire-cases.json
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        let path = parts.dropLast(2).joined(separator: "/") + "/protocol/wire-cases.json"
        guard let bytes = readFile(path), let root = try? JSONReader.parse(bytes, maxDepth: 64),
            let cases = root[side]?.arrayValue
        else { return [] }
        return cases.compactMap { entry in
            guard let name = entry["name"]?.stringValue, let expect = entry["expect"] else { return nil }
            if case .object(let excepted)? = entry["except"], excepted[kit] != nil { return nil }
            if let hex = entry["hex"]?.stringValue {
                return WireCase(name: name, line: bytesOfHex(hex), expect: expect)
            }
            return WireCase(name: name, line: Array((entry["line"]?.stringValue ?? "").utf8), expect: expect)
        }
    }

    private static func bytesOfHex(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? bytes : nil }
            bytes += chunk[0..<count]
        }
    }
}
