// parallax-wallpaper: the desktop background that moves with parallaxd's viewer offset
// (docs/wallpaper.md, docs/man/parallax-wallpaper.1).

import Glibc
import ParallaxWallpaper

/// Exit status for a scene that cannot be used (EX_CONFIG, as parallaxd --check).
let exitConfig: Int32 = 78
let exitUsage: Int32 = 64
/// --check decodes images within this many pixels a side (the usual GPU texture limit).
let checkedImageSide = 8192

let options: WallpaperCommandLine
do {
    options = try WallpaperCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    WallpaperApp.log(error.message)
    WallpaperApp.log(WallpaperCommandLine.usage)
    exit(exitUsage)
}
if options.help {
    print(WallpaperCommandLine.usage)
    exit(0)
}

let path = options.scenePath
let load = SceneParser.load(path: path)
for warning in load.warnings { WallpaperApp.log("warning: \(warning)") }
if options.check {
    var problems = load.errors
    if problems.isEmpty {
        // Decoded to see that they decode; at most a texture's size, which is all a GPU takes.
        problems += ImageSet.load(scene: load.scene, file: path, textureLimit: checkedImageSide).errors
    }
    for problem in problems { print(problem) }
    if problems.isEmpty { print("\(path): ok (\(load.scene.items.count) layers, meshes and panels in all)") }
    exit(problems.isEmpty ? 0 : exitConfig)
}
// Headers only: an image that is missing or not a picture is refused before the compositor is
// asked for anything (its pixels are decoded once the outputs' sizes are known).
let problems = load.errors.isEmpty ? ImageSet.probeAll(scene: load.scene, file: path) : load.errors
guard problems.isEmpty else {
    for problem in problems { WallpaperApp.log(problem.description) }
    exit(exitConfig)
}

do throws(StartFailure) {
    let app = try WallpaperApp(options: options, scene: load.scene)
    exit(app.run())
} catch .scene(let problems) {
    for problem in problems { WallpaperApp.log(problem.description) }
    exit(exitConfig)
} catch .shellDrawsDesktop {
    WallpaperApp.log(WallpaperApp.plasmaMessage)
    exit(0)
} catch .compositor(let error) {
    WallpaperApp.log(error.description)
    exit(1)
}
