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

@Suite struct PanoramaAndMeshParserTests {
    private func parse(_ text: String) -> SceneLoad { SceneParser.parse(text, file: "/scenes/test.conf") }

    @Test func readsPanoramaAndMeshLayers() {
        let load = parse("""
            [Scene]
            EyeDistance=2000
            [Layer pano]
            FieldOfView=90
            Image=pano.jpg
            Panorama=360
            Depth=-20
            [Mesh card]
            Image=card.png
            Depths=12,-12
            Grid=2x1
            Turn=10,-10
            Rect=100,100,400,200
            """)
        #expect(load.errors.isEmpty, "\(load.errors)")
        #expect(load.warnings.isEmpty, "\(load.warnings)")
        let scene = load.scene
        #expect(scene.layers[0].panorama == Panorama(degrees: 360, fieldOfView: 90))
        #expect(scene.wantsHeading)
        #expect(scene.eyeDistance == 2000)
        guard case .mesh(let mesh) = scene.items[1] else {
            Issue.record("no mesh")
            return
        }
        #expect(mesh.columns == 2 && mesh.rows == 1)
        #expect(mesh.depths == [12, -12] && mesh.turns == [10, -10])
        #expect(mesh.rect == LogicalRect(x: 100, y: 100, width: 400, height: 200))
        #expect(mesh.image == "/scenes/card.png")
        #expect(scene.pictures.map(\.label) == ["[Layer pano]", "[Mesh card]"])
    }

    @Test func eachMistakeNamesItsLine() {
        let load = parse("""
            [Layer a]
            Image=a.png
            Panorama=20
            [Layer b]
            Image=b.png
            Panorama=90
            FieldOfView=200
            [Mesh c]
            Image=c.png
            Grid=3x0
            [Mesh d]
            Image=d.png
            Grid=2x2
            Depths=1,2,3
            Turn=1,2,3,4,5
            """)
        #expect(load.errors.map(\.line) == [3, 7, 10, 14, 15], "\(load.errors)")
        #expect(load.errors[0].message.contains("Panorama=20") && load.errors[0].message.contains("30…360"))
        #expect(load.errors[1].message.contains("10…180"))
        #expect(load.errors[2].message.contains("at least 1 column and 1 row"))
        #expect(load.errors[3].message.contains("Depths= has 3 values; Grid=2x2 has 4 pieces"))
        #expect(load.errors[4].message.contains("Turn= has 5 values"))
        #expect(load.errors.allSatisfy { $0.description.hasPrefix("/scenes/test.conf:") })
    }

    @Test func panoramasAndDepthsBelongToTheFlatCamera() {
        let load = parse("""
            [Scene]
            Camera=perspective
            [Layer pano]
            Image=p.jpg
            Panorama=180
            [Mesh m]
            Image=m.png
            Depths=4
            Z=-100
            """)
        #expect(load.errors.map(\.line) == [5, 8])
        #expect(load.errors[1].message.hasPrefix("Depths= is for Camera=flat"))
    }

    @Test func aMeshWithoutImageIsAnErrorAndFieldOfViewAloneAWarning() {
        let load = parse("[Mesh m]\nGrid=1x1\n[Layer l]\nImage=l.png\nFieldOfView=50\n")
        #expect(load.errors.map(\.line) == [1])
        #expect(load.warnings.map(\.line) == [5])
    }
}
