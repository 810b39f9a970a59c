import Testing
@testable import ParallaxWallpaper

@Suite struct SceneParserTests {
    private func parse(_ text: String) -> SceneLoad { SceneParser.parse(text, file: "/scenes/test.conf") }

    @Test func readsTheDocumentedExample() {
        let load = parse("""
            [Scene]
            Background=#102030      # behind everything
            Rate=30
            ReduceMotion=off
            Smoothing=0.1
            Camera=flat

            [Layer sky]
            Image=sky.png
            Depth=-24
            Fit=cover
            Blur=4

            [Panel card]
            Rect=40,40,300,200
            Depth=12
            Blur=16
            Tint=#ffffff40
            """)
        #expect(load.errors.isEmpty)
        #expect(load.warnings.isEmpty)
        let scene = load.scene
        #expect(scene.background == SceneColor(red: 0x10 / 255, green: 0x20 / 255, blue: 0x30 / 255))
        #expect(scene.rate == 30 && scene.reduceMotion == .off && scene.smoothing == 0.1 && scene.camera == .flat)
        #expect(scene.items.count == 2)
        guard case .layer(let sky) = scene.items[0], case .panel(let card) = scene.items[1] else {
            Issue.record("layers and panels must keep file order")
            return
        }
        #expect(sky == SceneLayer(name: "sky", image: "/scenes/sky.png", depth: -24, fit: .cover, blur: 4, imageLine: 9))
        #expect(card.x == 40 && card.y == 40 && card.width == 300 && card.height == 200 && card.depth == 12 && card.blur == 16)
        #expect(abs(card.tint.alpha - 0x40 / 255.0) < 1e-9)
    }

    @Test func errorsNameTheLineAndTheKey() {
        let load = parse("[Scene]\nRate=fast\n\n[Layer a]\nImage=a.png\nDepth=1e999\nFit=stretch\n")
        #expect(load.errors.map(\.line) == [2, 6, 7])
        #expect(load.errors[0].description.hasPrefix("/scenes/test.conf:2: [Scene] Rate=fast: expected a whole number"))
        #expect(load.errors[2].message.contains("cover, none"))
    }

    @Test func aLayerWithoutImageAndAPanelWithoutRectAreErrors() {
        let load = parse("[Layer empty]\nDepth=3\n[Panel p]\nBlur=2\n[Panel q]\n")
        #expect(load.errors.map(\.line) == [1, 3, 5])
        #expect(load.scene.items.isEmpty)
    }

    @Test func depthIsForFlatAndZForPerspective() {
        let flat = parse("[Layer a]\nImage=a.png\nZ=-10\n")
        #expect(flat.errors.map(\.line) == [3])
        let perspective = parse("[Scene]\nCamera=perspective\nMaxViewingAngle=10,5\nEyeDistance=800\n[Layer a]\nImage=a.png\nDepth=4\n[Layer b]\nImage=b.png\nZ=750\n")
        #expect(perspective.errors.map(\.line) == [7, 10])
        #expect(perspective.scene.camera == .perspective(PerspectiveCamera(maximumAngleHorizontal: 10, maximumAngleVertical: 5, eyeDistance: 800)))
    }

    @Test func unknownSectionsAndKeysAreWarningsNotErrors() {
        let load = parse("[Scene]\nSparkle=yes\n[Clouds]\nSpeed=3\n[Layer a]\nImage=/abs/a.png\n")
        #expect(load.errors.isEmpty)
        #expect(load.warnings.map(\.line) == [2, 3])
        #expect(load.scene.layers.first?.image == "/abs/a.png")
    }

    @Test func syntaxErrorsAndDuplicateSectionsNameTheirLine() {
        #expect(parse("[Scene]\nthis is not ini\n").errors.map(\.line) == [2])
        #expect(parse("[Layer a]\nImage=a.png\n[Layer a]\nImage=b.png\n").errors.map(\.line) == [3])
    }

    @Test func coloursAndCommentsParse() throws {
        #expect(SceneValues.withoutComment("#000000      # behind everything") == "#000000")
        #expect(SceneValues.withoutComment("12 ; twelve") == "12")
        #expect(try SceneValues.color("#ff000080").alpha == 128 / 255.0)
        #expect(throws: SceneValueError.self) { try SceneValues.color("red") }
        #expect(throws: SceneValueError.self) { try SceneValues.number("nan", in: -1...1) }
    }
}
