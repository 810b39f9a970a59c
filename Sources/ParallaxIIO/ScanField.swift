/// Where one channel's value sits in a buffered scan and how it is stored: libiio's
/// `iio_data_format` (sysfs `scan_elements/in_*_type`, e.g. `be:s12/16>>4`) plus the byte offset
/// of the channel inside the scan.
///
/// Why our own decoder rather than `iio_channel_convert`: one pass over a refill's bytes with no
/// per-sample calls or allocation, and a pure function that unit tests can feed any layout.
struct ScanField: Sendable, Equatable {
    /// Bytes from the start of the scan to this channel's storage.
    var offset: Int
    /// Storage size in bytes (the "/16" of `s12/16`, divided by 8): 1, 2, 4 or 8.
    var bytes: Int
    /// Significant bits (the "12" of `s12/16`), 1…64.
    var bits: Int
    /// Right shift applied before masking (the ">>4"), bits.
    var shift: Int
    var isSigned: Bool
    var isBigEndian: Bool

    init(offset: Int, bytes: Int, bits: Int, shift: Int, isSigned: Bool, isBigEndian: Bool) {
        self.offset = offset
        self.bytes = bytes
        self.bits = bits
        self.shift = shift
        self.isSigned = isSigned
        self.isBigEndian = isBigEndian
    }

    /// Parses the sysfs type text (`le:s16/16>>0`, `be:u12/16>>4`); nil when it is malformed.
    init?(type text: String, offset: Int) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
        var rest = Substring(parts[1])
        guard let sign = rest.first, sign == "s" || sign == "u" || sign == "S" || sign == "U" else { return nil }
        rest = rest.dropFirst()
        let shiftSplit = rest.split(separator: ">", omittingEmptySubsequences: true)
        let sizes = shiftSplit[0].split(separator: "/")
        guard sizes.count == 2, let bits = Int(sizes[0]), let storage = Int(sizes[1]) else { return nil }
        let shift = shiftSplit.count > 1 ? Int(shiftSplit[1].prefix { $0.isNumber }) : 0
        // Repeated channels (`X2`) are not motion channels: they are refused, not misread.
        guard let shift, !text.contains("X") else { return nil }
        self.init(offset: offset, bytes: storage / 8, bits: bits, shift: shift,
                  isSigned: sign == "s" || sign == "S", isBigEndian: parts[0] == "be")
        guard isValid else { return nil }
    }

    /// A layout this decoder can read: whole bytes of storage, the value fits inside it.
    var isValid: Bool {
        // Compared one by one: a sum of two sizes read from sysfs could overflow.
        [1, 2, 4, 8].contains(bytes) && (1...bytes * 8).contains(bits) && (0...bytes * 8 - bits).contains(shift)
    }

    /// The channel's integer value in the scan starting at `scan`.
    @inline(__always)
    func value(in scan: UnsafeRawPointer) -> Int64 {
        var word: UInt64 = 0
        let base = scan + offset
        if isBigEndian {
            for i in 0..<bytes { word = word << 8 | UInt64(base.load(fromByteOffset: i, as: UInt8.self)) }
        } else {
            for i in stride(from: bytes - 1, through: 0, by: -1) {
                word = word << 8 | UInt64(base.load(fromByteOffset: i, as: UInt8.self))
            }
        }
        word >>= UInt64(shift)
        guard bits < 64 else { return Int64(bitPattern: word) }
        let mask: UInt64 = (1 << UInt64(bits)) - 1
        word &= mask
        // Sign extension: the top significant bit set means negative in two's complement.
        if isSigned && word >> UInt64(bits - 1) != 0 { word |= ~mask }
        return Int64(bitPattern: word)
    }
}

/// The fields of one scan of one device's buffer: three accelerometer axes and/or three
/// gyroscope axes (a HID hub has them on separate devices), optionally the kernel timestamp,
/// and the distance between scans.
struct ScanLayout: Sendable, Equatable {
    var accel: [ScanField]?
    var gyro: [ScanField]?
    var timestamp: ScanField?
    /// Bytes from one scan to the next (libiio's iio_buffer_step).
    var step: Int

    /// One decoded scan: raw integers, before scale, offset and mount matrix.
    struct Raw: Equatable {
        var accel: (Int64, Int64, Int64)?
        var gyro: (Int64, Int64, Int64)?
        var timestamp: Int64?

        static func == (a: Raw, b: Raw) -> Bool {
            a.accel.map { [$0.0, $0.1, $0.2] } == b.accel.map { [$0.0, $0.1, $0.2] } && a.timestamp == b.timestamp && a.gyro.map { [$0.0, $0.1, $0.2] } == b.gyro.map { [$0.0, $0.1, $0.2] }
        }
    }

    /// Calls `body` for every whole scan in `bytes`, in order; returns how many bytes it consumed
    /// (a trailing partial scan is left for the next refill).
    @discardableResult
    func forEachScan(in bytes: UnsafeRawBufferPointer, _ body: (Raw) -> Void) -> Int {
        guard step > 0, let start = bytes.baseAddress else { return 0 }
        let count = bytes.count / step
        for i in 0..<count {
            let scan = start + i * step
            let a = accel.map { ($0[0].value(in: scan), $0[1].value(in: scan), $0[2].value(in: scan)) }
            let g = gyro.map { ($0[0].value(in: scan), $0[1].value(in: scan), $0[2].value(in: scan)) }
            body(Raw(accel: a, gyro: g, timestamp: timestamp?.value(in: scan)))
        }
        return count * step
    }
}
