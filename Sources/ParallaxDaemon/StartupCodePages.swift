import Glibc
import ParallaxConfig
import SystemPackage

/// The code pages mapped to start (the config, the command line, the first look at the sensors,
/// the Swift runtime's first lookups), let go of once the daemon serves.
///
/// Why: a process's resident set counts every page of its executable and libraries it has touched,
/// and the kernel maps them 64 KiB around each fault. Measured on the static release build with
/// 100 subscribers (BENCHMARKS.md "Memory"): 12.9 MB resident, of which 9.2 MB were code pages of
/// files, about 3.8 MB of them touched only while starting. `MADV_DONTNEED` on a read-only,
/// executable mapping of a file drops the process's page-table entries and nothing else: the
/// pages stay in the page cache and a later fault (a reload, a calibration) maps them again.
/// Only mappings with no anonymous (copy-on-write) pages are let go: a mapping whose code was
/// ever written (text relocations, a debugger's breakpoints) would lose the change.
enum StartupCodePages {
    /// The short-lived thread that lets go of them (Daemon.announceReady), named so that a look
    /// at the daemon's threads tells it from a capture thread.
    static let threadName = "plx-pages"

    /// An executable file mapping that can be let go of, [start, end) in the address space.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
        var path: String
        var residentKiB: Int
    }

    /// The mappings of `smaps` (the text of /proc/self/smaps) that are `r-xp`, backed by a file
    /// (an absolute path: not the vdso), and say they hold no anonymous page (`Anonymous: 0 kB`;
    /// a mapping that does not say is kept).
    static func releasable(smaps: String) -> [Mapping] {
        var found: [Mapping] = []
        var current: Mapping?
        var anonymous: Int?
        func close() {
            if let mapping = current, anonymous == 0 { found.append(mapping) }
            current = nil
            anonymous = nil
        }
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-") && !first.hasSuffix(":") {
                // A mapping's header: "start-end perms offset dev inode [path]".
                close()
                let bounds = first.split(separator: "-")
                guard fields.count >= 6, fields[1] == "r-xp", fields[5].hasPrefix("/"), bounds.count == 2,
                      let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else { continue }
                current = Mapping(start: start, end: end, path: fields[5...].joined(separator: " "), residentKiB: 0)
            } else if current != nil, fields.count >= 2 {
                if first == "Rss:" { current?.residentKiB = Int(fields[1]) ?? 0 }
                if first == "Anonymous:" { anonymous = Int(fields[1]) ?? 1 }
            }
        }
        close()
        return found
    }

    /// Lets go of this process's releasable code pages; the KiB that were resident in them, or
    /// the error reading /proc/self/smaps.
    static func release() -> Result<Int, Errno> {
        switch ConfigLoader.readFile("/proc/self/smaps") {
        case .failure(let error):
            return .failure(error)
        case .success(let text):
            var released = 0
            for mapping in releasable(smaps: text) {
                guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start),
                      madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 else { continue }
                released += mapping.residentKiB
            }
            return .success(released)
        }
    }
}
