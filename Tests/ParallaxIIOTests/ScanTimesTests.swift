import Testing
@testable import ParallaxIIO

/// Sample times from a kernel buffer's timestamps, whatever the device puts there: every time is
/// assigned without trapping, times only go forward, and none lies past the read time (plus the
/// tolerance a monotonic stamp gets).
@Suite struct ScanTimesTests {
    static let readTime: Int64 = 5_000_000_000

    static func scans(_ stamps: [Int64?]) -> [ScanLayout.Raw] {
        stamps.map { ScanLayout.Raw(accel: (0, 0, 0), gyro: nil, timestamp: $0) }
    }

    static func assign(_ times: inout ScanTimes, _ stamps: [Int64?], readTime: Int64 = readTime) -> [Int64] {
        var assigned: [Int64] = []
        times.assign(scans(stamps), readTime: readTime) { t, _ in assigned.append(t) }
        return assigned
    }

    @Test func ordinaryStampsAreUsedAsTheyAre() {
        var times = ScanTimes(source: .kernelMonotonic, period: 10_000_000)
        #expect(Self.assign(&times, [4_980_000_000, 4_990_000_000]) == [4_980_000_000, 4_990_000_000])
        var spaced = ScanTimes(source: .kernelSpacing(clock: "realtime"), period: 10_000_000)
        #expect(Self.assign(&spaced, [1_700_000_000_000_000_000, 1_700_000_000_010_000_000]) == [4_990_000_000, 5_000_000_000])
    }

    static let absurd: [[Int64?]] = [
        [.min, .max], [.max, .min], [.min, .min], [.max, .max], [-1, .max], [.min, 0], [.max, -1],
        [0, .min, .max, nil, .min], [-5_000_000_000, -1],
    ]

    @Test(arguments: absurd)
    func absurdStampsNeverTrapNorRunBackwards(stamps: [Int64?]) {
        for source in [ScanTimes.Source.kernelMonotonic, .kernelSpacing(clock: "realtime"), .readTime] {
            var times = ScanTimes(source: source, period: 10_000_000)
            let first = Self.assign(&times, stamps)
            let second = Self.assign(&times, stamps, readTime: Self.readTime + 20_000_000)
            let all = first + second
            #expect(all.count == stamps.count * 2)
            #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 }, "\(source) \(stamps): \(all)")
            #expect(all.allSatisfy { $0 > 0 && $0 <= Self.readTime + 20_000_000 + ScanTimes.futureTolerance + Int64(all.count) },
                    "\(source) \(stamps): \(all)")
        }
    }

    /// A period no real device has (a rate attribute that read as nearly 0 Hz) spaces scans back
    /// from the read time without overflowing.
    @Test func anAbsurdPeriodNeverTraps() {
        var times = ScanTimes(source: .readTime, period: .max)
        let assigned = Self.assign(&times, [nil, nil, nil])
        #expect(assigned.count == 3)
        #expect(zip(assigned, assigned.dropFirst()).allSatisfy { $0 < $1 })
        #expect(assigned.last == Self.readTime)
    }
}
