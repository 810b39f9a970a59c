// The offset line is the one message sent many times a second to every subscriber, so it has its
// own encoder: constant fragments copied from static strings, integers and fixed-point numbers
// written digit by digit, nothing allocated once the buffer has capacity.

extension ServerMessage {
    /// Capacity that fits any offset line (20-digit seq and t, signed 4-decimal x and y: < 100 bytes).
    public static let offsetLineCapacity = 128

    /// Appends `{"type":"offset","seq":…,"t":…,"x":…,"y":…}` and "\n" to `bytes`.
    /// - Parameters:
    ///   - seq: the engine's frame counter.
    ///   - t: CLOCK_MONOTONIC of the newest sample behind the frame (ns).
    ///   - x: horizontal viewer offset in [-1, 1]; written with 4 decimals, non-finite as 0.
    ///   - y: vertical viewer offset in [-1, 1]; written with 4 decimals, non-finite as 0.
    ///   - bytes: buffer appended to (not cleared), so a caller can reuse one per client.
    public static func encodeOffset(seq: UInt64, t: Int64, x: Double, y: Double, into bytes: inout [UInt8]) {
        JSONLineWriter.appendASCII(#"{"type":"offset","seq":"#, to: &bytes)
        JSONLineWriter.appendDecimal(seq, to: &bytes)
        JSONLineWriter.appendASCII(#","t":"#, to: &bytes)
        if t < 0 { bytes.append(UInt8(ascii: "-")) }
        JSONLineWriter.appendDecimal(t.magnitude, to: &bytes)
        JSONLineWriter.appendASCII(#","x":"#, to: &bytes)
        JSONLineWriter.appendFixed(x, decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        JSONLineWriter.appendASCII(#","y":"#, to: &bytes)
        JSONLineWriter.appendFixed(y, decimals: ProtocolConstants.offsetDecimals, to: &bytes)
        JSONLineWriter.appendASCII("}\n", to: &bytes)
    }
}
