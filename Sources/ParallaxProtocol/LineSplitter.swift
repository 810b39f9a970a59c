// Cuts a byte stream into lines. The server feeds it whatever one read(2) returned, so a line may
// arrive in pieces or several at once; an over-long line is reported once, as soon as it is known
// to be too long, and then skipped up to its "\n" so a hostile client cannot grow the buffer.

/// Splits a stream into "\n"-terminated lines of at most `maxLineLength` bytes.
public struct LineSplitter: Sendable {
    public enum Event: Sendable, Equatable {
        /// A complete line without its "\n" or "\r\n". Empty lines are skipped.
        case line([UInt8])
        /// A line exceeded `maxLineLength`; its bytes up to the next "\n" are dropped.
        case tooLong
    }

    /// Longest line accepted (bytes, not counting "\n" or "\r\n").
    public let maxLineLength: Int
    /// Bytes of the line received so far.
    private var pending: [UInt8] = []
    /// True while skipping the rest of an over-long line.
    private var discarding = false

    /// - Parameter maxLineLength: longest line accepted (default `ProtocolConstants.maxLineLength`,
    ///   bytes without the line end).
    public init(maxLineLength: Int = ProtocolConstants.maxLineLength) {
        self.maxLineLength = max(maxLineLength, 0)
    }

    /// Bytes of an unfinished line held back for the next feed.
    public var pendingCount: Int { pending.count }

    /// Feeds received bytes and calls `handle` for every event they complete, in order.
    public mutating func feed<E: Error>(_ bytes: UnsafeRawBufferPointer, _ handle: (Event) throws(E) -> Void) throws(E) {
        let newline = UInt8(ascii: "\n")
        var start = 0
        while start < bytes.count {
            let newlineIndex = bytes[start...].firstIndex(of: newline)
            let end = newlineIndex ?? bytes.count
            let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if !discarding {
                // One byte of slack holds a "\r" that may turn out to end the line.
                if pending.count + piece.count > maxLineLength + 1 {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    try handle(.tooLong)
                } else {
                    pending.append(contentsOf: piece)
                }
            }
            guard let newlineIndex else { break }
            start = newlineIndex + 1
            if discarding {
                discarding = false
                continue
            }
            if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
            if pending.count > maxLineLength {
                pending.removeAll(keepingCapacity: true)
                try handle(.tooLong)
                continue
            }
            if !pending.isEmpty {
                let line = pending
                pending.removeAll(keepingCapacity: true)
                try handle(.line(line))
            }
        }
    }

    /// Feeds bytes from any collection.
    public mutating func feed<Bytes: Collection<UInt8>, E: Error>(_ bytes: Bytes, _ handle: (Event) throws(E) -> Void)
        throws(E)
    {
        let array = Array(bytes)
        let outcome = array.withUnsafeBytes { buffer in
            Result { () throws(E) in try feed(buffer, handle) }
        }
        try outcome.get()
    }

    /// Feeds bytes and returns the events they complete.
    public mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [Event] {
        var events: [Event] = []
        feed(bytes) { events.append($0) }
        return events
    }

    /// Forgets any partial line (e.g. when a connection is reused).
    public mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        discarding = false
    }
}
