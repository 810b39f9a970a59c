/// Nanosecond arithmetic on times that come from outside: a trace file's stamps (any Int64), a
/// kernel buffer's, a need of `.max` that means "none". Results clamp to Int64's range instead
/// of trapping; a time that far off is never waited for anyway.
extension Int64 {
    /// `self + other`, clamped to Int64's range.
    func saturatingAdding(_ other: Int64) -> Int64 {
        let (value, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : value
    }

    /// `self − other`, clamped to Int64's range.
    func saturatingSubtracting(_ other: Int64) -> Int64 {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : value
    }

    /// `self × other`, clamped to Int64's range.
    func saturatingMultiplied(by other: Int64) -> Int64 {
        let (value, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : value
    }

    /// A Double of nanoseconds, rounded toward zero, clamped to Int64's range (NaN: 0).
    init(saturating value: Double) {
        if value.isNaN { self = 0 }
        else if value >= 9_223_372_036_854_775_807.0 { self = .max }   // 2^63: the first Double past .max
        else if value <= -9_223_372_036_854_775_808.0 { self = .min }
        else { self = Int64(value) }
    }
}
