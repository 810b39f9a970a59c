// The surface's scale as a value (SurfaceScale.swift): integer buffer scales, fractional scales
// in 120ths drawn at device pixels, rounding half away from zero, and bad values from a
// compositor kept harmless.

import Testing
import ParallaxWallpaper

@Suite struct SurfaceScaleTests {
    @Test func anIntegerScaleMultipliesTheSurfaceSize() {
        let scale = SurfaceScale.integer(2)
        #expect(scale.factor == 2 && scale.bufferScale == 2 && !scale.needsViewport)
        #expect(scale.bufferSize(width: 640, height: 360) == (1280, 720))
    }

    @Test func aFractionalScaleDrawsDevicePixelsThroughAViewport() {
        let scale = SurfaceScale(preferred: 180)!
        #expect(scale.factor == 1.5 && scale.bufferScale == 1 && scale.needsViewport)
        // KWin's 1280×720 output at 1.5 is 853×480 logical pixels: 1279.5 rounds away from zero.
        #expect(scale.bufferSize(width: 853, height: 480) == (1280, 720))
        #expect(SurfaceScale.fractional(150).bufferSize(width: 1001, height: 3) == (1251, 4))   // 1.25: 1251.25, 3.75
    }

    @Test func badValuesFromACompositorStayHarmless() {
        #expect(SurfaceScale(preferred: 0) == nil)
        #expect(SurfaceScale.fractional(UInt32.max).factor == SurfaceScale.maximumFactor)
        #expect(SurfaceScale.integer(0).factor == 1 && SurfaceScale.integer(-3).bufferScale == 1)
        #expect(SurfaceScale.fractional(1).bufferSize(width: 10, height: 10) == (1, 1))
        #expect(SurfaceScale.integer(1).bufferSize(width: 0, height: -5) == (1, 1))
        let huge = SurfaceScale.fractional(UInt32.max).bufferSize(width: Int32.max, height: Int32.max)
        #expect(huge == (Int32.max, Int32.max))
    }
}
