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
    private var keyLines: [String: Int] = [:]
    private var sectionsSeen: Set<String> = []
    /// Lines of Depth= and Z= keys, checked against the camera at the end.
    private var depthLines: [Int] = []
    private var zLines: [(line: Int, z: Double)] = []
    private var cameraKeyLines: [Int] = []
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
        } else if name != "Scene" {
            warnings.append(issue(line, "unknown section [\(name)], ignored (expected [Scene], [Layer NAME] or [Panel NAME])"))
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
            cameraKeyLines.append(line)
        case "EyeDistance":
            perspective.eyeDistance = try SceneValues.number(value, in: 1...SceneValues.maximumLength, what: "a distance in pixels")
            cameraKeyLines.append(line)
        default: return false
        }
        return true
    }

    private func layerKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Image":
            guard !value.isEmpty else { throw SceneValueError(message: "expected the path of a PNG or JPEG file") }
            layer?.image = value.hasPrefix("/") ? value : directory + "/" + value
            layer?.imageLine = line
        case "Depth":
            layer?.depth = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            depthLines.append(line)
        case "Z":
            let z = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            layer?.z = z
            zLines.append((line, z))
        case "Fit": layer?.fit = try SceneValues.choice(value, as: LayerFit.self)
        case "Blur": layer?.blur = try SceneValues.number(value, in: 0...SceneValues.maximumBlur, what: "a radius in pixels")
        default: return false
        }
        return true
    }

    private func panelKey(_ key: String, _ value: String, line: Int) throws(SceneValueError) -> Bool {
        switch key {
        case "Rect":
            let rect = try SceneValues.numbers(value, count: 4, in: -SceneValues.maximumLength...SceneValues.maximumLength,
                                               what: "x,y,width,height in pixels")
            guard rect[2] > 0, rect[3] > 0 else { throw SceneValueError(message: "width and height must be greater than 0") }
            panel?.x = rect[0]
            panel?.y = rect[1]
            panel?.width = rect[2]
            panel?.height = rect[3]
        case "Depth":
            panel?.depth = try SceneValues.number(value, in: -SceneValues.maximumLength...SceneValues.maximumLength, what: "pixels")
            depthLines.append(line)
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
        if let layer {
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
        layer = nil
        panel = nil
    }

    /// Checks that need the whole file: Depth= belongs to the flat camera, Z= to perspective, and
    /// nothing may sit at or in front of the eye.
    func finish() {
        finishItem()
        if usesPerspective {
            scene.camera = .perspective(perspective)
            for line in depthLines {
                errors.append(issue(line, "Depth= is for Camera=flat; with Camera=perspective give each layer Z= (pixels, negative = behind the screen)"))
            }
            for (line, z) in zLines where z >= perspective.eyeDistance * 0.9 {
                errors.append(issue(line, "Z=\(z) is at or in front of the eye (EyeDistance=\(perspective.eyeDistance)); keep Z below 90 % of it"))
            }
        } else {
            scene.camera = .flat
            for (line, _) in zLines {
                errors.append(issue(line, "Z= is for Camera=perspective; with the flat camera give each layer Depth="))
            }
            for line in cameraKeyLines {
                warnings.append(issue(line, "MaxViewingAngle= and EyeDistance= only matter with Camera=perspective"))
            }
        }
    }
}
