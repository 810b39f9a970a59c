import Glibc
import ParallaxMotion
import Testing
@testable import ParallaxIIO

// Serialized: the locale test switches the whole process's locale.
@Suite(.serialized) struct DecimalNumberTests {
    @Test(arguments: [
        ("0.000598", 0.000598), ("-16384", -16384.0), ("100.000000\n", 100.0), ("1.5e-3", 0.0015),
        ("  42 \n", 42.0), ("0.001065\0", 0.001065), ("+7", 7.0),
    ])
    func parsesPlainDecimals(text: String, expected: Double) {
        #expect(DecimalNumber.parseDouble(text) == expected)
    }

    @Test(arguments: ["", "abc", "nan", "inf", "-inf", "0x10", "1,5", "1.5.5", "12abc", "1e999", "\n"])
    func rejectsWhatIsNotOneFiniteNumber(text: String) {
        #expect(DecimalNumber.parseDouble(text) == nil)
    }

    @Test func parsesMountMatrices() throws {
        let m = try #require(DecimalNumber.parseMountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1\n"))
        // v_device = M · v_sensor: sensor +X becomes device −Y.
        let v = m.apply(Vector3(1, 0, 0))
        #expect(v == Vector3(0, -1, 0))
        #expect(m.isOrthonormal(tolerance: 1e-3))
    }

    @Test(arguments: ["1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0", "a, b, c; d, e, f; g, h, i", "", "1 0 0; 0 1 0; 0 0 1"])
    func rejectsMalformedMatrices(text: String) {
        #expect(DecimalNumber.parseMountMatrix(text) == nil)
    }

    /// iio-sensor-proxy once read "0.000598" as 0 under a German locale (strtod follows LC_NUMERIC).
    /// Switch this process to decimal-comma locales and check that nothing changes.
    @Test(arguments: ["de_DE.UTF-8", "fr_FR.UTF-8"])
    func ignoresDecimalCommaLocales(locale: String) throws {
        let previous = String(cString: setlocale(LC_ALL, nil))
        defer { setlocale(LC_ALL, previous) }
        try #require(setlocale(LC_ALL, locale) != nil, "locale \(locale) must be installed (scripts/setup.sh generates it)")
        // Prove the locale really is active: the C library now stops at the '.'.
        #expect(strtod("0.5", nil) == 0)
        #expect(DecimalNumber.parseDouble("0.000598") == 0.000598)
        #expect(DecimalNumber.parseMountMatrix("0.5, 0, 0; 0, 1, 0; 0, 0, 1")?.apply(Vector3(1, 0, 0)).x == 0.5)
        #expect(try TraceFormat.parseRow("1000,0.5,-9.81,0.25,,,", line: 1).accel == Vector3(0.5, -9.81, 0.25))
    }
}
