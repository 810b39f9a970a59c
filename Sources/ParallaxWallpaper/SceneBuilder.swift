// The scene parser's state while libinih walks a file: the current [Layer …] or [Panel …]
// section, the keys seen with their lines, and the checks that need the whole file (the camera
// decides whether Depth= or Z= is meant).

final class SceneBuilder {
    let file: String
    let directory: String
    var scene = Scene()
    var errors: [SceneIssue] = []
    var warnings: [SceneIssue] = []
    private let lines: [Substring]
    private var index = 0

    /// The section whose keys are arriving, and where each of its keys was.
    private var section: String?
    private var sectionLine = 0
    private var layer: SceneLayer?
    private var panel: ScenePanel?
    private var mesh: SceneMesh?
    /// The current mesh's Depths= and Turn= (counted against its Grid= when the section ends).
    private var meshDepths: (line: Int, values: [Double])?
    private var meshTurns: (line: Int, values: [Double])?
    /// Lines of Panorama= (flat camera only) and of FieldOfView= without a Panorama=.
    private var panoramaLines: [Int] = []
    private var keyLines: [String: Int] = [:]
    private var sectionsSeen: Set<String> = []
    /// Lines (and keys) of Depth=/Depths= and Z= keys, checked against the camera at the end.
    private var depthLines: [(line: Int, key: String)] = []
    private var zLines: [(line: Int, z: Double)] = []
    private var cameraKeyLines: [(line: Int, key: String)] = []
    private var perspective = PerspectiveCamera()
    private var usesPerspective = false

    init(text: String, file: String, directory: String) {
        self.file = file
        self.directory = directory
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// inih's reader: copies the next line (with its newline) into `buffer`, and notes sections
    /// as they start (inih only reports sections that have keys).
    func nextLine(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> UnsafeMutablePointer<CChar>? {
        guard index < lines.count, capacity > 1 else { return nil }
        let line = Array(lines[index].utf8) + [UInt8(ascii: "\n")]
        index += 1
        let count = min(line.count, capacity - 1)
        line.withUnsafeBufferPointer { source in
            buffer.withMemoryRebound(to: UInt8.self, capacity: capacity) { target in
                target.update(from: source.baseAddress!, count: count)
                target[count] = 0
            }
        }
        let trimmed = String(lines[index - 1]).trimmingSpaces
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            begin(section: String(trimmed[trimmed.index(after: trimmed.startIndex)..<close]).trimmingSpaces, line: index)
        }
        return buffer
    }

    private func issue(_ line: Int, _ message: String) -> SceneIssue {
        SceneIssue(file: file, line: line, message: message)
    }

    private func begin(section name: String, line: Int) {
        finishItem()
        section = name
        sectionLine = line
        keyLines = [:]
        if sectionsSeen.contains(name) && name != "Scene" {
            errors.append(issue(line, "[\(name)] appears twice: give each layer and panel its own name"))
        }
        sectionsSeen.insert(name)
        if let itemName = Self.itemName(name, kind: "Layer") {
            layer = SceneLayer(name: itemName, image: "")
        } else if let itemName = Self.itemName(name, kind: "Panel") {
            panel = ScenePanel(name: itemName, x: 0, y: 0, width: 0, height: 0)
        } else if let itemName = Self.itemName(name, kind: "Mesh") {
            mesh = SceneMesh(name: itemName, image: "")
        } else if name != "Scene" {
            warnings.append(issue(line, "unknown section [\(name)], ignored (expected [Scene], [Layer NAME], [Mesh NAME] or [Panel NAME])"))
        }
    }

    /// "Layer sky" → "sky"; nil for other sections. A bare [Layer] is a layer without a name.
    private static func itemName(_ section: String, kind: String) -> String? {
        guard section == kind || section.hasPrefix(kind + " ") else { return nil }
        return String(section.dropFirst(kind.count)).trimmingSpaces
    }

    func handle(section name: String, key: String, value rawValue: String) {
        let line = index
        let value = SceneValues.withoutComment(rawValue)
        if keyLines[key] != nil {
            warnings.append(issue(line, "\(key)= given again in [\(name)]; the last one counts"))
        }
        keyLines[key] = line
        do throws(SceneValueError) {
            let known: Bool
            if name == "Scene" {
                known = try sceneKey(key, value, line: line)
            } else if layer != nil {
                known = try layerKey(key, value, line: line)
            } else if panel != nil {
                known = try panelKey(key, value, line: line)
            } else if mesh != nil {
                known = try meshKey(key, value, line: line)
            } else {
                return  // the unknown section was reported once
            }
            if !known { warnings.append(issue(line, "unknown key \(key)= in [\(name)], ignored")) }
        } catch {
            errors.append(issue(line, "[\(name)] \(key)=\(value): \(error.message)"))
        }
    }

    private func sceneKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Background": scene.background = try SceneValues.color(value)
        case "Rate": scene.rate = try SceneValues.integer(value, in: 1...SceneValues.maximumRate)
        case "ReduceMotion": scene.reduceMotion = try SceneValues.choice(value, as: ReduceMotionSource.self)
        case "Smoothing": scene.smoothing = try SceneValues.number(value, in: 0...SceneValues.maximumSmoothing, what: "seconds")
        case "Camera":
            switch value.lowercased() {
            case "flat": usesPerspective = false
            case "perspective": usesPerspective = true
            default: throw SceneValueError(message: "expected flat or perspective, got \"\(value)\"")
            }
        case "MaxViewingAngle":
            let angles = try SceneValues.numbers(value, count: 2, in: -SceneValues.maximumAngle...SceneValues.maximumAngle,
                                                 what: "two angles in degrees, horizontal,vertical")
            perspective.maximumAngleHorizontal = angles[0]
            perspective.maximumAngleVertical = angles[1]
            cameraKeyLines.append((line, key))
        case "EyeDistance":
            perspective.eyeDistance = try SceneValues.number(value, in: 1...SceneValues.maximumLength, what: "a distance in pixels")
            cameraKeyLines.append((line, key))
        default: return false
        }
        return true
    }

    /// An Image= value: absolute, or relative to the scene file's directory.
    private func imagePath(_ value: String) throws(SceneValueError) -> String {
        guard !value.isEmpty else { throw SceneValueError(message: "expected the path of a PNG or JPEG file") }
        return value.hasPrefix("/") ? value : directory + "/" + value
    }

    private func layerKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Image":
            layer?.image = try imagePath(value)
            layer?.imageLine = line
        case "Depth":
            layer?.depth = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            depthLines.append((line, key))
        case "Z":
            let z = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            layer?.z = z
            zLines.append((line, z))
        case "Fit": layer?.fit = try SceneValues.choice(value, as: LayerFit.self)
        case "Blur": layer?.blur = try SceneValues.number(value, in: 0...SceneValues.maximumBlur, what: "a radius in pixels")
        case "Panorama":
            let degrees = try SceneValues.number(value, in: Panorama.degreeRange, what: "the degrees the image spans (30–360)")
            layer?.panorama = Panorama(degrees: degrees)
            panoramaLines.append(line)
        case "FieldOfView":
            let degrees = try SceneValues.number(value, in: Panorama.fieldOfViewRange, what: "the degrees the output shows (10–180)")
            pendingFieldOfView = degrees
        default: return false
        }
        return true
    }

    /// FieldOfView= may come before or after Panorama= in its section: applied when the section ends.
    private var pendingFieldOfView: Double?

    private func meshKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Image":
            mesh?.image = try imagePath(value)
            mesh?.imageLine = line
        case "Grid":
            let grid = try SceneValues.grid(value, maximum: SceneValues.maximumGridSide)
            mesh?.columns = grid.columns
            mesh?.rows = grid.rows
        case "Depths":
            meshDepths = (line, try SceneValues.list(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels"))
            depthLines.append((line, key))
        case "Turn":
            meshTurns = (line, try SceneValues.list(value, in: -SceneValues.maximumAngle...SceneValues.maximumAngle, what: "degrees"))
        case "Rect":
            mesh?.rect = try SceneValues.rect(value)
        case "Z":
            let z = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            mesh?.z = z
            zLines.append((line, z))
        default: return false
        }
        return true
    }

    private func panelKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Rect":
            let rect = try SceneValues.rect(value)
            panel?.x = rect.x
            panel?.y = rect.y
            panel?.width = rect.width
            panel?.height = rect.height
        case "Depth":
            panel?.depth = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            depthLines.append((line, key))
        case "Z":
            let z = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            panel?.z = z
            zLines.append((line, z))
        case "Blur": panel?.blur = try SceneValues.number(value, in: 0...SceneValues.maximumBlur, what: "a radius in pixels")
        case "Tint": panel?.tint = try SceneValues.color(value)
        default: return false
        }
        return true
    }

    private func finishItem() {
        if var layer {
            if let fieldOfView = pendingFieldOfView, let line = keyLines["FieldOfView"] {
                if layer.panorama != nil {
                    layer.panorama?.fieldOfView = fieldOfView
                } else {
                    warnings.append(issue(line, "FieldOfView= only matters with Panorama= in [\(section ?? "Layer")]"))
                }
            }
            if keyLines["Image"] == nil {
                errors.append(issue(sectionLine, "[\(section ?? "Layer")] has no Image="))
            } else {
                scene.items.append(.layer(layer))
            }
        }
        if let panel {
            if keyLines["Rect"] == nil {
                errors.append(issue(sectionLine, "[\(section ?? "Panel")] has no Rect=x,y,width,height"))
            } else {
                scene.items.append(.panel(panel))
            }
        }
        if var mesh {
            finishMesh(&mesh)
        }
        layer = nil
        panel = nil
        mesh = nil
        meshDepths = nil
        meshTurns = nil
        pendingFieldOfView = nil
    }

    /// Depths= and Turn= must give one value per piece of the Grid= (which may come after them).
    private func finishMesh(_ mesh: inout SceneMesh) {
        let label = "[\(section ?? "Mesh")]"
        let pieces = mesh.pieceCount
        var complete = true
        for (key, given) in [("Depths", meshDepths), ("Turn", meshTurns)] {
            guard let given else { continue }
            if given.values.count != pieces {
                errors.append(issue(given.line, "\(label) \(key)= has \(given.values.count) values; Grid=\(mesh.columns)x\(mesh.rows) has \(pieces) pieces (one value each, row by row)"))
                complete = false
            }
        }
        if let depths = meshDepths, depths.values.count == pieces { mesh.depths = depths.values }
        if let turns = meshTurns, turns.values.count == pieces { mesh.turns = turns.values }
        if keyLines["Image"] == nil {
            errors.append(issue(sectionLine, "\(label) has no Image="))
        } else if complete {
            scene.items.append(.mesh(mesh))
        }
    }

    /// Checks that need the whole file: Depth= belongs to the flat camera, Z= to perspective, and
    /// nothing may sit at or in front of the eye.
    func finish() {
        finishItem()
        scene.eyeDistance = perspective.eyeDistance
        if usesPerspective {
            scene.camera = .perspective(perspective)
            for (line, key) in depthLines {
                errors.append(issue(line, "\(key)= is for Camera=flat; with Camera=perspective give each layer Z= (pixels, negative = behind the screen)"))
            }
            for line in panoramaLines {
                errors.append(issue(line, "Panorama= layers need Camera=flat (they turn with the heading and tilt like a flat layer)"))
            }
            for (line, z) in zLines where z >= perspective.eyeDistance * 0.9 {
                errors.append(issue(line, "Z=\(z) is at or in front of the eye (EyeDistance=\(perspective.eyeDistance)); keep Z below 90 % of it"))
            }
        } else {
            scene.camera = .flat
            for (line, _) in zLines {
                errors.append(issue(line, "Z= is for Camera=perspective; with the flat camera give each layer Depth="))
            }
            // A flat scene's meshes turn their pieces in perspective from EyeDistance.
            let meshesTurn = scene.items.contains { if case .mesh = $0 { true } else { false } }
            for (line, key) in cameraKeyLines where !(key == "EyeDistance" && meshesTurn) {
                warnings.append(issue(line, "\(key)= only matters with Camera=perspective\(key == "EyeDistance" ? " (or for the Turn= of a [Mesh])" : "")"))
            }
        }
    }
}
