import CIIO
import Glibc

/// A libiio buffer, owned: created enabled and non-blocking, destroyed in one place (`close`,
/// or when the last reference goes), so no error path can leak or double-free it. It keeps its
/// context alive: libiio's buffer points into it.
final class IIOBuffer {
    /// poll(2)s readable when scans are queued.
    let pollFD: Int32
    /// Bytes from one scan to the next.
    let step: Int
    private var pointer: OpaquePointer?
    private let context: IIOContext
    private let device: IIODeviceHandle

    /// Creates the buffer of `device` for `scans` scans per refill, with the channels already
    /// enabled; the errno of the failure and why in words when it cannot.
    ///
    /// Destroying it disables it, also a buffer that was iio-sensor-proxy's: it sets its buffer
    /// up itself when it starts, which it does only once parallaxd has let go (its unit's
    /// drop-in, docs/operations.md "Beside iio-sensor-proxy"); a buffer left enabled would make
    /// that set-up fail (the trigger cannot change while a buffer runs).
    init(device: IIODeviceHandle, context: IIOContext, scans: Int) throws(IIOBufferError) {
        self.context = context
        self.device = device
        errno = 0
        guard let pointer = iio_device_create_buffer(device.pointer, scans, false) else {
            throw .cannotCreate(errno: errno)
        }
        self.pointer = pointer
        // Non-blocking refills: poll() in short slices instead, so stopping stays prompt and a
        // refill returns whatever is queued rather than waiting for a full buffer.
        let blockingResult = iio_buffer_set_blocking_mode(pointer, false)
        let fd = iio_buffer_get_poll_fd(pointer)
        guard blockingResult == 0, fd >= 0 else {
            iio_buffer_destroy(pointer)
            self.pointer = nil
            throw .cannotPoll(errno: -(blockingResult < 0 ? blockingResult : fd))
        }
        pollFD = fd
        step = iio_buffer_step(pointer)
    }

    deinit { close() }

    /// Destroys the buffer, which disables it, so that polling (ours after a fallback, or
    /// another process) can read the device again. Idempotent.
    func close() {
        guard let pointer else { return }
        iio_buffer_destroy(pointer)
        self.pointer = nil
    }

    var isOpen: Bool { pointer != nil }

    /// Reads what is queued (non-blocking): the bytes read, 0, or a negative errno
    /// (iio_buffer_refill's answer); -EBADF once closed.
    func refill() -> Int {
        guard let pointer else { return -Int(EBADF) }
        return iio_buffer_refill(pointer)
    }

    /// The refilled bytes.
    var start: UnsafeRawPointer? { pointer.flatMap { UnsafeRawPointer(iio_buffer_start($0)) } }

    /// Where `channel`'s value sits in a scan (bytes from the start), nil when libiio does not say.
    func offset(of channel: IIOChannelHandle) -> Int? {
        guard let pointer, let start, let first = UnsafeRawPointer(iio_buffer_first(pointer, channel.pointer)) else { return nil }
        return first - start
    }
}

/// Why a buffer could not be made.
enum IIOBufferError: Error {
    case cannotCreate(errno: Int32)
    case cannotPoll(errno: Int32)
}
