import Glibc
import ParallaxConfig
import ParallaxMotion
import ParallaxProtocol
import SystemPackage

/// The calibration file on disk (docs/configuration.md "Calibration file": INI with `[Gyroscope] Bias=bx, by, bz`):
/// how a measurement is written as text, and how the file is replaced so that a crash at any
/// moment leaves either the old file or the new one, never a torn one.
enum CalibrationFile {
    /// Permission bits of the file: nothing in it is secret, and `status` readers may look.
    static let mode: mode_t = 0o644
    /// Permission bits of a directory created for it (as systemd's StateDirectory= makes it).
    static let directoryMode: mode_t = 0o755

    /// The file's text. `sensors` names what was measured ("bmi160 (iio:device0)").
    static func render(_ m: CalibrationMeasurement, sensors: String, writtenBy: String, now: time_t = time(nil)) -> String {
        func triple(_ v: Vector3, _ decimals: Int) -> String { CalibrationFile.triple(v, decimals: decimals) }
        let gyroDecimals = 6
        let accelDecimals = 4
        return """
            # parallaxd calibration, written by \(writtenBy) at \(UTCTimestamp.text(now)).
            # The device lay still for \(FixedDecimal.text(m.seconds, decimals: 3)) s (\(m.samples) samples). Device frame: x to the right
            # of the screen, y to its top, z toward the viewer. parallaxd subtracts [Gyroscope] Bias=
            # from every gyroscope sample; the other values are measurements kept for reference.
            # Run `parallaxd --calibrate` again to replace this file.

            [Gyroscope]
            # Reading at rest (rad/s), subtracted from every sample.
            Bias=\(triple(m.gyroBias, gyroDecimals))
            # Standard deviation at rest (rad/s).
            Noise=\(triple(m.gyroNoise, gyroDecimals))

            [Accelerometer]
            # Mean at rest (m/s², direction of gravity): the neutral pose.
            Mean=\(triple(m.accelMean, accelDecimals))
            # Standard deviation at rest (m/s²).
            Noise=\(triple(m.accelNoise, accelDecimals))
            # |Mean| / 9.80665 - 1 (local gravity itself differs from standard gravity by up to 0.3 %).
            ScaleError=\(FixedDecimal.text(m.accelScaleError, decimals: 5))

            [Measurement]
            Seconds=\(FixedDecimal.text(m.seconds, decimals: 3))
            Samples=\(m.samples)
            Sensors=\(sensors)

            """
    }

    /// Why the file could not be replaced.
    struct WriteError: Error, CustomStringConvertible {
        let path: String
        let step: String
        let errno: Int32
        var description: String { "cannot \(step) \(path): \(String(cString: strerror(errno)))" }
    }

    /// Replaces `path` with `text` atomically and durably: the text goes to a temporary file in
    /// the same directory, is fsync'ed, renamed over `path`, and the directory is fsync'ed so the
    /// rename itself survives a power cut. Readers see the old file or the new one, never a mix.
    static func write(_ text: String, to path: String) -> Result<Void, WriteError> {
        let (directory, name) = split(path)
        if let failed = Directories.create(directory, mode: directoryMode) {
            return .failure(WriteError(path: failed.directory, step: "create the directory", errno: failed.error.rawValue))
        }
        let temporary = directory + "/." + name + ".tmp"
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .closeOnExec, .noFollow],
                                         permissions: FilePermissions(rawValue: mode))
        } catch {
            return .failure(WriteError(path: temporary, step: "create", errno: (error as? Errno)?.rawValue ?? EIO))
        }
        func fail(_ step: String, _ target: String, _ code: Int32) -> Result<Void, WriteError> {
            unlink(temporary)
            return .failure(WriteError(path: target, step: step, errno: code))
        }
        // fchmod: the service's UMask= must not make the file unreadable for the tools.
        _ = fchmod(fd.rawValue, mode)
        do {
            _ = try fd.writeAll(text.utf8)
        } catch {
            try? fd.close()
            return fail("write", temporary, (error as? Errno)?.rawValue ?? EIO)
        }
        guard fsync(fd.rawValue) == 0 else {
            let code = errno
            try? fd.close()
            return fail("fsync", temporary, code)
        }
        do { try fd.close() } catch { return fail("close", temporary, (error as? Errno)?.rawValue ?? EIO) }
        guard rename(temporary, path) == 0 else { return fail("rename onto", path, errno) }
        let directoryFD: FileDescriptor
        do {
            directoryFD = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            return .failure(WriteError(path: directory, step: "open", errno: (error as? Errno)?.rawValue ?? EIO))
        }
        defer { try? directoryFD.close() }
        guard fsync(directoryFD.rawValue) == 0 else { return .failure(WriteError(path: directory, step: "fsync", errno: errno)) }
        return .success(())
    }

    /// Why `path` cannot be written, when that is clear before measuring (its directory exists
    /// and is not writable for this process); nil when it looks writable or is yet to be created.
    static func unwritable(_ path: String) -> WriteError? {
        let (directory, _) = split(path)
        var st = stat()
        guard stat(directory, &st) == 0 else { return nil }
        return access(directory, W_OK) == 0 ? nil : WriteError(path: directory, step: "write into", errno: errno)
    }

    /// (directory, file name); a bare name lives in ".".
    static func split(_ path: String) -> (String, String) {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        return (Directories.parent(of: path), name)
    }

    /// "0.020235, -0.014910, 0.009585": a vector as the file and the logs write it.
    static func triple(_ v: Vector3, decimals: Int) -> String {
        "\(FixedDecimal.text(v.x, decimals: decimals)), \(FixedDecimal.text(v.y, decimals: decimals)), \(FixedDecimal.text(v.z, decimals: decimals))"
    }
}
