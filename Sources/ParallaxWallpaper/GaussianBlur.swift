// Blur=R (layers, at load): a Gaussian with standard deviation σ = R/2 (so ±R holds 95 % of its
// weight), approximated by three box blurs per axis (Kutskir's "boxes for Gauss"), which costs
// the same per pixel whatever the radius. Works on premultiplied RGBA8, so transparent edges
// do not darken. Pixels beyond the image edge repeat the edge (the image does not fade out).

public enum GaussianBlur {
    /// Standard deviation (pixels) for a blur radius, shared with the panel's GPU blur.
    public static func sigma(radius: Double) -> Double { radius / 2 }

    /// Widths of three boxes whose repeated application approximates a Gaussian of `sigma`.
    static func boxWidths(sigma: Double) -> [Int] {
        let ideal = (12 * sigma * sigma / 3 + 1).squareRoot()
        var lower = Int(ideal)
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let lowerCount = Int(((12 * sigma * sigma - 3 * Double(lower * lower) - 12 * Double(lower) - 9)
            / (-4 * Double(lower) - 4)).rounded())
        return (0..<3).map { $0 < lowerCount ? lower : upper }
    }

    public static func apply(to image: inout LoadedImage, radius: Double) {
        guard radius.isFinite, radius >= 0.5, image.width > 0, image.height > 0 else { return }
        let widths = boxWidths(sigma: sigma(radius: radius))
        var scratch = image.pixels
        for width in widths where width > 1 {
            let half = width / 2
            boxPass(from: image.pixels, to: &scratch, lines: image.height, length: image.width, step: 4, stride: image.width * 4, half: half)
            boxPass(from: scratch, to: &image.pixels, lines: image.width, length: image.height, step: image.width * 4, stride: 4, half: half)
        }
    }

    /// A running-sum box blur along `lines` lines of `length` pixels; pixel i of line l is at
    /// l·stride + i·step (bytes).
    private static func boxPass(from source: [UInt8], to target: inout [UInt8], lines: Int, length: Int, step: Int, stride: Int, half: Int) {
        let window = UInt32(2 * half + 1)
        source.withUnsafeBufferPointer { src in
            target.withUnsafeMutableBufferPointer { dst in
                for line in 0..<lines {
                    let base = line * stride
                    for channel in 0..<4 {
                        func at(_ i: Int) -> UInt32 { UInt32(src[base + min(max(i, 0), length - 1) * step + channel]) }
                        var sum: UInt32 = 0
                        for i in -half...half { sum += at(i) }
                        for i in 0..<length {
                            dst[base + i * step + channel] = UInt8((sum + window / 2) / window)
                            sum += at(i + half + 1)
                            sum -= at(i - half)
                        }
                    }
                }
            }
        }
    }
}
