import Testing
@testable import ParallaxWallpaper

@Suite struct SceneParserTests {
    @Test func placeholder() { #expect(SceneParser.directory(of: "/a/b.conf") == "/a") }
}
