// Which EGL window config the wallpaper draws into: 8 bits per colour channel, no alpha.
//
// Why not simply the first config eglChooseConfig returns: sizes in its attribute list are
// minimums, and EGL sorts configs with more colour bits first (EGL 1.5, 3.4.1.2). Where Mesa
// offers 10-bit configs (llvmpipe does) the first answer to "at least 8 bits" is XRGB2101010.
// Its wl_shm buffers cost a compositor that composites in software a floating-point path per
// frame. Headless sway 1.7 spent 1.1–1.3 ms of pixman work per composition on them, against 0.3 ms
// for 8-bit buffers. It re-arms its refresh timer only after that work, so it composited 57.7
// times a second, not 62 (BENCHMARKS.md "On Debian 12's sway 1.7"). A wallpaper gains nothing
// from 10 bits: its images are decoded to 8 bits per channel.

/// One EGL config's colour channel sizes (bits), as eglGetConfigAttrib reports them.
public struct ConfigColorDepth: Equatable, Sendable {
    public var red: Int32
    public var green: Int32
    public var blue: Int32
    public var alpha: Int32

    public init(red: Int32, green: Int32, blue: Int32, alpha: Int32) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// 8 bits in each of red, green and blue.
    var isEightBitColor: Bool { red == 8 && green == 8 && blue == 8 }
}

public enum ColorDepthChoice {
    /// The index of the config to draw into, among configs in EGL's order. The first with 8-bit
    /// colour and no alpha, else the first with 8-bit colour and the least alpha, else EGL's own
    /// first (a driver without 8-bit configs still draws); nil only for none.
    public static func preferred(_ configs: [ConfigColorDepth]) -> Int? {
        if let opaque = configs.firstIndex(where: { $0.isEightBitColor && $0.alpha == 0 }) { return opaque }
        let eightBit = configs.indices.filter { configs[$0].isEightBitColor }
        if let leastAlpha = eightBit.min(by: { configs[$0].alpha < configs[$1].alpha }) { return leastAlpha }
        return configs.isEmpty ? nil : 0
    }
}
