// Offsets turned into a rotated output's axes.
import Testing
import ParallaxMotion

@Suite struct DisplayRotationTests {
    let o = ViewerOffset(x: 0.3, y: -0.7)

    @Test func eachRotation() {
        #expect(o.rotated(by: .none) == ViewerOffset(x: 0.3, y: -0.7))
        #expect(o.rotated(by: .clockwise90) == ViewerOffset(x: -0.7, y: -0.3))
        #expect(o.rotated(by: .clockwise180) == ViewerOffset(x: -0.3, y: 0.7))
        #expect(o.rotated(by: .clockwise270) == ViewerOffset(x: 0.7, y: 0.3))
    }

    @Test func rotationsCompose() {
        // 90° four times, or 90° then 270°, is the identity; 90° twice is 180°.
        var r = o
        for _ in 0..<4 { r = r.rotated(by: .clockwise90) }
        #expect(r == o)
        #expect(o.rotated(by: .clockwise90).rotated(by: .clockwise270) == o)
        #expect(o.rotated(by: .clockwise90).rotated(by: .clockwise90) == o.rotated(by: .clockwise180))
    }

    @Test func degrees() {
        #expect(DisplayRotation.allCases.map(\.rawValue) == [0, 90, 180, 270])
        for r in DisplayRotation.allCases { #expect(DisplayRotation(degrees: r.degrees) == r) }
        #expect(DisplayRotation(degrees: 45) == nil)
        #expect(DisplayRotation(degrees: 360) == nil)
        #expect(DisplayRotation(degrees: -90) == nil)
    }
}
