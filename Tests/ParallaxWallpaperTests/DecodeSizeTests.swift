import Testing
@testable import ParallaxWallpaper

@Suite struct DecodeSizeTests {
    let fullHD = OutputGeometry(width: 1920, height: 1080, scale: 1)

    @Test func aPhotoLargerThanTheOutputIsDecodedAtTheSizeItIsShown() {
        let layer = SceneItem.layer(SceneLayer(name: "sky", image: "/sky.jpg", depth: -24, fit: .cover))
        let box = DecodeSize.limit(layer, camera: .flat, imageWidth: 8000, imageHeight: 6000, outputs: [fullHD], textureLimit: 16384)
        // Cover: 1920 + 48 wide decides, 4:3 kept.
        #expect(box.width == 1968 && box.height == 1476)
    }

    @Test func theLargestOutputAndTheTextureLimitDecide() {
        let panorama = SceneItem.layer(SceneLayer(name: "p", image: "/p.jpg", panorama: Panorama(degrees: 360, fieldOfView: 60)))
        let small = OutputGeometry(width: 640, height: 360, scale: 1)
        let box = DecodeSize.limit(panorama, camera: .flat, imageWidth: 12000, imageHeight: 2000, outputs: [small, fullHD], textureLimit: 8192)
        #expect(box.width == 8192)                 // 1920·6 = 11520 is past the GPU's limit
        #expect(DecodeSize.limit(panorama, camera: .flat, imageWidth: 12000, imageHeight: 2000, outputs: [], textureLimit: nil) == (0, 0))
    }

    @Test func aMeshIsDecodedAtItsRect() {
        var mesh = SceneMesh(name: "m", image: "/m.png")
        mesh.rect = LogicalRect(x: 0, y: 0, width: 400, height: 200)
        let box = DecodeSize.limit(.mesh(mesh), camera: .flat, imageWidth: 4000, imageHeight: 2000,
                                   outputs: [OutputGeometry(width: 1920, height: 1080, scale: 2)], textureLimit: 16384)
        #expect(box.width == 800 && box.height == 400)
    }
}
