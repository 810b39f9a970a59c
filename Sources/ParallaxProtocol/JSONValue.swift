// A parsed JSON value. Numbers are kept as Double: every number in protocol v1 (rates, seconds,
// rotations, offsets, sequence numbers and nanosecond times below 2^53) fits one exactly.

/// One JSON value, as read by `JSONReader` or echoed by `JSONLineWriter.value(_:)`.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

// Accessors return nil when the value has another type, so a decoder can say "must be a number"
// instead of crashing on a cast.
extension JSONValue {
    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    public var doubleValue: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The number as an Int when it is integral and in range (`90` and `90.0` both give 90).
    public var intValue: Int? {
        guard case .number(let value) = self else { return nil }
        return Int(exactly: value)
    }

    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    public var isNull: Bool { self == .null }

    /// True for the values a protocol `id` may take: string, number, boolean or null.
    public var isScalar: Bool {
        switch self {
        case .null, .bool, .number, .string: return true
        case .array, .object: return false
        }
    }
}
