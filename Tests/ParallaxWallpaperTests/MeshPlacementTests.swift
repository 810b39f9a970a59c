import ParallaxClient
import Testing
@testable import ParallaxWallpaper

@Suite struct MeshPlacementTests {
    let output = OutputGeometry(width: 640, height: 360, scale: 2)

    private func mesh(turns: [Double] = [0, 0, 0, 0]) -> SceneMesh {
        var mesh = SceneMesh(name: "card", image: "/card.png", columns: 2, rows: 2, depths: [10, -10, 20, 0], turns: turns)
        mesh.rect = LogicalRect(x: 60, y: 40, width: 100, height: 50)
        return mesh
    }

    @Test func piecesSplitTheRectRowByRowAndShowTheirPartOfTheImage() {
        let pieces = MeshPlacement.pieces(mesh(), imageWidth: 10, imageHeight: 10, output: output, offset: .zero, flatEyeDistance: 3000)
        #expect(pieces.count == 4)
        // Rect= is logical: at scale 2, x 60 → 120 buffer pixels from the left edge (−320).
        #expect(pieces[0].rect == PixelRect(minX: -200, minY: -100, maxX: -100, maxY: -50))
        #expect(pieces[1].rect == PixelRect(minX: -100, minY: -100, maxX: 0, maxY: -50))
        #expect(pieces[2].rect == PixelRect(minX: -200, minY: -50, maxX: -100, maxY: 0))
        #expect(pieces[1].textureRect == PixelRect(minX: 0.5, minY: 0, maxX: 1, maxY: 0.5))
        #expect(pieces[2].textureRect == PixelRect(minX: 0, minY: 0.5, maxX: 0.5, maxY: 1))
    }

    @Test func eachPieceMovesByItsOwnDepth() {
        let rest = MeshPlacement.pieces(mesh(), imageWidth: 10, imageHeight: 10, output: output, offset: .zero, flatEyeDistance: 3000)
        let moved = MeshPlacement.pieces(mesh(), imageWidth: 10, imageHeight: 10, output: output,
                                         offset: ParallaxOffset(x: 0.5, y: -1), flatEyeDistance: 3000)
        for (index, depth) in [10.0, -10, 20, 0].enumerated() {
            #expect(moved[index].rect == rest[index].rect.offsetBy(x: depth * 0.5 * 2, y: -depth * 2), "piece \(index)")
        }
    }

    @Test func aTurnedPieceTurnsAboutItsCentreLineInPerspective() {
        let turned = mesh(turns: [30, -30, 0, 0])
        let pieces = MeshPlacement.pieces(turned, imageWidth: 10, imageHeight: 10, output: output,
                                          offset: ParallaxOffset(x: 1, y: 0), flatEyeDistance: 3000)
        #expect(abs(pieces[0].turn - 30 * .pi / 180) < 1e-12)
        let corners = MeshPlacement.projectedCorners(of: pieces[0])!
        // Right edge away from the viewer: shorter than the left edge, both drawn narrower.
        let left = corners[3].y - corners[0].y
        let right = corners[2].y - corners[1].y
        #expect(right < left)
        #expect(corners[1].x - corners[0].x < 100 && corners[1].x - corners[0].x > 80)
        // The centre line stays where it was.
        let centreX = (pieces[0].rect.minX + pieces[0].rect.maxX) / 2
        let top = pieces[0].transform.apply(to: Point3D(x: centreX, y: pieces[0].rect.minY, z: 0))!
        #expect(abs(top.x - centreX) < 1e-9 && abs(top.y - pieces[0].rect.minY) < 1e-9)
        // The opposite turn: the left edge goes away.
        let other = MeshPlacement.projectedCorners(of: pieces[1])!
        #expect(other[2].y - other[1].y > other[3].y - other[0].y)
        // Half the offset, half the turn; no offset, no turn.
        let half = MeshPlacement.pieces(turned, imageWidth: 10, imageHeight: 10, output: output,
                                        offset: ParallaxOffset(x: -0.5, y: 0), flatEyeDistance: 3000)
        #expect(abs(half[0].turn + 15 * .pi / 180) < 1e-12)
        let still = MeshPlacement.pieces(turned, imageWidth: 10, imageHeight: 10, output: output, offset: .zero, flatEyeDistance: 3000)
        let flatCorners = MeshPlacement.projectedCorners(of: still[0])!
        #expect(abs(flatCorners[0].x - still[0].rect.minX) < 1e-9 && abs(flatCorners[2].y - still[0].rect.maxY) < 1e-9)
    }

    @Test func withoutRectTheMeshIsCentredAtTheImageSize() {
        let mesh = SceneMesh(name: "m", image: "/m.png")
        #expect(MeshPlacement.restingRect(mesh, imageWidth: 300, imageHeight: 100, output: output) == .centred(width: 300, height: 100))
    }
}
