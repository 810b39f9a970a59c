/// Refilled bytes waiting to be decoded: a short read can end inside a scan, whose start waits
/// here for the next refill. Owns its memory (sized once for a refill and one partial scan).
final class ScanStaging {
    private let layout: ScanLayout
    private let storage: UnsafeMutableRawBufferPointer
    private var staged = 0

    init(layout: ScanLayout, scans: Int) {
        self.layout = layout
        storage = .allocate(byteCount: (scans + 1) * max(1, layout.step), alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Appends `count` refilled bytes (as many as fit), decodes every whole scan into `raws`
    /// (replacing what it held) and keeps the remainder.
    func decode(_ data: UnsafeRawPointer, count: Int, into raws: inout [ScanLayout.Raw]) {
        let take = min(count, storage.count - staged)
        storage.baseAddress!.advanced(by: staged).copyMemory(from: data, byteCount: take)
        staged += take
        raws.removeAll(keepingCapacity: true)
        let used = layout.forEachScan(in: UnsafeRawBufferPointer(start: storage.baseAddress, count: staged)) { raws.append($0) }
        if used > 0 && used < staged {
            // The remainder is shorter than one scan and starts at least one scan in: no overlap.
            storage.baseAddress!.copyMemory(from: storage.baseAddress!.advanced(by: used), byteCount: staged - used)
        }
        staged -= used
    }
}
