import Testing
@testable import ParallaxIIO

/// The buffered driver's scan decoder against an independent encoder written from the kernel's
/// description of `scan_elements/*_type` (Documentation/ABI/testing/sysfs-bus-iio): the value's
/// `bits` low bits, shifted left by `shift`, stored in `storage` bits of the given endianness.
struct ScanDecodingTests {
    /// Bytes the kernel would store for `value` in a channel of this format.
    static func encode(_ value: Int64, _ field: ScanField) -> [UInt8] {
        let mask: UInt64 = field.bits == 64 ? ~0 : (1 << UInt64(field.bits)) - 1
        let word = (UInt64(bitPattern: value) & mask) << UInt64(field.shift)
        let little = (0..<field.bytes).map { UInt8(truncatingIfNeeded: word >> UInt64(8 * $0)) }
        return field.isBigEndian ? little.reversed() : little
    }

    /// Extremes and a spread of values inside the format's range.
    static func values(for field: ScanField) -> [Int64] {
        let bits = Int64(min(field.bits, 63))
        let (lo, hi): (Int64, Int64) = field.isSigned ? (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) : (0, (1 << bits) - 1)
        return [lo, lo + 1, -1, 0, 1, hi / 3, hi - 1, hi].filter { $0 >= lo && $0 <= hi }
    }

    static let formats = [
        "le:s16/16>>0", "be:s16/16>>0", "be:s12/16>>4", "le:s12/16>>4", "le:u16/16>>0", "be:u14/16>>2",
        "le:s24/32>>8", "be:u24/32>>0", "le:s8/8>>0", "le:s64/64>>0", "be:s32/32>>0", "le:u1/8>>7",
    ]

    @Test(arguments: formats)
    func decodesWhatTheKernelStores(type: String) throws {
        let field = try #require(ScanField(type: type, offset: 0))
        for value in Self.values(for: field) {
            let bytes = Self.encode(value, field)
            #expect(bytes.count == field.bytes)
            let decoded = bytes.withUnsafeBytes { field.value(in: $0.baseAddress!) }
            #expect(decoded == value, "\(type): \(value) stored as \(bytes) read back as \(decoded)")
        }
    }

    @Test func bitsOutsideTheValueAreIgnored() throws {
        // Neighbouring flag bits below the shift and above the value must not leak into it.
        let field = try #require(ScanField(type: "le:s12/16>>4", offset: 0))
        let clean = Self.encode(-7, field)
        let dirty = [clean[0] | 0x0F, clean[1]]
        #expect(dirty.withUnsafeBytes { field.value(in: $0.baseAddress!) } == -7)
    }

    @Test func hidHubChannelsKeepSixteenBitsOfThirtyTwo() throws {
        // hid-sensor-accel-3d / gyro-3d: `le:s16/32>>0`, 16 real bits in 32 storage bits whose
        // upper half holds other bytes of the report. Masked to 16 bits and sign-extended from
        // bit 15, whatever the upper half holds.
        let field = try #require(ScanField(type: "le:s16/32>>0", offset: 0))
        #expect(field.bytes == 4 && field.bits == 16)
        for (value, junk) in [(Int64(-981), UInt32(0xA5A5)), (981, 0xFFFF), (-32768, 0x0001), (32767, 0x8000), (-1, 0x7FFF), (0, 0xFFFF)] {
            let word = UInt32(truncatingIfNeeded: value) & 0xFFFF | junk << 16
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) }
            #expect(bytes.withUnsafeBytes { field.value(in: $0.baseAddress!) } == value, "\(value) with junk \(junk)")
        }
    }

    @Test(arguments: ["", "le", "xe:s16/16>>0", "le:q16/16>>0", "le:s16", "le:s16/12>>0", "le:s12/16>>8",
                      "le:s16/24>>0", "le:s16/16X2>>0",
                      // Sizes no kernel writes, at the edges of Int: refused, not overflowed.
                      "le:s9223372036854775807/64>>1", "le:s1/64>>9223372036854775807",
                      "le:s9223372036854775807/64>>9223372036854775807", "le:s-9223372036854775808/64>>0",
                      "le:s16/-9223372036854775808>>0", "le:s16/99999999999999999999>>0"])
    func rejectsMalformedTypes(type: String) {
        #expect(ScanField(type: type, offset: 0) == nil)
    }

    @Test func walksWholeScansAndLeavesAPartialOne() throws {
        // bmi160-like: six s16 channels, then a timestamp aligned to 8 bytes: 24-byte scans.
        var accel: [ScanField] = []
        var gyro: [ScanField] = []
        for i in 0..<3 { accel.append(try #require(ScanField(type: "be:s16/16>>0", offset: 2 * i))) }
        for i in 3..<6 { gyro.append(try #require(ScanField(type: "le:s16/16>>0", offset: 2 * i))) }
        let stamp = try #require(ScanField(type: "le:s64/64>>0", offset: 16))
        let layout = ScanLayout(accel: accel, gyro: gyro, timestamp: stamp, step: 24)

        var expected: [ScanLayout.Raw] = []
        var bytes: [UInt8] = []
        for n in 0..<5 {
            let k = Int64(n)
            let raw = ScanLayout.Raw(accel: (k * 1000 - 2000, -k, 32767 - k), gyro: (-32768 + k, k * 7, -k * 300),
                                     timestamp: 5_000_000_000 + k * 5_000_000)
            expected.append(raw)
            var scan = Self.encode(raw.accel!.0, accel[0]) + Self.encode(raw.accel!.1, accel[1]) + Self.encode(raw.accel!.2, accel[2])
            scan += Self.encode(raw.gyro!.0, gyro[0]) + Self.encode(raw.gyro!.1, gyro[1]) + Self.encode(raw.gyro!.2, gyro[2])
            scan += [0, 0, 0, 0] + Self.encode(raw.timestamp!, stamp)
            bytes += scan
        }
        bytes += [1, 2, 3]  // the start of a sixth scan, not yet complete
        var seen: [ScanLayout.Raw] = []
        let used = bytes.withUnsafeBytes { layout.forEachScan(in: $0) { seen.append($0) } }
        #expect(used == 5 * 24)
        #expect(seen == expected)
    }

    @Test func emptyOrShortInputDecodesNothing() throws {
        let field = try #require(ScanField(type: "le:s16/16>>0", offset: 0))
        let layout = ScanLayout(accel: [field, field, field], gyro: nil, timestamp: nil, step: 8)
        var count = 0
        let used = [UInt8](repeating: 0, count: 7).withUnsafeBytes { layout.forEachScan(in: $0) { _ in count += 1 } }
        #expect(used == 0 && count == 0)
    }
}
