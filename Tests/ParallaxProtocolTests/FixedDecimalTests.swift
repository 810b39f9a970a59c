import ParallaxProtocol
import Testing

/// Fixed-decimal text, the one formatter of offsets, files, messages and terminal columns.
@Suite struct FixedDecimalTests {
    @Test(arguments: [
        (0.0, 3, "0.000"), (-0.00001, 4, "0.0000"), (0.00005, 4, "0.0001"),
        (-0.00005, 4, "-0.0001"), (1.5, 0, "2"), (-2.5, 0, "-3"), (9.80665, 2, "9.81"), (-0.014910, 6, "-0.014910"),
    ] as [(Double, Int, String)])
    func fixedPointText(value: Double, decimals: Int, text: String) {
        #expect(FixedDecimal.text(value, decimals: decimals) == text)
    }

    @Test(arguments: [
        (0.1234, 4, "+0.1234"), (-0.0456, 4, "-0.0456"), (0.0, 4, "+0.0000"), (-0.00001, 4, "+0.0000"), (.nan, 2, "+0.00"),
    ] as [(Double, Int, String)])
    func terminalColumnsCarryASign(value: Double, decimals: Int, text: String) {
        #expect(FixedDecimal.text(value, decimals: decimals, plusSign: true) == text)
    }

    @Test(arguments: [
        (60.0, "60"), (99.84, "99.8"), (99.96, "100"), (-0.04, "0"), (-1.25, "-1.3"),
    ] as [(Double, String)])
    func trimmedZerosDropThePoint(value: Double, text: String) {
        #expect(FixedDecimal.text(value, decimals: 1, zeros: .trimmed) == text)
    }

    @Test(arguments: [
        (Int64(5_123_456_789), "5123.456789"), (0, "0.000000"), (-1_500_000, "-1.500000"), (999, "0.000999"),
    ] as [(Int64, String)])
    func unitsWithoutADouble(units: Int64, text: String) {
        #expect(FixedDecimal.text(units: units, decimals: 6) == text)
    }
}
