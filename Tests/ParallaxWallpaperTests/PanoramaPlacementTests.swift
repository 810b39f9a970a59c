import ParallaxClient
import Testing
@testable import ParallaxWallpaper

@Suite struct PanoramaPlacementTests {
    let output = OutputGeometry(width: 640, height: 360, scale: 1)

    private func place(_ panorama: Panorama, depth: Double = 0, x: Double = 0, y: Double = 0, yaw: Double?) -> [PixelRect] {
        PanoramaPlacement.place(imageWidth: 3600, imageHeight: 600, panorama: panorama, fit: .cover, depth: depth,
                                output: output, offset: ParallaxOffset(x: x, y: y), yaw: yaw)
    }

    private func degrees(_ value: Double) -> Double { value * .pi / 180 }

    @Test func theImageIsDegreesOverFieldOfViewOutputWidthsWide() {
        let rect = PanoramaPlacement.restingRect(imageWidth: 3600, imageHeight: 600, panorama: Panorama(degrees: 180, fieldOfView: 60),
                                                 fit: .none, depth: 0, output: output)
        #expect(rect.width == 640 * 3)
        #expect(rect.height == 640 * 3 / 6)
        #expect(rect.minX == -rect.width / 2)
    }

    @Test func turningRightByThetaMovesThePictureLeftByThetaOverFieldOfViewOfTheWidth() {
        let panorama = Panorama(degrees: 180, fieldOfView: 60)
        let rest = place(panorama, yaw: 0)[0]
        for turn in [15.0, -20, 45] {
            let moved = place(panorama, yaw: degrees(turn))[0]
            #expect(abs((moved.minX - rest.minX) - (-turn / 60 * 640)) < 1e-9, "turn \(turn)°")
            #expect(moved.minY == rest.minY)
        }
        #expect(PanoramaPlacement.yawShift(yaw: .nan, panorama: panorama, output: output) == 0)
    }

    @Test func tiltStillMovesItLikeAFlatLayerOfItsDepth() {
        let panorama = Panorama(degrees: 120, fieldOfView: 60)
        let rest = place(panorama, depth: -20, yaw: 0)[0]
        let tilted = place(panorama, depth: -20, x: 0.5, y: 1, yaw: degrees(6))[0]
        #expect(abs((tilted.minX - rest.minX) - (-10 - 6.0 / 60 * 640)) < 1e-9)
        #expect(abs((tilted.minY - rest.minY) - -20) < 1e-9)
    }

    @Test func withoutHeadingItIsAFlatLayer() {
        let panorama = Panorama(degrees: 120, fieldOfView: 60)
        let rest = place(panorama, depth: -20, yaw: 0)[0]
        let flat = place(panorama, depth: -20, x: 1, y: 0, yaw: nil)
        #expect(flat.count == 1)
        #expect(flat[0] == rest.offsetBy(x: -20, y: 0))
    }

    @Test func aFullCircleWrapsSeamlesslyAndAlwaysCoversTheOutput() {
        let panorama = Panorama(degrees: 360, fieldOfView: 90)
        let width = 640.0 * 4
        for turn in stride(from: -540.0, through: 540, by: 7.5) {
            let copies = place(panorama, yaw: degrees(turn))
            #expect(copies.first!.minX <= -320 && copies.last!.maxX >= 320, "turn \(turn)°: \(copies)")
            for (a, b) in zip(copies, copies.dropFirst()) { #expect(abs(b.minX - a.maxX) < 1e-6) }
            // Where the picture's left edge (0°) is, modulo one width: −(turn/FOV)·W from rest.
            let expected = -width / 2 - turn / 90 * 640
            let offset = (copies[0].minX - expected).truncatingRemainder(dividingBy: width)
            #expect(min(abs(offset), width - abs(offset)) < 1e-6, "turn \(turn)°")
        }
        // A turn of exactly 360° shows the same picture.
        #expect(place(panorama, yaw: degrees(360)) == place(panorama, yaw: 0))
    }

    @Test func coverStretchesOnlyVerticallyAndOnlyWhenTheImageIsTooFlat() {
        let flat = PanoramaPlacement.restingRect(imageWidth: 6000, imageHeight: 300, panorama: Panorama(degrees: 360, fieldOfView: 60),
                                                 fit: .cover, depth: -20, output: output)
        #expect(flat.width == 640 * 6)
        #expect(flat.height == 360 + 40)
    }
}
