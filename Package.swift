// swift-tools-version:6.0
// parallaxd: IIO accelerometer + gyroscope → viewer offset → Unix-socket subscribers.
// Module shape (docs/architecture.md): pure math (ParallaxMotion), sensor input (ParallaxIIO),
// wire format (ParallaxProtocol), the daemon (ParallaxDaemon), a client library and two tools.
import PackageDescription

let package = Package(
    name: "parallaxd",
    products: [
        .executable(name: "parallaxd", targets: ["parallaxd"]),
        .executable(name: "parallaxctl", targets: ["parallaxctl"]),
        .library(name: "ParallaxClient", targets: ["ParallaxClient"]),
        .executable(name: "parallax-wallpaper", targets: ["parallax-wallpaper"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Thin C shims: system libraries and the Linux syscalls Glibc does not expose cleanly.
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CInih", pkgConfig: "inih", providers: [.apt(["libinih-dev"])]),
        .target(name: "CLinux"),
        // parallax-wallpaper's C side: Wayland, EGL, GLES2; wayland-scanner glue committed under
        // Sources/CWaylandProtocols (scripts/generate-wayland-glue.sh); PNG/JPEG decoding.
        .systemLibrary(
            name: "CWayland", pkgConfig: "wayland-client",
            providers: [.apt(["libwayland-dev", "libegl-dev", "libgles-dev"])]),
        .target(name: "CWaylandProtocols", dependencies: ["CWayland"]),
        .target(name: "CImage", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg")]),

        // Pure math: attitude fusion and the viewer-offset mapping. No I/O, no Foundation.
        .target(name: "ParallaxMotion"),
        // Messages of protocol v1 and their JSON codec, shared by server and clients.
        .target(name: "ParallaxProtocol"),
        // Sensor sources: libiio discovery and capture, sysfs parsing, trace record/replay.
        .target(
            name: "ParallaxIIO",
            dependencies: [
                "CIIO", "CSystemd", "CLinux", "ParallaxMotion",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // What parallaxd is configured with: INI loading (libinih), the key table, access lists,
        // sysexits codes; shared by parallaxd and parallaxctl.
        .target(
            name: "ParallaxConfig",
            dependencies: [
                "CInih", "ParallaxMotion", "ParallaxIIO",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Event loop, socket server, hub, supervisor and systemd glue.
        .target(
            name: "ParallaxDaemon",
            dependencies: [
                "CSystemd", "CLinux", "ParallaxMotion", "ParallaxIIO", "ParallaxProtocol", "ParallaxConfig",
                // For `parallaxd --calibrate` through a running daemon (CalibrationCommand.swift).
                "ParallaxClient",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Blocking client for tools and applications.
        .target(name: "ParallaxClient", dependencies: ["CLinux", "ParallaxProtocol"]),

        .executableTarget(
            name: "parallaxd",
            // No swift-argument-parser: it would bring FoundationEssentials into the resident
            // daemon (≈2.4 MB RSS); see DaemonCommandLine.swift.
            dependencies: ["ParallaxDaemon"]),
        .executableTarget(
            name: "parallaxctl",
            dependencies: [
                "ParallaxClient", "ParallaxProtocol", "ParallaxMotion", "ParallaxIIO", "ParallaxConfig",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The composition client (docs/wallpaper.md): scenes, geometry and blur as plain values in
        // ParallaxWallpaper (unit-tested), Wayland/EGL drawing in the executable.
        .target(name: "ParallaxWallpaper", dependencies: ["CInih", "CImage", "ParallaxClient", "ParallaxProtocol"]),
        .executableTarget(
            name: "parallax-wallpaper",
            dependencies: ["CWayland", "CWaylandProtocols", "CSystemd", "CLinux", "ParallaxClient", "ParallaxWallpaper"]),

        // End-to-end hub numbers on the real binary (BENCHMARKS.md).
        .executableTarget(name: "parallax-bench", dependencies: ["CLinux"]),
        // Engine cost per sample (BENCHMARKS.md "Motion engine").
        .executableTarget(name: "parallax-bench-motion", dependencies: ["ParallaxMotion"]),

        .testTarget(name: "ParallaxMotionTests", dependencies: ["ParallaxMotion"]),
        .testTarget(name: "ParallaxProtocolTests", dependencies: ["ParallaxProtocol"]),
        .testTarget(name: "ParallaxIIOTests", dependencies: ["ParallaxIIO", "ParallaxMotion"]),
        .testTarget(name: "ParallaxConfigTests", dependencies: ["ParallaxConfig", "ParallaxIIO", "ParallaxMotion"]),
        .testTarget(name: "ParallaxDaemonTests", dependencies: ["ParallaxDaemon", "ParallaxConfig", "ParallaxProtocol", "ParallaxMotion", "ParallaxIIO", "CLinux",
                                                                .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ParallaxClientTests", dependencies: ["ParallaxClient", "ParallaxProtocol", "CLinux"]),
        .testTarget(name: "ParallaxWallpaperTests", dependencies: ["ParallaxWallpaper", "ParallaxClient"]),
    ]
)
