import ParallaxConfig
import Testing

@Suite struct UTCTimestampTests {
    @Test func timestampsAreUTC() {
        #expect(UTCTimestamp.text(0) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.text(1_700_000_000) == "2023-11-14T22:13:20Z")
    }
}
