// The offset line is the one message sent many times a second to every subscriber, so it has its
// own encoder: constant fragments copied from static strings, integers and fixed-point numbers
// written digit by digit, nothing allocated once the buffer has capacity.

extension ServerMessage {
    /// Capacity that fits any offset line (20-digit seq and t, signed 4-decimal x and y, vx and vy
    /// of at most 4 integer digits: < 140 bytes; yaw and vyaw add < 40).
    public static let offsetLineCapacity = 192

    /// Appends `{"type":"offset","seq":…,"t":…,"x":…,"y":…,"vx":…,"vy":…}` and "\n" to `bytes`;
    /// with a heading, `"yaw":…,"vyaw":…` before the closing brace.
    /// - Parameters:
    ///   - seq: the frame's number among those published (the hub counts them: `Hub.seq`).
    ///   - t: CLOCK_MONOTONIC of the newest sample behind the frame (ns).
    ///   - x: horizontal viewer offset in [-1, 1]; written with 4 decimals, non-finite as 0.
    ///   - y: vertical viewer offset in [-1, 1]; written with 4 decimals, non-finite as 0.
    ///   - vx: rate of change of x at `t` (offset units per second); written with 4 decimals,
    ///     clamped to ±`ProtocolConstants.maxOffsetVelocity`, non-finite as 0.
    ///   - vy: the same for y.
    ///   - heading: yaw (rad, wrapped to (−π, π] here, then 4 decimals) and vyaw (rad/s, 4
    ///     decimals, clamped like vx); non-finite as 0. nil writes neither field (protocol v1's line).
    ///   - bytes: buffer appended to (not cleared), so a caller can reuse one per client.
    public static func encodeOffset(
        seq: UInt64, t: Int64, x: Double, y: Double, vx: Double, vy: Double, heading: OffsetHeading? = nil,
        into bytes: inout [UInt8]
    ) {
        JSONLineWriter.appendASCII(#"{"type":"offset","seq":"#, to: &bytes)
        FixedDecimal.appendDecimal(seq, to: &bytes)
        JSONLineWriter.appendASCII(#","t":"#, to: &bytes)
        if t < 0 { bytes.append(UInt8(ascii: "-")) }
        FixedDecimal.appendDecimal(t.magnitude, to: &bytes)
        JSONLineWriter.appendASCII(#","x":"#, to: &bytes)
        FixedDecimal.append(x, decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        JSONLineWriter.appendASCII(#","y":"#, to: &bytes)
        FixedDecimal.append(y, decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        JSONLineWriter.appendASCII(#","vx":"#, to: &bytes)
        FixedDecimal.append(clampedVelocity(vx), decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        JSONLineWriter.appendASCII(#","vy":"#, to: &bytes)
        FixedDecimal.append(clampedVelocity(vy), decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        if let heading {
            JSONLineWriter.appendASCII(#","yaw":"#, to: &bytes)
            FixedDecimal.append(OffsetHeading.wrapped(heading.yaw), decimals: ProtocolConstants.headingDecimals, to: &bytes)
            JSONLineWriter.appendASCII(#","vyaw":"#, to: &bytes)
            FixedDecimal.append(clampedVelocity(heading.vyaw), decimals: ProtocolConstants.headingDecimals, to: &bytes)
        }
        JSONLineWriter.appendASCII("}\n", to: &bytes)
    }

    /// Velocities beyond the bound are sensor faults, not motion; the bound keeps lines short.
    @inline(__always)
    static func clampedVelocity(_ v: Double) -> Double {
        let bound = ProtocolConstants.maxOffsetVelocity
        return v.isFinite ? min(max(v, -bound), bound) : 0
    }
}
