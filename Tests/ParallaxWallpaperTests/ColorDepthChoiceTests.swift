// The EGL config choice (ColorDepthChoice.swift): 8-bit colour without alpha, even where EGL
// lists deeper configs first, as Mesa's llvmpipe does.

import Testing
import ParallaxWallpaper

@Suite struct ColorDepthChoiceTests {
    static let xrgb2101010 = ConfigColorDepth(red: 10, green: 10, blue: 10, alpha: 0)
    static let argb2101010 = ConfigColorDepth(red: 10, green: 10, blue: 10, alpha: 2)
    static let xrgb8888 = ConfigColorDepth(red: 8, green: 8, blue: 8, alpha: 0)
    static let argb8888 = ConfigColorDepth(red: 8, green: 8, blue: 8, alpha: 8)
    static let rgb565 = ConfigColorDepth(red: 5, green: 6, blue: 5, alpha: 0)

    @Test func deeperConfigsListedFirstAreSkippedForEightBitWithoutAlpha() {
        // llvmpipe's order for "at least 8 bits, no alpha required".
        let configs = [Self.argb2101010, Self.xrgb2101010, Self.argb8888, Self.xrgb8888]
        #expect(ColorDepthChoice.preferred(configs) == 3)
    }

    @Test func eightBitWithTheLeastAlphaWhenNoneIsOpaque() {
        let withAlpha16 = ConfigColorDepth(red: 8, green: 8, blue: 8, alpha: 16)
        #expect(ColorDepthChoice.preferred([Self.xrgb2101010, withAlpha16, Self.argb8888]) == 2)
    }

    @Test func withoutEightBitConfigsEGLsOwnFirstIsKept() {
        #expect(ColorDepthChoice.preferred([Self.xrgb2101010, Self.rgb565]) == 0)
        #expect(ColorDepthChoice.preferred([]) == nil)
    }
}
