// parallax-wallpaper: the desktop background that moves with parallaxd's viewer offset
// (docs/wallpaper.md, docs/man/parallax-wallpaper.1).

import Glibc
import ParallaxWallpaper

/// Exit status for a scene that cannot be used (EX_CONFIG, as parallaxd --check).
let exitConfig: Int32 = 78
let exitUsage: Int32 = 64

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
var problems = load.errors
var images: [LoadedImage] = []
if problems.isEmpty {
    let result = ImageSet.load(scene: load.scene, file: path)
    images = result.images
    problems += result.errors
}
if options.check {
    for problem in problems { print(problem) }
    if problems.isEmpty { print("\(path): ok (\(load.scene.items.count) layers and panels)") }
    exit(problems.isEmpty ? 0 : exitConfig)
}
guard problems.isEmpty else {
    for problem in problems { WallpaperApp.log(problem.description) }
    exit(exitConfig)
}

do {
    let app = try WallpaperApp(options: options, scene: load.scene, images: images)
    exit(app.run())
} catch {
    WallpaperApp.log(error.description)
    exit(1)
}
