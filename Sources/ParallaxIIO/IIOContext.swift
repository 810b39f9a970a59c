import CIIO
import Glibc

/// An owned libiio context (local:, ip:HOST, usb:…). libiio objects are not thread-safe: a
/// context and everything read through it stay on the capture thread that created it.
final class IIOContext {
    let pointer: OpaquePointer
    let uri: String

    /// Opens `uri` ("local:" for this machine's sysfs).
    init(uri: String) throws(SensorError) {
        errno = 0
        guard let ctx = iio_create_context_from_uri(uri) else {
            let err = errno
            throw SensorError(uri == "local:" ? .noSensors : .lost,
                              "cannot open IIO context \(uri): \(IIOContext.describe(errno: err))")
        }
        pointer = ctx
        self.uri = uri
    }

    deinit { iio_context_destroy(pointer) }

    var devices: [IIODeviceHandle] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { i in
            iio_context_get_device(pointer, i).map(IIODeviceHandle.init)
        }
    }

    /// libiio's own wording for an error code (it knows its network errors too).
    static func describe(errno code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        iio_strerror(code == 0 ? EINVAL : code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A device inside a context (borrowed: valid while the context lives).
struct IIODeviceHandle {
    let pointer: OpaquePointer

    /// "iio:device0": also the sysfs directory name under /sys/bus/iio/devices.
    var id: String { iio_device_get_id(pointer).map { String(cString: $0) } ?? "?" }
    var name: String { iio_device_get_name(pointer).map { String(cString: $0) } ?? id }
    var label: String? { iio_device_get_label(pointer).map { String(cString: $0) } }

    var channels: [IIOChannelHandle] {
        (0..<iio_device_get_channels_count(pointer)).compactMap { i in
            iio_device_get_channel(pointer, i).map(IIOChannelHandle.init)
        }
    }

    func hasAttribute(_ name: String) -> Bool { iio_device_find_attr(pointer, name) != nil }

    /// Reads a device attribute as text; throws the negative errno libiio returned.
    func read(_ attribute: String) -> Result<String, IIOAttributeError> {
        readAttribute { iio_device_attr_read(pointer, attribute, $0, $1) }
    }

    func write(_ attribute: String, _ value: String) -> Bool { set(attribute, value) == nil }

    /// Writes a device attribute; nil when it took, the errno libiio reported otherwise (a
    /// refusal the caller words as its consequence: `SensorLimit`).
    func set(_ attribute: String, _ value: String) -> IIOAttributeError? {
        writeAttribute { iio_device_attr_write(pointer, attribute, value) }
    }
}

/// A channel of a device (borrowed).
struct IIOChannelHandle {
    let pointer: OpaquePointer

    var id: String { iio_channel_get_id(pointer).map { String(cString: $0) } ?? "" }
    var isOutput: Bool { iio_channel_is_output(pointer) }
    func hasAttribute(_ name: String) -> Bool { iio_channel_find_attr(pointer, name) != nil }

    func read(_ attribute: String) -> Result<String, IIOAttributeError> {
        readAttribute { iio_channel_attr_read(pointer, attribute, $0, $1) }
    }

    func write(_ attribute: String, _ value: String) -> Bool { set(attribute, value) == nil }

    func set(_ attribute: String, _ value: String) -> IIOAttributeError? {
        writeAttribute { iio_channel_attr_write(pointer, attribute, value) }
    }
}

/// A failed attribute read or write: the errno libiio reported.
struct IIOAttributeError: Error {
    let errno: Int32
    var isDeviceGone: Bool { errno == ENODEV || errno == ENOENT || errno == ENXIO }
    var description: String { IIOContext.describe(errno: errno) }
}

/// libiio returns the bytes written, or a negative errno; a write of nothing took nothing.
private func writeAttribute(_ write: () -> Int) -> IIOAttributeError? {
    let n = write()
    return n > 0 ? nil : IIOAttributeError(errno: n < 0 ? Int32(-n) : EIO)
}

/// Sysfs attributes are short; one stack-sized buffer per read, no heap traffic beyond the String.
private func readAttribute(_ read: (UnsafeMutablePointer<CChar>, Int) -> Int) -> Result<String, IIOAttributeError> {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
        let n = read(buffer.baseAddress!, buffer.count)
        guard n >= 0 else { return .failure(IIOAttributeError(errno: Int32(-n))) }
        let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress!, count: min(n, buffer.count))
        let text = bytes.prefix { $0 != 0 }
        return .success(String(decoding: text, as: UTF8.self))
    }
}
