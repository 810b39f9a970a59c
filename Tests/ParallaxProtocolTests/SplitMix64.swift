// A tiny seeded generator so randomized tests are reproducible run to run.

struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func nextInt(below bound: Int) -> Int { Int.random(in: 0..<max(bound, 1), using: &self) }

    mutating func nextBool() -> Bool { Bool.random(using: &self) }

    mutating func nextDouble(in range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }

    mutating func nextByte() -> UInt8 { UInt8.random(in: 0...255, using: &self) }

    /// A scalar from the ranges that matter to escaping: controls, ASCII, 2-, 3- and 4-byte UTF-8.
    mutating func nextScalar() -> Unicode.Scalar {
        let ranges: [ClosedRange<UInt32>] = [0...0x1F, 0x20...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        let range = ranges[nextInt(below: ranges.count)]
        let code = UInt32.random(in: range, using: &self)
        return Unicode.Scalar(code) ?? "?"
    }
}
