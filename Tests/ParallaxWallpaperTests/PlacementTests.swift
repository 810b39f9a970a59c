import ParallaxClient
import Testing
@testable import ParallaxWallpaper

@Suite struct PlacementTests {
    let output = OutputGeometry(width: 640, height: 360, scale: 1)

    @Test func flatLayersMoveDepthTimesOffsetRightAndDown() {
        let shift = FlatPlacement.shift(depth: -24, offset: ParallaxOffset(x: 0.5, y: -0.25), scale: 2)
        #expect(shift.x == -24 && shift.y == 12)
        let clamped = FlatPlacement.shift(depth: 10, offset: ParallaxOffset(x: 3, y: .nan), scale: 1)
        #expect(clamped.x == 10 && clamped.y == 0)
    }

    @Test func coverLeavesRoomForTheTravelOnEverySide() {
        let rect = FlatPlacement.restingRect(imageWidth: 800, imageHeight: 400, fit: .cover, depth: -24, output: output)
        #expect(rect.width >= 640 + 48 && rect.height >= 360 + 48)
        #expect(abs(rect.width / rect.height - 2) < 1e-9)
        #expect(FlatPlacement.restingRect(imageWidth: 30, imageHeight: 20, fit: .none, depth: 99, output: output) == .centred(width: 30, height: 20))
    }

    /// Screen position of the centre of a layer at z for an offset, through the wallpaper's camera.
    private func centre(z: Double, _ x: Double, _ y: Double, angles: (Double, Double) = (18, 10)) -> (x: Double, y: Double) {
        let effect = PerspectivePlacement.effect(PerspectiveCamera(maximumAngleHorizontal: angles.0, maximumAngleVertical: angles.1), scale: 1)
        let corners = PerspectivePlacement.projectedCorners(of: .centred(width: 2, height: 2), z: z, effect: effect, offset: ParallaxOffset(x: x, y: y))!
        return (corners.map(\.x).reduce(0, +) / 4, corners.map(\.y).reduce(0, +) / 4)
    }

    @Test func layersBehindMoveLikeRecessedFlatLayersOnBothAxesAndInFrontLikeFloatingOnes() {
        // Flat: recessed (Depth < 0) moves left for x > 0 and up for y > 0; floating the opposite.
        let behind = centre(z: -200, 0.5, 0.5)
        let front = centre(z: 200, 0.5, 0.5)
        #expect(behind.x < 0 && behind.y < 0)
        #expect(front.x > 0 && front.y > 0)
        let atScreen = centre(z: 0, 0.5, 0.5)
        #expect(abs(atScreen.x) < 0.01 && abs(atScreen.y) < 0.01)  // a 2-px square: foreshortening only
    }

    @Test func fartherLayersMoveMore() {
        #expect(centre(z: -400, 1, 0).x < centre(z: -100, 1, 0).x)
        #expect(centre(z: -400, 0, 1).y < centre(z: -100, 0, 1).y)
    }

    @Test func theSamplesVerticalSenseIsTheOppositeOfFlatLayers() {
        // ParallaxClient's effect with the sample's positive angle moves a layer behind DOWN for
        // y > 0; the wallpaper negates it so that it moves up like a recessed flat layer.
        let sample = PerspectiveMotionEffect(eyeDistance: 1500, cameraPositionZ: 0, maximumViewingAngleX: 10 * .pi / 180)
        let point = sample.project(Point3D(x: 0, y: 0, z: -200), for: ParallaxOffset(x: 0, y: 1))!
        #expect(point.y > 0)
        #expect(centre(z: -200, 0, 1).y < 0)
    }

    @Test func aPerspectiveCoverLayerCoversTheOutputAtEveryOffset() {
        let effect = PerspectivePlacement.effect(PerspectiveCamera(maximumAngleHorizontal: 18, maximumAngleVertical: 10), scale: 1)
        let rect = PerspectivePlacement.restingRect(imageWidth: 1000, imageHeight: 600, fit: .cover, z: -300, effect: effect, output: output)
        for x in stride(from: -1.0, through: 1.0, by: 0.25) {
            for y in stride(from: -1.0, through: 1.0, by: 0.25) {
                let quad = PerspectivePlacement.projectedCorners(of: rect, z: -300, effect: effect, offset: ParallaxOffset(x: x, y: y))!
                for corner in [(-320.0, -180.0), (320.0, -180.0), (320.0, 180.0), (-320.0, 180.0)] {
                    #expect(PerspectivePlacement.inside(corner, quad), "corner \(corner) uncovered at \(x),\(y)")
                }
            }
        }
    }

    @Test func panelsStayAtTheirRectAtRestAndMoveByDepth() {
        let panel = ScenePanel(name: "p", x: 40, y: 30, width: 100, height: 50, depth: 10)
        let placed = PanelPlacement.place(panel, output: output, offset: ParallaxOffset(x: 1, y: -1), perspective: nil)
        #expect(placed.rect == PixelRect(minX: -270, minY: -160, maxX: -170, maxY: -110))
        let effect = PerspectivePlacement.effect(PerspectiveCamera(), scale: 1)
        var deep = panel
        deep.z = -200
        let rest = PanelPlacement.place(deep, output: output, offset: .zero, perspective: effect).screenBounds
        #expect(abs(rest.minX - -280) < 1e-6 && abs(rest.maxY - -100) < 1e-6)
    }

    @Test func blurBoxesApproximateTheGaussian() {
        var image = LoadedImage(width: 41, height: 1, pixels: [UInt8](repeating: 0, count: 41 * 4))
        for c in 0..<4 { image.pixels[20 * 4 + c] = 255 }
        GaussianBlur.apply(to: &image, radius: 8)
        let reds = stride(from: 0, to: image.pixels.count, by: 4).map { Double(image.pixels[$0]) }
        let total = reds.reduce(0, +)
        let mean = reds.enumerated().reduce(0) { $0 + Double($1.offset) * $1.element } / total
        let variance = reds.enumerated().reduce(0) { $0 + (Double($1.offset) - mean) * (Double($1.offset) - mean) * $1.element } / total
        #expect(abs(mean - 20) < 0.01)
        #expect(abs(variance.squareRoot() - GaussianBlur.sigma(radius: 8)) < 0.5)
    }
}
